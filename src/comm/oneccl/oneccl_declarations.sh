#!/bin/sh
# oneccl_declarations.sh: the ctest oneccl.declarations. Fetches oneCCL's C
# API headers (scripts/fetch-vendor-headers.sh oneccl: the oneccl-devel wheel,
# cached once outside the build tree), compiles declarations_check.cpp
# against oneapi/ccl.h with the C++ compiler (the headers are C++ only) and
# runs it. Exit 77 (skipped, with the reason) only when the headers or a C++
# compiler cannot be had here; never a silent pass.
#   oneccl_declarations.sh <source dir> <work dir>
set -eu
src=$1 work=$2

cxx=
for c in "${CXX:-}" c++ g++ clang++; do
    [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && { cxx=$c; break; }
done
[ -n "$cxx" ] || { echo "oneccl.declarations: SKIPPED: no C++ compiler (oneCCL's headers are C++ only)"; exit 77; }
status=0
headers=$("$src/scripts/fetch-vendor-headers.sh" oneccl) || status=$?
if [ "$status" -ne 0 ]; then
    [ "$status" -eq 77 ] && echo "oneccl.declarations: SKIPPED: oneCCL headers unavailable (reason above)"
    exit "$status"
fi
echo "oneccl.declarations: checking against $headers ($(cat "$headers/WHEEL" 2>/dev/null || echo 'wheel unknown'))"
mkdir -p "$work"
"$cxx" -std=c++14 -O2 -Wall -Wextra -Werror -I"$src/src" -I"$src/include" -isystem "$headers" \
    "$src/src/comm/oneccl/declarations_check.cpp" -o "$work/oneccl_declarations_check"
"$work/oneccl_declarations_check"
