/* rule_library.h: how a vendor-rule probe loads the vendor library it calls
 * directly, the same library its backend loads (include/accel/
 * accel_backend_utils.h, accel_vendor_library_t). Each probe file keeps one
 * static accel_vendor_library_t, opened with RULE_LIBRARY; loading
 * is idempotent and the library stays loaded for the probe's process. These
 * run on the probe's own thread and end the probe (check.h) when the
 * library cannot be loaded. */
#ifndef ACCEL_SELFTEST_RULE_LIBRARY_H
#define ACCEL_SELFTEST_RULE_LIBRARY_H

#include <accel/accel_backend_utils.h>

/* The fields every probe's accel_vendor_library_t initializer has: the
 * backend's name, the file names to try (NULL-terminated), the symbol
 * table (an array), and the words of the sentences when it fails to load
 * (accel_backend_utils.h). More fields may follow it. */
#define RULE_LIBRARY(lib_name, names, table, missing, where)                                       \
    .name = (lib_name), .candidates = (names), .symbols = (table),                                 \
    .symbol_count = sizeof(table) / sizeof((table)[0]), .not_found = (missing),                    \
    .symbols_in = (where)

/* Load `lib`, or skip the probe: "<what> cannot be called directly: <why>"
 * (a machine without the runtime's library is not a broken rule). */
void rule_library_load(accel_vendor_library_t *lib, const char *what);

/* Synchronize device 0 through accel first (the backend initialised the
 * runtime, so the probe's calls join it), then rule_library_load. */
void rule_library_enter(accel_vendor_library_t *lib, const char *what);

/* Load `lib`, or fail the probe: "cannot load <what> to probe it: <why>"
 * (for the probes of a library the backend already loaded). */
void rule_library_require(accel_vendor_library_t *lib, const char *what);

#endif /* ACCEL_SELFTEST_RULE_LIBRARY_H */
