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

. "$src/scripts/declarations-lib.sh"
declarations_cxx habana_hccl.declarations "the headers are C++"
declarations_fetch habana_hccl.declarations habana-hccl "HCCL headers" SOURCE
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
