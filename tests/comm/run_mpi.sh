#!/usr/bin/env bash
# run_mpi.sh N PROGRAM [ARGS...]: run PROGRAM as N ranks with Open MPI's
# mpirun on this machine, more ranks than cores allowed, as root too; exit
# 77 (ctest's skip) with the reason when mpirun is missing.
set -euo pipefail
ranks=$1; shift
mpirun=${ACCEL_MPIRUN:-}
if [ -z "$mpirun" ] || [ "$mpirun" = "ACCEL_MPIRUN-NOTFOUND" ]; then
    mpirun=$(command -v mpirun || true)
fi
if [ -z "$mpirun" ]; then
    echo "skipped: mpirun is not installed (Debian: apt-get install openmpi-bin)"
    exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Shared memory and loopback TCP only (no network probing in CI sandboxes).
exec "$mpirun" -n "$ranks" --oversubscribe --bind-to none --mca btl self,vader,tcp \
    --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo "$@"
