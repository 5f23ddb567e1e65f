#!/usr/bin/env bash
# deps.sh: install the Debian packages accel needs to build and test, only
# those that are missing. Sourced by run.sh and test.sh; safe to run twice.
set -euo pipefail

accel_packages=(cmake ninja-build gcc g++ clang pkg-config python3 python3-venv libcmocka-dev libdlpack-dev
                libclang-rt-14-dev pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo
                liburing-dev clang-format libze1 libze-dev openmpi-bin libopenmpi-dev
                python3-jsonschema fio libaio-dev)

accel_install_missing() {
    local missing=()
    for pkg in "${accel_packages[@]}" "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "deps: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    accel_install_missing "$@"
fi
