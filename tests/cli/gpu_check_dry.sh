#!/usr/bin/env bash
# gpu_check_dry.sh BUILD_DIR: scripts/gpu-check.sh rehearsed without a GPU,
# on the simulated CUDA driver the caller names (ACCEL_CUDA_LIBRARY,
# ACCEL_NVML_LIBRARY), with the build as it is: the selftest step runs
# `accel selftest --backend cuda --json` and the summary and report are
# where the script says; the steps left out are reported as skipped; and
# with too small a GPU_CHECK_SECONDS every step is skipped, out of time.
set -uo pipefail
build=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
    echo "FAIL: $1"
    [ -f "$2" ] && { echo "--- $2"; cat "$2"; }
    exit 1
}

ACCEL_GPU_BUILD_DIR=$build GPU_CHECK_SKIP_BUILD=1 GPU_CHECK_SECONDS=300 \
    GPU_CHECK_ONLY="report selftest philox_cross fork_check" \
    bash "$root/scripts/gpu-check.sh" "$work/run" >/dev/null 2>&1
rc=$?
summary=$work/run/summary.txt
[ "$rc" -eq 0 ] || fail "gpu-check.sh exited $rc" "$summary"
for line in '^PASS  report ' '^PASS  selftest ' '^PASS  philox_cross ' '^PASS  fork_check ' \
    '^SKIP  cuda_bench \(not in GPU_CHECK_ONLY\)' '^accel selftest: [0-9]+ checks on cuda'; do
    grep -qE "$line" "$summary" || fail "the summary has no line matching $line" "$summary"
done
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["backend"] == "cuda" and r["summary"]["ok"], r["summary"]' \
    "$work/run/selftest.json" || fail "selftest.json is not a passing cuda report" "$summary"

# The budget: nothing starts once too little time is left.
ACCEL_GPU_BUILD_DIR=$build GPU_CHECK_SKIP_BUILD=1 GPU_CHECK_SECONDS=10 \
    bash "$root/scripts/gpu-check.sh" "$work/late" >/dev/null 2>&1
grep -qE '^SKIP  selftest \(out of time: GPU_CHECK_SECONDS=10\)' "$work/late/summary.txt" ||
    fail "with GPU_CHECK_SECONDS=10 the selftest was not skipped for time" "$work/late/summary.txt"
if grep -qE '^(PASS|FAIL)  (selftest|report|cuda_bench)' "$work/late/summary.txt"; then
    fail "with GPU_CHECK_SECONDS=10 a check still ran" "$work/late/summary.txt"
fi
echo "gpu_check_dry: gpu-check.sh ran the selftest on the simulated driver and kept its budget"
