#!/bin/sh
# hpu_declarations.sh: the ctest hpu.declarations. Fetches SynapseAI's
# headers (scripts/fetch-vendor-headers.sh hpu, cached once), compiles
# src/backends/hpu/declarations_check.c against them and runs it: any
# mismatch in a name, parameter type, enum value or flag fails the compile.
# Then, when the habana-pyhlml wheel could be fetched too, the HLML names and
# values of src/backends/hpu/types.h and symbols.h are compared with its
# ctypes bindings. Exit 77 (skipped, with the reason) only when the Synapse
# headers cannot be had here; never a silent pass.
#   hpu_declarations.sh <C compiler> <source dir> <work dir>
set -eu
cc=$1 src=$2 work=$3

. "$src/scripts/declarations-lib.sh"
declarations_fetch hpu.declarations hpu "Synapse headers" SOURCE
mkdir -p "$work"
# -O2: the never-called assignment function is dropped, so nothing links Synapse.
"$cc" -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -Werror=incompatible-pointer-types \
    -I"$src/src" -I"$src/include" -isystem "$headers" \
    "$src/src/backends/hpu/declarations_check.c" -o "$work/hpu_declarations_check"
"$work/hpu_declarations_check"

generated=$headers/pyhlml/pyhlml_types_generated.py
main=$headers/pyhlml/main.py
if [ ! -f "$generated" ] || [ ! -f "$main" ]; then
    echo "hpu.declarations: HLML not checked: the habana-pyhlml wheel could not be fetched"
    exit 0
fi
bad=0
# Each ACCEL_HLML_* value of types.h against the wheel's HLML_RETURN/defines.
for pair in SUCCESS:HLML_SUCCESS ERROR_UNINITIALIZED:HLML_ERROR_UNINITIALIZED \
    ERROR_INVALID_ARGUMENT:HLML_ERROR_INVALID_ARGUMENT ERROR_NOT_SUPPORTED:HLML_ERROR_NOT_SUPPORTED \
    ERROR_ALREADY_INITIALIZED:HLML_ERROR_ALREADY_INITIALIZED ERROR_NOT_FOUND:HLML_ERROR_NOT_FOUND \
    ERROR_DRIVER_NOT_LOADED:HLML_ERROR_DRIVER_NOT_LOADED ERROR_UNKNOWN:HLML_ERROR_UNKNOWN \
    FIELD_MAX_SIZE:HL_FIELD_MAX_SIZE; do
    ours=$(sed -n "s/^#define ACCEL_HLML_${pair%%:*}  *\([0-9][0-9]*\).*/\1/p" "$src/src/backends/hpu/types.h")
    real=$(sed -n "s/^[[:space:]]*${pair#*:} = \([0-9][0-9]*\)[[:space:]]*$/\1/p" "$generated" | head -n 1)
    if [ -z "$ours" ] || [ "$ours" != "$real" ]; then
        echo "hpu.declarations: ACCEL_HLML_${pair%%:*} is '$ours' in types.h but ${pair#*:} is '$real' in the wheel" >&2
        bad=1
    fi
done
# Each HLML function symbols.h names is one the bindings look up.
for name in $(sed -n 's/^ACCEL_HLML_SYMBOL(true, [a-z_]*, \([a-z_]*\),.*/\1/p' "$src/src/backends/hpu/symbols.h"); do
    grep -q "get_func_ptr(\"$name\")" "$main" || {
        echo "hpu.declarations: $name is not a function the habana-pyhlml bindings call" >&2
        bad=1
    }
done
[ "$bad" -eq 0 ] && echo "hpu declarations match the habana-pyhlml bindings ($(ls "$headers"/wheel 2>/dev/null | tail -n 1))"
exit "$bad"
