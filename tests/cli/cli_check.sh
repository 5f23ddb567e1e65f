#!/usr/bin/env bash
# cli_check.sh: run one command of the `accel` tool and check its exit code and
# what it printed, for ctest. Usage:
#   cli_check.sh [--rc N | --rc-nonzero] [--stdout ERE]... [--stderr ERE]...
#                [--no-stdout ERE]... -- COMMAND [ARGS...]
set -u

expected_rc=0
nonzero=0
stdout_patterns=()
stderr_patterns=()
absent_patterns=()
while [ $# -gt 0 ]; do
    case "$1" in
        --rc) expected_rc="$2"; shift 2 ;;
        --rc-nonzero) nonzero=1; shift ;;
        --stdout) stdout_patterns+=("$2"); shift 2 ;;
        --stderr) stderr_patterns+=("$2"); shift 2 ;;
        --no-stdout) absent_patterns+=("$2"); shift 2 ;;
        --) shift; break ;;
        *) echo "cli_check.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
if [ $# -eq 0 ]; then
    echo "cli_check.sh: no command given" >&2
    exit 2
fi

workdir=$(mktemp -d) || exit 2
trap 'rm -rf "$workdir"' EXIT
"$@" >"$workdir/stdout" 2>"$workdir/stderr"
rc=$?

failed=0
if [ "$nonzero" -eq 1 ]; then
    if [ "$rc" -eq 0 ]; then
        echo "FAIL: expected a non-zero exit code, got 0"
        failed=1
    fi
elif [ "$rc" -ne "$expected_rc" ]; then
    echo "FAIL: expected exit code $expected_rc, got $rc"
    failed=1
fi
for pattern in "${stdout_patterns[@]+"${stdout_patterns[@]}"}"; do
    if ! grep -Eq -- "$pattern" "$workdir/stdout"; then
        echo "FAIL: stdout does not match: $pattern"
        failed=1
    fi
done
for pattern in "${stderr_patterns[@]+"${stderr_patterns[@]}"}"; do
    if ! grep -Eq -- "$pattern" "$workdir/stderr"; then
        echo "FAIL: stderr does not match: $pattern"
        failed=1
    fi
done
for pattern in "${absent_patterns[@]+"${absent_patterns[@]}"}"; do
    if grep -Eq -- "$pattern" "$workdir/stdout"; then
        echo "FAIL: stdout unexpectedly matches: $pattern"
        failed=1
    fi
done

echo "command: $* (exit $rc)"
echo "--- stdout"
cat "$workdir/stdout"
echo "--- stderr"
cat "$workdir/stderr"
exit "$failed"
