/* env.h: reading accel's environment variables in one place.
 * Pure parsing functions are thread-safe; the getters read the process
 * environment (getenv), so, as with any getenv, do not race them with setenv. */
#ifndef ACCEL_CORE_ENV_H
#define ACCEL_CORE_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "accel/accel_backend.h"
#include "accel/accel_backend_utils.h"

/* accel_env_get, the int/list/bool parsers and the warn-and-fall-back getters
 * are public (accel/accel_backend_utils.h); core-only parsers follow. */

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
