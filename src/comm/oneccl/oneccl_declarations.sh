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

. "$src/scripts/declarations-lib.sh"
declarations_cxx oneccl.declarations "oneCCL's headers are C++ only"
declarations_fetch oneccl.declarations oneccl "oneCCL headers" WHEEL
mkdir -p "$work"
"$cxx" -std=c++14 -O2 -Wall -Wextra -Werror -I"$src/src" -I"$src/include" -isystem "$headers" \
    "$src/src/comm/oneccl/declarations_check.cpp" -o "$work/oneccl_declarations_check"
"$work/oneccl_declarations_check"
