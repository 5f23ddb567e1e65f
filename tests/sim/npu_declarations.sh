#!/bin/sh
# npu_declarations.sh: the ctest npu.declarations. Fetches CANN's headers
# (scripts/fetch-vendor-headers.sh npu: the torch-npu wheel, cached once),
# compiles src/backends/npu/declarations_check.c against them and runs it.
# Any mismatch in a name, parameter type, enum value or flag fails the
# compile or the run. Exit 77 (skipped, with the reason) only when the
# headers cannot be fetched here; never a silent pass.
#   npu_declarations.sh <C compiler> <source dir> <work dir>
set -eu
cc=$1 src=$2 work=$3

. "$src/scripts/declarations-lib.sh"
declarations_fetch npu.declarations npu "CANN headers" WHEEL
mkdir -p "$work"
# -O2: the never-called assignment function is dropped, so nothing links ACL.
"$cc" -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -Werror=incompatible-pointer-types \
    -I"$src/src" -I"$src/include" -isystem "$headers/acl/inc" \
    "$src/src/backends/npu/declarations_check.c" -o "$work/npu_declarations_check"
"$work/npu_declarations_check"
