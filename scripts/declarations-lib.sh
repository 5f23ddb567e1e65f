# shellcheck shell=sh disable=SC2034,SC2154
# (sets cxx and headers for, and reads src from, the script that sources it)
# declarations-lib.sh: what the <name>_declarations.sh ctest scripts share,
# sourced by them (POSIX sh, under `set -eu`): finding a C++ compiler and
# fetching a vendor's headers with scripts/fetch-vendor-headers.sh. Either
# exits the calling script with 77 (ctest's skip) and a line saying why when
# what it looks for cannot be had here, so a check is never a silent pass.

# declarations_cxx TEST WHY: sets $cxx to $CXX, c++, g++ or clang++, the
# first found; else prints "TEST: SKIPPED: no C++ compiler (WHY)", exits 77.
declarations_cxx() {
    cxx=
    for c in "${CXX:-}" c++ g++ clang++; do
        [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && { cxx=$c; return 0; }
    done
    echo "$1: SKIPPED: no C++ compiler ($2)"
    exit 77
}

# declarations_fetch TEST KIND WHAT STAMP: sets $headers to the cached
# headers of KIND (fetch-vendor-headers.sh's argument), then prints which
# ones (STAMP: the file in that folder naming the wheel or source). When
# they cannot be fetched: "TEST: SKIPPED: WHAT unavailable" after the
# fetcher's reason, and the fetcher's status (77) as the exit.
declarations_fetch() {
    fetched=0
    headers=$("$src/scripts/fetch-vendor-headers.sh" "$2") || fetched=$?
    if [ "$fetched" -ne 0 ]; then
        [ "$fetched" -eq 77 ] && echo "$1: SKIPPED: $3 unavailable (reason above)"
        exit "$fetched"
    fi
    echo "$1: checking against $headers ($(cat "$headers/$4" 2>/dev/null || echo "$4 unknown"))"
}
