#!/bin/sh
# habana_hccl_declarations.sh: the ctest habana_hccl.declarations. Fetches
# Habana's HCCL headers (scripts/fetch-vendor-headers.sh habana-hccl, cached
# once), compiles
# declarations_check.cpp against hccl.h with the C++ compiler (the headers
# are C++) and runs it. Exit 77 (skipped, with the reason) only when the
# headers or a C++ compiler cannot be had here; never a silent pass.
#   habana_hccl_declarations.sh <source dir> <work dir>
set -eu
src=$1 work=$2

cxx=
for c in "${CXX:-}" c++ g++ clang++; do
    [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && { cxx=$c; break; }
done
[ -n "$cxx" ] || { echo "habana_hccl.declarations: SKIPPED: no C++ compiler (the headers are C++)"; exit 77; }
status=0
headers=$("$src/scripts/fetch-vendor-headers.sh" habana-hccl) || status=$?
if [ "$status" -ne 0 ]; then
    [ "$status" -eq 77 ] && echo "habana_hccl.declarations: SKIPPED: HCCL headers unavailable (reason above)"
    exit "$status"
fi
echo "habana_hccl.declarations: checking against $headers ($(cat "$headers/SOURCE" 2>/dev/null || echo 'source unknown'))"
mkdir -p "$work/synapse"
# hccl_types.h includes <synapse_api_types.h> for synStreamHandle alone (a
# callback type the engine does not use); Synapse's own header pulls C++-only
# companions, so the check gets that one opaque handle type instead.
printf '%s\n' '#pragma once' 'typedef struct InternalStreamHandle *synStreamHandle;' \
    >"$work/synapse/synapse_api_types.h"
"$cxx" -std=c++14 -O2 -Wall -Wextra -Werror -I"$src/src" -I"$src/include" \
    -isystem "$headers" -isystem "$work/synapse" \
    "$src/src/comm/habana_hccl/declarations_check.cpp" -o "$work/habana_hccl_declarations_check"
"$work/habana_hccl_declarations_check"
