#!/usr/bin/env bash
# run_launch.sh ACCEL N PROGRAM [ARGS...]: run PROGRAM as N ranks through
# `accel launch` (the command users are told to use); exit 77 (ctest's skip)
# with the reason when mpirun is missing.
set -euo pipefail
accel=$1; shift
if [ -z "${ACCEL_MPIRUN:-}" ] || [ "$ACCEL_MPIRUN" = "ACCEL_MPIRUN-NOTFOUND" ]; then
    unset ACCEL_MPIRUN
    command -v mpirun >/dev/null || { echo "skipped: mpirun is not installed"; exit 77; }
fi
ranks=$1; shift
exec "$accel" launch -n "$ranks" "$@"
