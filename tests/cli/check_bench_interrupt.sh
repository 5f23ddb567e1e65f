#!/usr/bin/env bash
# check_bench_interrupt.sh ACCEL: `accel bench --suite aio` writes a file in
# the current directory (1 GiB without --quick). Interrupted while the file
# exists (SIGTERM, as `timeout` sends, then SIGINT, as Ctrl-C does), it must
# remove the file before it dies.
set -euo pipefail
accel=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/accel_bench_interrupt.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
# Job control: a background job of a script without it starts with SIGINT
# ignored, and Ctrl-C would not be what the test sends.
set -m
for sig in TERM INT; do
    ACCEL_BENCH_DEEPSPEED=0 "$accel" bench --suite aio --quick >/dev/null 2>&1 &
    bench=$!
    for _ in $(seq 200); do
        compgen -G "accel-bench-aio-*.tmp" >/dev/null && break
        sleep 0.05
    done
    compgen -G "accel-bench-aio-*.tmp" >/dev/null ||
        { echo "FAIL: the bench never made its file"; kill -KILL "$bench"; exit 1; }
    sleep 0.3
    kill "-$sig" "$bench"
    rc=0
    wait "$bench" || rc=$?
    if compgen -G "accel-bench-aio-*.tmp" >/dev/null; then
        echo "FAIL: after SIG$sig (exit $rc) the bench left $(ls accel-bench-aio-*.tmp)"
        exit 1
    fi
    echo "SIG$sig: the bench exited $rc and left no file"
done
