/* env.h: reading accel's environment variables in one place.
 * Pure parsing functions are thread-safe; the getters read the process
 * environment (getenv), so, as with any getenv, do not race them with setenv. */
#ifndef ACCEL_CORE_ENV_H
#define ACCEL_CORE_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "accel/accel_backend.h"

/* getenv that treats "" as unset. */
const char *accel_env_get(const char *name);

/* Parse a decimal integer that fills the whole string; false otherwise. */
bool accel_env_parse_int(const char *text, long *out);

/* Parse "0,2,5" (no spaces around numbers allowed besides none; empty items
 * refused) into up to `cap` non-negative ints; false on any bad item. */
bool accel_env_parse_int_list(const char *text, int *out, size_t cap, size_t *out_count);

/* ACCEL_LOG: "error" | "warn" | "info" | "debug" (case-insensitive); false
 * for anything else. */
bool accel_env_parse_log_level(const char *text, accel_log_level_t *out);

/* ACCEL_ALLOC_CONF: comma-separated key:value; today only "caching:0|1".
 * Unknown keys are reported through `bad_key` (false returned). */
typedef struct accel_alloc_conf {
    bool caching;
} accel_alloc_conf_t;
bool accel_env_parse_alloc_conf(const char *text, accel_alloc_conf_t *out, char *bad_key,
                                size_t bad_key_cap);

#endif
