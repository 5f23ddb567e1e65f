#!/bin/sh
# hccl_declarations.sh: the ctest hccl.declarations. Fetches CANN's headers
# (scripts/fetch-vendor-headers.sh npu: the torch-npu wheel, cached once and
# shared with npu.declarations), compiles declarations_check.cpp against
# hccl.h with the C++ compiler (HCCL's headers are C++ only) and runs it.
# Exit 77 (skipped, with the reason) only when the headers or a C++
# compiler cannot be had here; never a silent pass.
#   hccl_declarations.sh <source dir> <work dir>
set -eu
src=$1 work=$2

. "$src/scripts/declarations-lib.sh"
declarations_cxx hccl.declarations "HCCL's headers are C++ only"
declarations_fetch hccl.declarations npu "CANN headers" WHEEL
[ -f "$headers/hccl/inc/hccl/hccl.h" ] ||
    { echo "hccl.declarations: SKIPPED: $headers has no hccl/inc/hccl/hccl.h"; exit 77; }
mkdir -p "$work"
# hccl.h includes "third_party/hccl/inc/hccl/hccl_types.h" (under root/) and <acl/acl.h>.
"$cxx" -std=c++14 -O2 -Wall -Wextra -Werror -I"$src/src" -I"$src/include" \
    -isystem "$headers/hccl/inc" -isystem "$headers/root" -isystem "$headers/acl/inc" \
    "$src/src/comm/hccl/declarations_check.cpp" -o "$work/hccl_declarations_check"
"$work/hccl_declarations_check"
