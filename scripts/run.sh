#!/usr/bin/env bash
# run.sh: the main job on a fresh machine: install what is missing, build,
# then `accel report` and the short demo on the auto-detected backend (the
# CPU on a machine without accelerators).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
accel_install_missing

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build accel_cli
./build/tools/accel/accel report
./build/tools/accel/accel demo
