#!/bin/sh
# npu_cli.sh: the accel CLI with the npu backend on the simulated
# libascendcl (ctest sets ACCEL_NPU_LIBRARY and the sim's variables).
#   npu_cli.sh demo <accel>            `accel demo` must pass
#   npu_cli.sh report <accel> TEXT...  `accel report` must pass and show
#                                      every TEXT (grep -F)
#   npu_cli.sh cascade <accel> TEXT... `accel report` (whatever its exit
#                                      status) must show every TEXT
set -u
what=$1 accel=$2
shift 2
case "$what" in
demo) exec "$accel" demo ;;
report | cascade) out=$("$accel" report 2>&1); status=$? ;;
*) echo "npu_cli: unknown mode $what" >&2; exit 2 ;;
esac
printf '%s\n' "$out"
if [ "$what" = report ] && [ "$status" -ne 0 ]; then
    echo "npu_cli: accel report exited with $status" >&2
    exit 1
fi
fail=0
for text in "$@"; do
    if ! printf '%s\n' "$out" | grep -q -F -- "$text"; then
        echo "npu_cli: the report lacks: $text" >&2
        fail=1
    fi
done
exit $fail
