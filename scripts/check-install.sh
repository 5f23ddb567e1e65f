#!/usr/bin/env bash
# check-install.sh BUILD_DIR: install accel into a temporary prefix and build
# a small consumer against it twice: with find_package(accel) and with
# pkg-config. Fails if either cannot find or link the library.
set -euo pipefail
build=$1
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null

cat >"$work/consumer.c" <<'C'
#include <accel/accel.h>
#include <stdio.h>
int main(void)
{
    accel_t *acc;
    if (accel_open("cpu", &acc) != ACCEL_OK) {
        fprintf(stderr, "%s\n", accel_last_error());
        return 1;
    }
    printf("consumer: %s %s\n", accel_version(), accel_name(acc));
    return accel_close(acc) == ACCEL_OK ? 0 : 1;
}
C
cat >"$work/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(accel REQUIRED)
add_executable(consumer consumer.c)
target_link_libraries(consumer PRIVATE accel::accel)
C
cmake -S "$work" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
ninja -C "$work/build" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$work/build/consumer"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc "$work/consumer.c" -o "$work/consumer-pc" $(pkg-config --cflags --libs accel)
LD_LIBRARY_PATH="$prefix/lib" "$work/consumer-pc"

# The installed tool checks a backend with no test framework around it, and
# the schema of its report is installed beside it.
LD_LIBRARY_PATH="$prefix/lib" "$prefix/bin/accel" selftest --backend cpu --quick >/dev/null
test -f "$prefix/share/accel/report.schema.json"
echo "check-install: the installed accel selftest passes; report.schema.json installed"
