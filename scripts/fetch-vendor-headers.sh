#!/bin/sh
# fetch-vendor-headers.sh: fetch a vendor's real C headers once, for the
# declaration checks (never used to build the library, never committed).
#   scripts/fetch-vendor-headers.sh npu   -> prints the include folder
#   scripts/fetch-vendor-headers.sh hpu   -> prints the include folder
#   scripts/fetch-vendor-headers.sh habana-hccl -> prints the include folder
#   scripts/fetch-vendor-headers.sh oneccl -> prints the include folder
# npu: CANN's ACL and HCCL headers as the torch-npu wheel on PyPI ships them
# (torch_npu/include/third_party/{acl,hccl}/inc). The wheel is downloaded once
# with `pip download --no-deps torch-npu` into the cache
# ${XDG_CACHE_HOME:-$HOME/.cache}/accel/wheels and its headers unpacked beside
# it; later runs reuse both and need no network.
# hpu: SynapseAI's synapse_api.h, synapse_api_types.h and
# synapse_common_types.h from HabanaAI/Intel_Gaudi3_Software (the production
# values; GitHub over https with curl) into ${cache}/headers/synapse, and the
# habana-pyhlml wheel (HLML's ctypes bindings, `pip download --no-deps`)
# unpacked into ${cache}/headers/synapse/pyhlml when pip can fetch it.
# oneccl: oneCCL's C API headers (oneapi/ccl.h, oneapi/ccl/v2/types.h, ...)
# from the oneccl-devel wheel of the release the engine was checked against
# (`pip download --no-deps oneccl-devel==2022.2.0`, 32 MB, kept in
# ${cache}/wheels), its include/ folder unpacked into ${cache}/headers/oneccl.
# Exit status: 0 with the folder on stdout; 77 (ctest's skip) with the reason
# on stderr when the headers cannot be had here.
set -eu

vendor=${1:-}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/accel
skip() { echo "fetch-vendor-headers: $*" >&2; exit 77; }

case "$vendor" in
npu) ;;
hpu)
    headers=$cache/headers/synapse
    base=https://raw.githubusercontent.com/HabanaAI/Intel_Gaudi3_Software/main/synapse/include
    mkdir -p "$headers" 2>/dev/null || skip "cannot create the cache folder $headers"
    for f in synapse_api.h synapse_api_types.h synapse_common_types.h; do
        [ -f "$headers/$f" ] && continue
        command -v curl >/dev/null 2>&1 || skip "curl is not installed, so $f cannot be fetched"
        timeout 120 curl -fsSL "$base/$f" -o "$headers/$f.tmp" 2>"$headers/curl.log" ||
            { rm -f "$headers/$f.tmp"; skip "fetching $base/$f failed (no network?; see $headers/curl.log)"; }
        mv "$headers/$f.tmp" "$headers/$f"
        echo "HabanaAI/Intel_Gaudi3_Software@main (curl)" >"$headers/SOURCE"
    done
    if [ ! -f "$headers/pyhlml/pyhlml_types_generated.py" ]; then
        pip=$(command -v pip || command -v pip3 || true)
        if [ -n "$pip" ] && command -v unzip >/dev/null 2>&1 &&
            timeout 300 "$pip" download --no-deps --disable-pip-version-check -d "$headers/wheel" \
                habana-pyhlml >"$headers/pip-download.log" 2>&1; then
            wheel=$(ls "$headers"/wheel/habana_pyhlml-*.whl 2>/dev/null | sort | tail -n 1 || true)
            [ -n "$wheel" ] && unzip -q -o "$wheel" 'pyhlml/*' -d "$headers" || true
        fi
    fi
    echo "$headers"
    exit 0
    ;;
habana-hccl)
    # Habana's HCCL headers (HabanaAI/HCL hcl/include: hccl.h, hccl_types.h).
    # They include Synapse's synapse_api_types.h for one callback type; the
    # declarations check supplies that type itself.
    headers=$cache/headers/habana-hcl
    base=https://raw.githubusercontent.com/HabanaAI/HCL/main/hcl/include
    mkdir -p "$headers" 2>/dev/null || skip "cannot create the cache folder $headers"
    for f in hccl.h hccl_types.h; do
        [ -f "$headers/$f" ] && continue
        command -v curl >/dev/null 2>&1 || skip "curl is not installed, so $f cannot be fetched"
        timeout 120 curl -fsSL "$base/$f" -o "$headers/$f.tmp" 2>"$headers/curl.log" ||
            { rm -f "$headers/$f.tmp"; skip "fetching $base/$f failed (no network?; see $headers/curl.log)"; }
        mv "$headers/$f.tmp" "$headers/$f"
        echo "HabanaAI/HCL@main (curl)" >"$headers/SOURCE"
    done
    echo "$headers"
    exit 0
    ;;
oneccl)
    version=2022.2.0
    wheels=$cache/wheels
    headers=$cache/headers/oneccl
    if [ ! -f "$headers/oneapi/ccl.h" ]; then
        mkdir -p "$wheels" "$cache/headers" 2>/dev/null || skip "cannot create the cache folder $cache"
        wheel=$(ls "$wheels"/oneccl_devel-"$version"-*.whl 2>/dev/null | tail -n 1 || true)
        if [ -z "$wheel" ]; then
            pip=$(command -v pip || command -v pip3 || true)
            [ -n "$pip" ] || skip "neither pip nor pip3 is installed, so the oneccl-devel wheel cannot be fetched"
            log=$wheels/pip-download-oneccl.log
            # The wheel is pure data (headers, static libraries): any platform's pip may fetch it.
            timeout 600 "$pip" download --no-deps --disable-pip-version-check --only-binary=:all: \
                --platform manylinux_2_28_x86_64 -d "$wheels" "oneccl-devel==$version" >"$log" 2>&1 ||
                skip "pip download --no-deps oneccl-devel==$version failed (no network?; see $log)"
            wheel=$(ls "$wheels"/oneccl_devel-"$version"-*.whl 2>/dev/null | tail -n 1 || true)
            [ -n "$wheel" ] || skip "pip download left no oneccl_devel-$version wheel in $wheels"
        fi
        command -v unzip >/dev/null 2>&1 || skip "unzip is not installed; cannot unpack $wheel"
        tmp=$(mktemp -d "$cache/headers/.unpack.XXXXXX")
        if ! unzip -q -o "$wheel" "oneccl_devel-$version.data/data/include/*" -d "$tmp"; then
            rm -rf "$tmp"
            skip "$wheel holds no headers under oneccl_devel-$version.data/data/include"
        fi
        rm -rf "$headers"
        mv "$tmp/oneccl_devel-$version.data/data/include" "$headers"
        rm -rf "$tmp"
        basename "$wheel" >"$headers/WHEEL"
    fi
    [ -f "$headers/oneapi/ccl/v2/types.h" ] || skip "oneapi/ccl/v2/types.h missing from $headers"
    echo "$headers"
    exit 0
    ;;
*) echo "usage: $0 npu|hpu|habana-hccl|oneccl" >&2; exit 2 ;;
esac

wheels=$cache/wheels
headers=$cache/headers/torch-npu
mkdir -p "$wheels" "$cache/headers" 2>/dev/null || skip "cannot create the cache folder $cache"

if [ ! -f "$headers/acl/inc/acl/acl_rt.h" ]; then
    wheel=$(ls "$wheels"/torch_npu-*.whl 2>/dev/null | sort | tail -n 1 || true)
    if [ -z "$wheel" ]; then
        if command -v pip >/dev/null 2>&1; then pip=pip
        elif command -v pip3 >/dev/null 2>&1; then pip=pip3
        else skip "neither pip nor pip3 is installed, so the torch-npu wheel cannot be fetched"
        fi
        log=$wheels/pip-download.log
        if ! timeout 600 "$pip" download --no-deps --disable-pip-version-check -d "$wheels" \
                torch-npu >"$log" 2>&1; then
            skip "pip download --no-deps torch-npu failed (no network or no wheel for this python; see $log)"
        fi
        wheel=$(ls "$wheels"/torch_npu-*.whl 2>/dev/null | sort | tail -n 1 || true)
        [ -n "$wheel" ] || skip "pip download left no torch_npu wheel in $wheels"
    fi
    command -v unzip >/dev/null 2>&1 || skip "unzip is not installed; cannot unpack $wheel"
    tmp=$(mktemp -d "$cache/headers/.unpack.XXXXXX")
    if ! unzip -q -o "$wheel" 'torch_npu/include/third_party/acl/inc/*' \
            'torch_npu/include/third_party/hccl/inc/*' -d "$tmp"; then
        rm -rf "$tmp"
        skip "$wheel holds no CANN headers under torch_npu/include/third_party"
    fi
    # hccl.h includes its neighbour as "third_party/hccl/inc/hccl/hccl_types.h",
    # so the folder that holds third_party/ is kept as well.
    rm -rf "$headers"
    mv "$tmp/torch_npu/include/third_party" "$headers.tmp.$$"
    mkdir -p "$headers"
    mv "$headers.tmp.$$"/acl "$headers.tmp.$$"/hccl "$headers"/
    mkdir -p "$headers/root/third_party"
    ln -s ../../hccl "$headers/root/third_party/hccl"
    ln -s ../../acl "$headers/root/third_party/acl"
    rm -rf "$tmp" "$headers.tmp.$$"
    basename "$wheel" >"$headers/WHEEL"
fi
[ -f "$headers/acl/inc/acl/acl_rt.h" ] || skip "acl_rt.h missing from $headers"
echo "$headers"
