#!/bin/sh
# oneccl_real_library.sh: the ctest oneccl.real_library. Runs
# `test_ccl_engines refuses oneccl` on oneCCL's real libccl.so.2 (the C API
# library) from PyPI's oneccl wheel: the engine must resolve every entry
# point it declares from it, call none of them (ctest fails the test on
# oneCCL's own error text, which its first call prints when its plugins and
# SYCL are missing, as here) and refuse communicators saying why.
# The wheel (92 MB) is downloaded once with pip; only libccl.so.2 (165 KB) is
# kept, in ${XDG_CACHE_HOME:-$HOME/.cache}/accel/lib/oneccl-<version>.
# Exit 77 (skipped, with the reason) when it cannot be had here.
#   oneccl_real_library.sh <test_ccl_engines>
set -eu
test_program=$1
version=2022.2.0
cache=${XDG_CACHE_HOME:-$HOME/.cache}/accel
lib=$cache/lib/oneccl-$version
skip() { echo "oneccl.real_library: SKIPPED: $*"; exit 77; }

[ "$(uname -m)" = x86_64 ] || skip "oneCCL's wheel is built for x86_64 only, not $(uname -m)"
if [ ! -f "$lib/libccl.so.2" ]; then
    pip=$(command -v pip || command -v pip3 || true)
    [ -n "$pip" ] || skip "neither pip nor pip3 is installed, so the oneccl wheel cannot be fetched"
    command -v unzip >/dev/null 2>&1 || skip "unzip is not installed"
    mkdir -p "$cache/lib" 2>/dev/null || skip "cannot create the cache folder $cache/lib"
    tmp=$(mktemp -d "$cache/lib/.oneccl.XXXXXX")
    if ! timeout 600 "$pip" download --no-deps --disable-pip-version-check --only-binary=:all: \
            --platform manylinux_2_28_x86_64 -d "$tmp" "oneccl==$version" >"$tmp/pip.log" 2>&1; then
        cp "$tmp/pip.log" "$cache/lib/pip-download-oneccl.log" 2>/dev/null || true
        rm -rf "$tmp"
        skip "pip download --no-deps oneccl==$version failed (no network?; see $cache/lib/pip-download-oneccl.log)"
    fi
    wheel=$(ls "$tmp"/oneccl-"$version"-*.whl 2>/dev/null | tail -n 1 || true)
    if [ -z "$wheel" ] || ! unzip -q -o "$wheel" "oneccl-$version.data/data/lib/libccl.so.2" -d "$tmp"; then
        rm -rf "$tmp"
        skip "the oneccl $version wheel holds no lib/libccl.so.2"
    fi
    rm -rf "$lib"
    mkdir -p "$lib"
    mv "$tmp/oneccl-$version.data/data/lib/libccl.so.2" "$lib/libccl.so.2"
    basename "$wheel" >"$lib/WHEEL"
    rm -rf "$tmp"
fi
echo "oneccl.real_library: $lib/libccl.so.2 ($(cat "$lib/WHEEL" 2>/dev/null || echo 'wheel unknown'))"
ACCEL_ONECCL_LIBRARY=$lib/libccl.so.2 exec "$test_program" refuses oneccl
