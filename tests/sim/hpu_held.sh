#!/bin/sh
# hpu_held.sh: the ctest hpu.sim_held_elsewhere. Another process (flock(1))
# holds the simulated Gaudi of module 0 while `accel demo` runs: the demo
# must fail and say that the Gaudi is held by another process.
#   hpu_held.sh <accel> <lock dir>
set -u
accel=$1 dir=$2
command -v flock >/dev/null 2>&1 || { echo "hpu_held: SKIPPED: flock(1) is not installed"; exit 77; }
out=$(flock "$dir/module0.lock" "$accel" demo 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -eq 0 ]; then
    echo "hpu_held: accel demo passed although module 0 was held elsewhere" >&2
    exit 1
fi
printf '%s\n' "$out" | grep -q -F "probably held by another process" || {
    echo "hpu_held: the failure does not say the Gaudi is held by another process" >&2
    exit 1
}
# And once the other process is gone, the same demo works.
exec "$accel" demo
