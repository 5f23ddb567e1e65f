#!/usr/bin/env bash
# test.sh: every test, as CI runs it: install what is missing; check the C
# files are clang-formatted; build with gcc
# and run all tests; build with clang (warnings are errors); run the suite
# under ASan+UBSan and the threading tests under TSan; run each libFuzzer
# harness briefly; check that an installed accel is found by find_package and
# pkg-config; pip-install the Python package into a venv and run its pytest
# suite (scripts/test-deepspeed.sh, DeepSpeed's own optimizer tests, is opt-in).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
accel_install_missing

jobs=$(nproc)
# Each stage's wall time is printed when the next one starts, and all of them
# at the end, so a slow stage shows up in CI's log (budget: 15 minutes in all
# on a 2-core machine).
stage_names=() stage_seconds=() stage_start=$SECONDS
stage() { # title: close the running stage, print and open the next
    finish_stage
    stage_names+=("$1")
    stage_start=$SECONDS
    echo "== $1"
}
finish_stage() {
    local n=${#stage_names[@]}
    if [ "$n" -gt "${#stage_seconds[@]}" ]; then
        stage_seconds+=($((SECONDS - stage_start)))
        echo "   (${stage_seconds[-1]} s)"
    fi
}
configure() { # dir, extra cmake args...
    local dir=$1; shift
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
    ninja -C "$dir" -j "$jobs"
}

stage "format: every C file as clang-format leaves it (.clang-format)"
bash scripts/check-format.sh

stage "gcc build + all tests but the simulated runtimes' (the skeleton backend on: its suite and the backend guide's copy test)"
configure build -DACCEL_BACKEND_SKELETON=ON
ctest --test-dir build --output-on-failure --no-tests=error -j "$jobs" -LE sim

stage "clang build (warnings as errors)"
CC=clang configure build-clang
ctest --test-dir build-clang --output-on-failure -j "$jobs" -L conformance -LE sim

stage "ASan + UBSan: all tests, then the conformance suite without the cache"
CC=clang configure build-asan -DACCEL_SANITIZE=address -DACCEL_BACKEND_SKELETON=ON
ctest --test-dir build-asan --output-on-failure -j "$jobs"
ACCEL_ALLOC_CONF=caching:0 ctest --test-dir build-asan --output-on-failure -L conformance -LE sim

stage "TSan: threading tests (threaded conformance, allocator stress, the communicator lock, thread states freed once, optimizer ops, async_io threads, host thread pool and Philox fill, concurrent accel_get, fork while threads work, callbacks that synchronize, the cpu stream hand-off, the stress test, and the cuda backend's threads on the simulated driver)"
CC=clang configure build-tsan -DACCEL_SANITIZE=thread
ctest --test-dir build-tsan --output-on-failure --no-tests=error -LE sim \
          -R '^(conformance_threads\.|unit\.test_allocator$|unit\.test_comm_lock$|unit\.test_thread_states$|unit\.test_optim_cpu$|unit\.test_lamb_cpu$|unit\.test_aio(_threads)?$|unit\.test_utils_(thread_pool|philox|callback)$|plugin\.loader$|unit\.test_cpu_fork$|unit\.test_cpu_stream_batch$|unit\.test_cpu_callback_sync|stress\.)'
# The cuda backend's threading, on the simulated driver (the one sim test here).
ctest --test-dir build-tsan --output-on-failure --no-tests=error -R '^conformance_threads\.cuda_sim$'

stage "libFuzzer: every harness of tests/fuzz for 10 s from its seed corpus (scripts/fuzz.sh runs longer)"
bash scripts/fuzz.sh "${ACCEL_FUZZ_SECONDS:-10}"

stage "install: find_package(accel) and pkg-config"
bash scripts/check-install.sh build

stage "python: pip install . into build/python-venv, then pytest python/tests (scripts/test-python.sh)"
bash scripts/test-python.sh
finish_stage
for i in "${!stage_names[@]}"; do
    printf '%5d s  %s\n' "${stage_seconds[$i]}" "${stage_names[$i]%%:*}"
done
echo "test.sh: all stages passed in $SECONDS s"
