#!/usr/bin/env bash
# run.sh: the main job on a fresh machine: install what is missing, build,
# then `accel report` and the short demo on the auto-detected backend (the
# CPU on a machine without accelerators); then `pip install .` into
# build/python-venv and the Python one-liner.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
accel_install_missing

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build accel_cli
./build/tools/accel/accel report
./build/tools/accel/accel demo

python3 -m venv build/python-venv
build/python-venv/bin/pip install -q .
oneliner='import accel; a=accel.get_accelerator(); print(a.device_name(), a.device_count())'
echo "\$ build/python-venv/bin/python -c \"$oneliner\""
(cd build && python-venv/bin/python -c "$oneliner")
