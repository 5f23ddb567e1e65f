#!/bin/sh
# xpu_cli.sh: the accel CLI with the xpu backend on the real Level Zero
# loader (ctest sets ZE_ENABLE_ALT_DRIVERS to the simulated driver, or not).
#   xpu_cli.sh demo <accel>                 `accel demo` must pass
#   xpu_cli.sh report <accel> TEXT...       `accel report` must pass and show
#                                           every TEXT (grep -F)
#   xpu_cli.sh cascade <accel> TEXT...      `accel report` (whatever its exit
#                                           status) must show every TEXT
#   xpu_cli.sh fails <accel> TEXT...        `accel report` must fail and show
#                                           every TEXT
#   xpu_cli.sh auto <accel> TEXT...         as report, with ACCEL_ACCELERATOR and
#                                           DS_ACCELERATOR unset (auto-detect)
#   xpu_cli.sh autocascade <accel> TEXT...  as cascade, auto-detecting
#   xpu_cli.sh missing <accel> <loader> TEXT...
#                                           as cascade, with <loader> hidden
#                                           (/dev/null bound over it in a
#                                           private mount namespace); 77 when
#                                           namespaces are not allowed here
set -u
what=$1 accel=$2
shift 2
case "$what" in
demo) exec "$accel" demo ;;
report | cascade | fails) out=$("$accel" report 2>&1); status=$? ;;
auto | autocascade)
    out=$(env -u ACCEL_ACCELERATOR -u DS_ACCELERATOR "$accel" report 2>&1)
    status=$?
    ;;
missing)
    loader=$(readlink -f "$1")
    shift
    if ! unshare -rm true 2>/dev/null; then
        echo "xpu_cli: SKIPPED: no private mount namespace here (unshare -rm failed)"
        exit 77
    fi
    out=$(unshare -rm sh -c 'mount --bind /dev/null "$1" && exec "$2" report' sh "$loader" \
        "$accel" 2>&1)
    status=$?
    ;;
*) echo "xpu_cli: unknown mode $what" >&2; exit 2 ;;
esac
printf '%s\n' "$out"
if { [ "$what" = report ] || [ "$what" = auto ]; } && [ "$status" -ne 0 ]; then
    echo "xpu_cli: accel report exited with $status" >&2
    exit 1
fi
if [ "$what" = fails ] && [ "$status" -eq 0 ]; then
    echo "xpu_cli: accel report succeeded; it must fail" >&2
    exit 1
fi
fail=0
for text in "$@"; do
    if ! printf '%s\n' "$out" | grep -q -F -- "$text"; then
        echo "xpu_cli: the report lacks: $text" >&2
        fail=1
    fi
done
exit $fail
