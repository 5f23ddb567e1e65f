#!/usr/bin/env bash
# gpu-prepare.sh: run here, where the network is, before scripts/gpu-check.sh
# runs on a lent GPU machine that has none. Puts into .gpu/ (ignored by git)
# what that machine may lack: cmocka's source (Debian's orig tarball,
# checked against its SHA-256), which gpu-check.sh builds there when no
# cmocka is installed, so that the conformance suite can run. Name `.gpu`
# in the device tool's `carry` (src/backends/cuda/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu
tarball=.gpu/cmocka_1.1.7.orig.tar.xz
sha=810570eb0b8d64804331f82b29ff47c790ce9cd6b163e98d47a4807047ecad82
if ! echo "$sha  $tarball" | sha256sum -c --status 2>/dev/null; then
    curl -sSfL -o "$tarball" http://deb.debian.org/debian/pool/main/c/cmocka/cmocka_1.1.7.orig.tar.xz
    echo "$sha  $tarball" | sha256sum -c --status || {
        echo "gpu-prepare: $tarball does not match its SHA-256" >&2
        rm -f "$tarball"
        exit 1
    }
fi
echo "gpu-prepare: $(du -sh .gpu | cut -f1) in .gpu/; carry [\".gpu\"] with scripts/gpu-check.sh"
