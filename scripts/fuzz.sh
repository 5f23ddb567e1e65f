#!/usr/bin/env bash
# fuzz.sh: build the libFuzzer harnesses of tests/fuzz (clang, ASan+UBSan,
# ACCEL_BUILD_FUZZERS=ON) and run each for SECONDS (default 60), starting
# from the seed corpus committed under tests/fuzz/corpus/<harness>/.
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]   (scripts/test.sh runs it
# with a few seconds each). New inputs land in build-fuzz/corpus/, findings
# in build-fuzz/findings/; a finding fails the script and names its input,
# which belongs in the seed corpus once fixed (a regression input).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
all=(fuzz_names fuzz_plugin_path fuzz_visible_devices fuzz_env_cmd fuzz_rng_state
     fuzz_op_builder fuzz_adam_tensors fuzz_kernel_cache fuzz_tensor_calls fuzz_launch_hosts)
harnesses=("${@:-${all[@]}}")
if [ $# -eq 0 ]; then harnesses=("${all[@]}"); fi
build=$PWD/build-fuzz

CC=clang cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DACCEL_BUILD_FUZZERS=ON >/dev/null
ninja -C "$build" -j "${ACCEL_FUZZ_JOBS:-2}" "${harnesses[@]}"

# The same runtime options as the sanitizer test builds (cmake/sanitizer_env.cmake.in).
export ASAN_OPTIONS="allocator_may_return_null=1:use_sigaltstack=0:detect_leaks=1:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export ACCEL_LOG=error
mkdir -p "$build/findings"
failed=()
for h in "${harnesses[@]}"; do
    corpus="$build/corpus/$h"
    mkdir -p "$corpus"
    extra=()
    # `accel env` prints usage lines for every bad list: keep them out of the log.
    [ "$h" = fuzz_env_cmd ] && extra=(-close_fd_mask=3)
    echo "== fuzz $h for ${seconds}s"
    if ! "$build/tests/fuzz/$h" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
            -print_final_stats=0 -artifact_prefix="$build/findings/$h-" "${extra[@]}" \
            "$corpus" "$PWD/tests/fuzz/corpus/$h" 2>"$build/findings/$h.log"; then
        tail -60 "$build/findings/$h.log"
        echo "fuzz.sh: $h found a problem; inputs: $(ls "$build/findings/$h-"* 2>/dev/null | tr '\n' ' ')"
        failed+=("$h")
    else
        grep -E "^#[0-9]+[[:space:]]+DONE" "$build/findings/$h.log" | tail -1 || true
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: findings in ${failed[*]}"
    exit 1
fi
echo "fuzz.sh: no findings"
