/* env.c: the parsers behind accel's environment variables (see env.h,
 * accel/accel_backend_utils.h and docs/env-vars.md). Parsers are pure: they
 * write their outputs only when the whole text is valid, touch no global
 * state and are safe from any thread. accel_env_get and the getters are
 * getenv and share getenv's rule: do not race them with setenv. */
#include "env.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *accel_env_get(const char *name)
{
    const char *value;
    if (name == NULL)
        return NULL;
    value = getenv(name);
    if (value == NULL || value[0] == '\0')
        return NULL;
    return value;
}

bool accel_env_parse_int(const char *text, long *out)
{
    char *end = NULL;
    long value;
    /* strtol would skip leading blanks; the whole string must be the number. */
    if (text == NULL || out == NULL || text[0] == '\0' || isspace((unsigned char)text[0]))
        return false;
    errno = 0;
    value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0')
        return false;
    *out = value;
    return true;
}

/* Parse one list item of `len` bytes at `item`: digits only, at most INT_MAX. */
static bool env_parse_list_item(const char *item, size_t len, int *out)
{
    long value = 0;
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)item[i]))
            return false;
        value = value * 10 + (item[i] - '0');
        if (value > INT_MAX)
            return false;
    }
    *out = (int)value;
    return true;
}

/* Walk the list; when `out` is NULL only count and validate. */
static bool env_walk_int_list(const char *text, int *out, size_t cap, size_t *out_count)
{
    size_t count = 0;
    const char *item = text;
    for (;;) {
        const char *comma = strchr(item, ',');
        size_t len = comma != NULL ? (size_t)(comma - item) : strlen(item);
        int value;
        if (!env_parse_list_item(item, len, &value) || count == cap)
            return false;
        if (out != NULL)
            out[count] = value;
        count++;
        if (comma == NULL)
            break;
        item = comma + 1;
    }
    *out_count = count;
    return true;
}

bool accel_env_parse_int_list(const char *text, int *out, size_t cap, size_t *out_count)
{
    size_t count = 0;
    if (text == NULL || out_count == NULL || (out == NULL && cap > 0))
        return false;
    /* Validate everything first so a bad list leaves `out` untouched. */
    if (!env_walk_int_list(text, NULL, cap, &count))
        return false;
    return env_walk_int_list(text, out, cap, out_count);
}

bool accel_env_parse_log_level(const char *text, accel_log_level_t *out)
{
    static const struct {
        const char *name;
        accel_log_level_t level;
    } levels[] = {
        {"error", ACCEL_LOG_ERROR},
        {"warn", ACCEL_LOG_WARN},
        {"info", ACCEL_LOG_INFO},
        {"debug", ACCEL_LOG_DEBUG},
    };
    if (text == NULL || out == NULL)
        return false;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        if (strcasecmp(text, levels[i].name) == 0) {
            *out = levels[i].level;
            return true;
        }
    }
    return false;
}

/* Copy `len` bytes of `text` into bad_key (truncated, always terminated). */
static void env_report_bad(const char *text, size_t len, char *bad_key, size_t bad_key_cap)
{
    if (bad_key == NULL || bad_key_cap == 0)
        return;
    if (len >= bad_key_cap)
        len = bad_key_cap - 1;
    memcpy(bad_key, text, len);
    bad_key[len] = '\0';
}

/* Apply one "key:value" item to `conf`. On refusal the item (or just the key
 * when the key is unknown) goes to bad_key. */
static bool env_apply_alloc_item(const char *item, size_t len, accel_alloc_conf_t *conf,
                                 char *bad_key, size_t bad_key_cap)
{
    const char *colon = memchr(item, ':', len);
    size_t key_len = colon != NULL ? (size_t)(colon - item) : len;
    const char *value = colon != NULL ? colon + 1 : NULL;
    size_t value_len = colon != NULL ? len - key_len - 1 : 0;

    if (key_len != strlen("caching") || strncmp(item, "caching", key_len) != 0) {
        env_report_bad(item, key_len, bad_key, bad_key_cap);
        return false;
    }
    if (value == NULL || value_len != 1 || (value[0] != '0' && value[0] != '1')) {
        env_report_bad(item, len, bad_key, bad_key_cap);
        return false;
    }
    conf->caching = value[0] == '1';
    return true;
}

bool accel_env_parse_alloc_conf(const char *text, accel_alloc_conf_t *out, char *bad_key,
                                size_t bad_key_cap)
{
    accel_alloc_conf_t conf;
    const char *item = text;
    if (text == NULL || out == NULL)
        return false;
    /* Start from the caller's values: keys not named keep them. */
    conf = *out;
    for (;;) {
        const char *comma = strchr(item, ',');
        size_t len = comma != NULL ? (size_t)(comma - item) : strlen(item);
        if (!env_apply_alloc_item(item, len, &conf, bad_key, bad_key_cap))
            return false;
        if (comma == NULL)
            break;
        item = comma + 1;
    }
    *out = conf;
    return true;
}

bool accel_env_parse_bool(const char *text, bool *out)
{
    static const struct {
        const char *name;
        bool value;
    } words[] = {
        {"1", true},  {"true", true},   {"yes", true}, {"on", true},
        {"0", false}, {"false", false}, {"no", false}, {"off", false},
    };
    if (text == NULL || out == NULL)
        return false;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (strcasecmp(text, words[i].name) == 0) {
            *out = words[i].value;
            return true;
        }
    }
    return false;
}

/* ---------------------------------------------------------------- warn-and-fall-back getters */

long accel_env_get_int(const char *name, long min, long max, long fallback)
{
    const char *text = accel_env_get(name);
    long value;
    if (text == NULL)
        return fallback;
    if (accel_env_parse_int(text, &value) && value >= min && value <= max)
        return value;
    if (max == LONG_MAX)
        accel_log(ACCEL_LOG_WARN, "%s=%s is not an integer >= %ld; using %ld", name, text, min,
                  fallback);
    else
        accel_log(ACCEL_LOG_WARN, "%s=%s is not an integer in [%ld, %ld]; using %ld", name, text,
                  min, max, fallback);
    return fallback;
}

bool accel_env_get_bool(const char *name, bool fallback)
{
    const char *text = accel_env_get(name);
    bool value;
    if (text == NULL)
        return fallback;
    if (accel_env_parse_bool(text, &value))
        return value;
    accel_log(ACCEL_LOG_WARN, "%s=%s is not a boolean (1/0, true/false, yes/no, on/off); using %s",
              name, text, fallback ? "true" : "false");
    return fallback;
}

size_t accel_env_get_int_list(const char *name, int *out, size_t cap)
{
    const char *text = accel_env_get(name);
    size_t count = 0;
    if (text == NULL)
        return 0;
    if (accel_env_parse_int_list(text, out, cap, &count))
        return count;
    accel_log(ACCEL_LOG_WARN,
              "%s=%s is not a list of at most %zu non-negative integers like 0,2,5; ignored", name,
              text, cap);
    return 0;
}
