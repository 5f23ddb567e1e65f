#!/usr/bin/env bash
# compare_startup.sh: start-up of accel next to what users would otherwise
# run: `accel __bench-startup` (exec to a chosen accelerator), `accel report`,
# and, when they are installed (detected, never installed here), DeepSpeed's
# `ds_report` and `python3 -c "import torch"`. Prints the median wall time of
# RUNS runs of each and the ratio other / accel (> 1: accel starts faster).
# usage: bench/compare_startup.sh [PATH_TO_ACCEL] [RUNS]
set -euo pipefail

accel=${1:-$(command -v accel || true)}
runs=${2:-5}
if [[ -z "$accel" || ! -x "$accel" ]]; then
    echo "usage: $0 PATH_TO_ACCEL [RUNS]   (accel not found on PATH)" >&2
    exit 2
fi

# median_ms CMD...: median wall milliseconds of $runs runs, output discarded.
median_ms() {
    local times=() start end
    for ((i = 0; i < runs; i++)); do
        start=$(date +%s%N)
        "$@" >/dev/null 2>&1 || { echo "fail"; return; }
        end=$(date +%s%N)
        times+=($(((end - start) / 1000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]/1000}'
}

printf '%-34s %12s %s\n' "command" "median ms" "ratio vs accel_get (>1 = accel faster)"
floor=$(median_ms /bin/true)
base=$(median_ms "$accel" __bench-startup)
report=$(median_ms "$accel" report)
printf '%-34s %12s %s\n' "/bin/true (floor)" "$floor" "-"
printf '%-34s %12s %s\n' "accel __bench-startup" "$base" "1.00"
row() { # label, ms
    if [[ "$2" == fail ]]; then
        printf '%-34s %12s %s\n' "$1" "failed" "-"
    else
        printf '%-34s %12s %s\n' "$1" "$2" "$(awk -v o="$2" -v b="$base" 'BEGIN {printf "%.1f", o / b}')"
    fi
}
row "accel report" "$report"
if command -v ds_report >/dev/null 2>&1; then
    row "ds_report" "$(median_ms ds_report)"
else
    printf '%-34s %12s %s\n' "ds_report" "-" "not installed (pip install deepspeed)"
fi
if python3 -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("torch") is None)' \
    2>/dev/null; then
    row 'python3 -c "import torch"' "$(median_ms python3 -c 'import torch')"
else
    printf '%-34s %12s %s\n' 'python3 -c "import torch"' "-" "torch not installed"
fi
