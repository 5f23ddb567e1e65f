#!/usr/bin/env bash
# copy_skeleton.sh: docs/backend-guide.md's walk-through, done for real. In a
# scratch copy of the source tree: copy src/backends/skeleton to a new
# backend "example", rename it inside its folder, add ONE line to
# src/backends/CMakeLists.txt, then build and run the conformance suite and
# `accel report` on it. Fails if anything outside the new folder and that
# line would have to change.
# Usage: copy_skeleton.sh SOURCE_DIR SCRATCH_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch/tree"
tree=$scratch/tree

# The tracked files when this is a git checkout (a clean clone in CI), else
# everything but build folders.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$src" && git ls-files -z --cached --others --exclude-standard) |
        (cd "$src" && xargs -0 cp --parents -t "$tree")
else
    (cd "$src" && tar --exclude='./build*' -cf - .) | (cd "$tree" && tar -xf -)
fi

# Step 1 of the guide: copy the folder and rename inside it.
cp -r "$tree/src/backends/skeleton" "$tree/src/backends/example"
cd "$tree/src/backends/example"
for f in *skeleton*; do mv "$f" "${f//skeleton/example}"; done
sed -i 's/skeleton/example/g; s/SKELETON/EXAMPLE/g; s/Skeleton/Example/g' ./*
# Step 2: one line in src/backends/CMakeLists.txt.
echo 'accel_add_backend(example DEFAULT ON CONFORMANCE REQUIRED)' >> "$tree/src/backends/CMakeLists.txt"

# Step 3: build and test. Only what the suite needs, to keep CI short.
cmake -S "$tree" -B "$scratch/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DACCEL_BACKEND_SKELETON=OFF >/dev/null
ninja -C "$scratch/build" -j "$(nproc)" conformance conformance_threads accel_cli >/dev/null
ctest --test-dir "$scratch/build" --output-on-failure --no-tests=error \
      -R '^conformance(_threads)?\.example$'
report=$(ACCEL_PLUGIN_PATH= ACCEL_ACCELERATOR=example "$scratch/build/tools/accel/accel" report)
# A here-string, not `echo | grep -q`: grep -q stops reading at the first
# match, and under pipefail the writer's SIGPIPE would fail the check.
grep -q "accelerator .* example (override" <<<"$report" ||
    { echo "copy_skeleton: accel report did not choose the example backend:"; echo "$report"; exit 1; }
if grep -rq "example" "$tree/src/core" "$tree/include"; then
    echo "copy_skeleton: core or the public headers mention the new backend"; exit 1
fi
echo "copy_skeleton: the copied backend builds, passes the conformance suite and is chosen by name"
