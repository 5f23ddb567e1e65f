#!/bin/sh
# mlu_declarations.sh: the ctest mlu.declarations. Compiles
# src/backends/mlu/declarations_check.c against a real cnrt.h and runs it:
# any mismatch in a name, parameter type, enum value or flag fails the
# compile or the run. The header is looked for in ACCEL_CNRT_INCLUDE_DIR,
# then $NEUWARE_HOME/include, then /usr/local/neuware/include. No public
# package this build can fetch ships cnrt.h (PyPI's Cambricon wheels carry
# only CNDev; Debian has no Neuware package), so where none is installed the
# test exits 77 (skipped) and says so; never a silent pass.
#   mlu_declarations.sh <C compiler> <source dir> <work dir>
set -eu
cc=$1 src=$2 work=$3

headers=
for dir in "${ACCEL_CNRT_INCLUDE_DIR:-}" "${NEUWARE_HOME:+$NEUWARE_HOME/include}" \
        /usr/local/neuware/include; do
    if [ -n "$dir" ] && [ -f "$dir/cnrt.h" ]; then
        headers=$dir
        break
    fi
done
if [ -z "$headers" ]; then
    echo "mlu.declarations: SKIPPED: no cnrt.h here (looked in ACCEL_CNRT_INCLUDE_DIR," \
         "\$NEUWARE_HOME/include and /usr/local/neuware/include); Cambricon ships it only in" \
         "Neuware, which no package registry this build reaches carries"
    exit 77
fi
echo "mlu.declarations: checking against $headers/cnrt.h"
mkdir -p "$work"
# -O2: the never-called assignment function is dropped, so nothing links CNRT.
"$cc" -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -Werror=incompatible-pointer-types \
    -I"$src/src" -I"$src/include" -isystem "$headers" \
    "$src/src/backends/mlu/declarations_check.c" -o "$work/mlu_declarations_check"
"$work/mlu_declarations_check"
