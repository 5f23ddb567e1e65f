#!/usr/bin/env bash
# check-format.sh: every C file git tracks (and new ones it does not ignore)
# is as clang-format leaves it, by the repo's .clang-format. Lists the files
# that are not and exits 1; `scripts/check-format.sh --fix` rewrites them.
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$formatter" ]; then
    echo "check-format: clang-format is not installed (scripts/deps.sh installs it)" >&2
    exit 1
fi
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.c' '*.h')
if [ "${1:-}" = "--fix" ]; then
    "$formatter" -i "${files[@]}"
    exit 0
fi
bad=()
for f in "${files[@]}"; do
    "$formatter" "$f" | cmp -s - "$f" || bad+=("$f")
done
if [ ${#bad[@]} -ne 0 ]; then
    echo "check-format: ${#bad[@]} file(s) differ from clang-format (run scripts/check-format.sh --fix):"
    printf '  %s\n' "${bad[@]}"
    exit 1
fi
echo "check-format: ${#files[@]} files as clang-format leaves them"
