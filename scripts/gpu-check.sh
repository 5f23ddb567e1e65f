#!/usr/bin/env bash
# gpu-check.sh: what a developer with an NVIDIA GPU runs to check the CUDA
# backend on real hardware: a Release build, `accel selftest --backend cuda
# --json` (every check and vendor-rule probe, docs/selftest.md), the fork
# check, the CPU-vs-CUDA Philox bit check, the collectives end to end on
# cuda + nccl (and the selftest's under `accel launch` on 2, 4 or 8 GPUs),
# the CUDA benchmarks and the comm suite (accel_all_reduce vs
# ncclAllReduce). Works offline; needs no test framework (the selftest is
# part of the tool); reports a missing dlpack header instead of fetching it.
# Usage: scripts/gpu-check.sh [OUTPUT_DIR]   (default ./gpu-results)
# GPU_CHECK_SECONDS (default 480) bounds the whole run, build included: the
# device tool lends a machine for minutes, so the checks run most important
# first, each under a timeout that fits what is left, and a check that would
# not fit is reported as skipped (out of time) instead of starting.
# Rehearsal without a GPU (tests/cli: cli.gpu_check_dry): GPU_CHECK_SKIP_BUILD=1
# uses the build in ACCEL_GPU_BUILD_DIR as it is, and GPU_CHECK_ONLY="a b"
# runs only the named checks (the others are reported as skipped).
set -u

OUT=$(mkdir -p "${1:-./gpu-results}" && cd "${1:-./gpu-results}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${ACCEL_GPU_BUILD_DIR:-$ROOT/build-gpu}
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"

say() { echo "$*" | tee -a "$SUMMARY"; }

DEADLINE=${GPU_CHECK_SECONDS:-480}

# run NAME LIMIT COMMAND...: output to $OUT/NAME.log, at most LIMIT seconds
# and never past the deadline; exit code 77 counts as skipped, 124 as a hang.
run() {
    local name=$1 limit=$2
    shift 2
    if [ -n "${GPU_CHECK_ONLY:-}" ] && [[ " $GPU_CHECK_ONLY " != *" $name "* ]]; then
        say "SKIP  $name (not in GPU_CHECK_ONLY)"
        return 0
    fi
    local left=$((DEADLINE - SECONDS - 5))
    if [ "$left" -lt 15 ]; then
        say "SKIP  $name (out of time: GPU_CHECK_SECONDS=$DEADLINE)"
        return 0
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
    local rc=$?
    case $rc in
    0) say "PASS  $name ($((SECONDS))s in)" ;;
    77) say "SKIP  $name ($(tail -n 1 "$OUT/$name.log"))" ;;
    124) say "FAIL  $name (timed out after ${limit}s, see $name.log)" ;;
    *) say "FAIL  $name (exit $rc, see $name.log)" ;;
    esac
    return 0
}

say "accel gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true; } >"$OUT/nvidia-smi.txt"
say "gpu: $(sed -n 2p "$OUT/nvidia-smi.txt")"

# ---- dependencies
# Warnings are CI's business (-Werror there); here a new compiler warning
# must not stop the hardware run.
CMAKE_ARGS=(-DCMAKE_BUILD_TYPE=Release -DACCEL_WERROR=OFF)
missing=()
command -v cmake >/dev/null || { say "cmake not found: cannot build"; exit 1; }
GENERATOR=()
command -v ninja >/dev/null && GENERATOR=(-G Ninja)

dlpack_ok=false
for dir in /usr/include /usr/local/include ${DLPACK_INCLUDE_DIR:-}; do
    [ -f "$dir/dlpack/dlpack.h" ] && dlpack_ok=true && CMAKE_ARGS+=(-DDLPACK_INCLUDE_DIR="$dir") && break
done
if ! $dlpack_ok; then
    # PyTorch ships the same single header as ATen/dlpack.h: point a
    # dlpack/dlpack.h link at it inside the build folder.
    torch_dir=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null)
    for header in "$torch_dir/include/ATen/dlpack.h" "$torch_dir/include/dlpack/dlpack.h"; do
        if [ -n "$torch_dir" ] && [ -f "$header" ]; then
            mkdir -p "$BUILD/dlpack-shim/dlpack"
            ln -sf "$header" "$BUILD/dlpack-shim/dlpack/dlpack.h"
            CMAKE_ARGS+=(-DDLPACK_INCLUDE_DIR="$BUILD/dlpack-shim")
            say "dlpack: libdlpack-dev missing; using PyTorch's $header"
            dlpack_ok=true
            break
        fi
    done
fi
$dlpack_ok || { say "MISSING dlpack/dlpack.h (install libdlpack-dev or PyTorch): cannot build"; exit 1; }

# No test framework: the checks are `accel selftest`, built into the tool.
CMAKE_ARGS+=(-DACCEL_BUILD_TESTS=OFF)

# NCCL: on the loader path, else the nvidia-nccl wheel PyTorch brings (its
# header too, for the declarations check).
if [ -z "${ACCEL_NCCL_LIBRARY:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libnccl\.so\.2'; then
    nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null)
    if [ -n "$nccl_dir" ] && [ -f "$nccl_dir/lib/libnccl.so.2" ]; then
        export ACCEL_NCCL_LIBRARY=$nccl_dir/lib/libnccl.so.2
        [ -f "$nccl_dir/include/nccl.h" ] && export NCCL_HOME=$nccl_dir
        say "nccl: $ACCEL_NCCL_LIBRARY (PyTorch's nvidia-nccl wheel)"
    else
        missing+=("libnccl.so.2 (not on the loader path, no nvidia-nccl wheel): the NCCL checks skip")
    fi
fi
for m in "${missing[@]}"; do say "MISSING $m"; done

# ---- build (only what the checks run: minutes count on a lent machine)
if [ "${GPU_CHECK_SKIP_BUILD:-0}" = 1 ]; then
    say "SKIP  build (GPU_CHECK_SKIP_BUILD=1: using $BUILD as it is)"
elif ! cmake -S "$ROOT" -B "$BUILD" "${GENERATOR[@]}" "${CMAKE_ARGS[@]}" >"$OUT/configure.log" 2>&1; then
    say "FAIL  configure (see configure.log)"
    exit 1
else
    available=$(cmake --build "$BUILD" --target help 2>/dev/null)
    targets=()
    for target in accel_cli cuda_fork_check cuda_philox_cross cuda_comm_nccl cuda_bench \
        cuda_declarations_check cuda_nvrtc_check; do
        grep -qE "(^|[ /])$target(:| )" <<<"$available" && targets+=("$target")
    done
    if ! cmake --build "$BUILD" -j"$(nproc)" --target "${targets[@]}" >"$OUT/build.log" 2>&1; then
        say "FAIL  build (see build.log)"
        exit 1
    fi
    say "PASS  build (Release, $BUILD: ${targets[*]}; ${SECONDS}s in)"
fi

# ---- checks, most important first
CUDA_DIR=$BUILD/src/backends/cuda
ACCEL=$BUILD/tools/accel/accel
run report 60 "$ACCEL" report
ACCEL_ACCELERATOR=cuda timeout 60 "$ACCEL" report --json >"$OUT/report.json" 2>&1 || true
# NVRTC's version against the driver's (a newer NVRTC's kernels do not load).
[ -x "$CUDA_DIR/cuda_nvrtc_check" ] && run nvrtc_kernels 120 "$CUDA_DIR/cuda_nvrtc_check"
[ -x "$CUDA_DIR/cuda_declarations_check" ] && run declarations 30 "$CUDA_DIR/cuda_declarations_check"
# Every check of the selftest, each in its own process under a 60 s
# watchdog; its failing lines go into the summary, the report beside it.
run selftest 300 "$ACCEL" selftest --backend cuda --json "$OUT/selftest.json"
grep -E '^(FAIL|HANG|CRASH) ' "$OUT/selftest.log" >>"$SUMMARY" 2>/dev/null
grep -E '^accel selftest: [0-9]+ checks' "$OUT/selftest.log" >>"$SUMMARY" 2>/dev/null
run philox_cross 60 "$BUILD/tests/cuda/cuda_philox_cross"
run fork_check 60 "$BUILD/tests/cuda/cuda_fork_check"
run cuda_bench 150 "$BUILD/bench/cuda_bench"
cp "$OUT/cuda_bench.log" "$OUT/cuda_bench.txt" 2>/dev/null
# FusedAdam against torch's fused AdamW, when torch is on the machine.
run torch_adam 90 python3 "$ROOT/bench/compare_fused_adam.py" --accel-log "$OUT/cuda_bench.log"
grep -E '^(torch|accel FusedAdam)' "$OUT/torch_adam.log" >>"$SUMMARY" 2>/dev/null
# accel_comm.h end to end on cuda + nccl (tests/sim/comm_device.c's checks):
# one rank, no MPI; then one rank per GPU where there are 2, 4 or 8 GPUs and
# mpirun (the checks' exact averages need a power-of-two rank count).
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
# One host: NCCL's bootstrap and Open MPI's launcher over loopback, so that a
# machine without a network (or with one that is down) still runs them.
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo}
export OMPI_MCA_oob_tcp_if_include=${OMPI_MCA_oob_tcp_if_include:-lo}
export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-lo}
run comm_nccl 120 env ACCEL_ACCELERATOR=cuda "$BUILD/tests/cuda/cuda_comm_nccl" nccl
case $gpus in
2 | 4 | 8)
    if command -v mpirun >/dev/null; then
        run comm_nccl_ranks 120 env ACCEL_ACCELERATOR=cuda "$ACCEL" \
            launch -n "$gpus" "$BUILD/tests/cuda/cuda_comm_nccl" nccl
        # The selftest's collectives and comm rule probes, one rank per GPU.
        run selftest_comm 120 "$ACCEL" launch -n "$gpus" "$ACCEL" selftest --backend cuda \
            --only comm.,rule.comm_ --json "$OUT/selftest_comm.json"
    else
        say "SKIP  comm_nccl_ranks ($gpus GPUs but no mpirun)"
    fi
    ;;
esac
# The comm suite (issue 18): MPI figures (2 ranks through mpirun, on cpu),
# then accel_all_reduce against ncclAllReduce on the same CUstream and
# buffers. Its NCCL lines are copied into the summary.
run comm_bench 180 env ACCEL_ACCELERATOR=cuda "$ACCEL" bench --suite comm --quick \
    --json "$OUT/comm_bench.json"
grep -E '^comm +nccl' "$OUT/comm_bench.log" >>"$SUMMARY" 2>/dev/null
run accel_bench 180 env ACCEL_ACCELERATOR=cuda "$ACCEL" bench
# The same fills again with tracing on: checks the trace recorder with a GPU.
run trace 30 env ACCEL_TRACE="$OUT/trace.json" "$BUILD/tests/cuda/cuda_philox_cross"

say "results in $OUT"
grep -q '^FAIL' "$SUMMARY" && exit 1
exit 0
