/* test_docs_env_table.c: docs/env-vars.md's visible-devices table says what
 * the code does. For every built backend with a row (every built backend
 * accel knows by name must have one), each visible-devices variable of its
 * info appears in the second column and the third column lists exactly its
 * export prefixes ("none" for an empty list). The file's path comes from
 * cmake (ACCEL_DOCS_ENV_VARS). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/registry.h"

#define LINE_MAX_BYTES 1024

/* The table row of `name` ("| name | ... | ... |") copied into `out`. */
static bool docs_find_row(const char *name, char *out, size_t cap)
{
    char line[LINE_MAX_BYTES], head[96];
    bool in_section = false, found = false;
    FILE *file = fopen(ACCEL_DOCS_ENV_VARS, "r");
    assert_non_null(file);
    snprintf(head, sizeof head, "| %s |", name);
    while (!found && fgets(line, sizeof line, file) != NULL) {
        if (strncmp(line, "## ", 3) == 0)
            in_section = strncmp(line, "## Visible devices", 18) == 0;
        else if (in_section && strncmp(line, head, strlen(head)) == 0) {
            snprintf(out, cap, "%s", line);
            found = true;
        }
    }
    fclose(file);
    return found;
}

/* Column `index` (0 = backend) of a row, without the bars, into `out`. */
static void docs_column(const char *row, int index, char *out, size_t cap)
{
    const char *start = row + 1;
    for (int i = 0; i < index; i++) {
        start = strchr(start, '|');
        assert_non_null(start);
        start++;
    }
    const char *end = strchr(start, '|');
    assert_non_null(end);
    snprintf(out, cap, "%.*s", (int)(end - start), start);
}

/* How many `name` tokens (backquoted) the text holds. */
static size_t docs_count_quoted(const char *text)
{
    size_t quotes = 0;
    for (; *text != '\0'; text++)
        quotes += *text == '`';
    return quotes / 2;
}

static bool docs_has_quoted(const char *text, const char *name)
{
    char quoted[96];
    snprintf(quoted, sizeof quoted, "`%s`", name);
    return strstr(text, quoted) != NULL;
}

static void check_backend(const accel_backend_ops_t *ops, const char *row)
{
    char devices[512], prefixes[512];
    const accel_backend_info_t *info = ops->info;
    docs_column(row, 1, devices, sizeof devices);
    docs_column(row, 2, prefixes, sizeof prefixes);
    for (size_t i = 0; i < info->visible_devices_env_count; i++) {
        if (!docs_has_quoted(devices, info->visible_devices_envs[i]))
            fail_msg("docs/env-vars.md: %s's row does not name `%s` as a visible-devices "
                     "variable",
                     ops->name, info->visible_devices_envs[i]);
    }
    if (info->export_env_count == 0) {
        if (strstr(prefixes, "none") == NULL)
            fail_msg("docs/env-vars.md: %s forwards no prefixes but its row says \"%s\"", ops->name,
                     prefixes);
        return;
    }
    if (docs_count_quoted(prefixes) != info->export_env_count)
        fail_msg("docs/env-vars.md: %s forwards %zu prefixes but its row lists \"%s\"", ops->name,
                 info->export_env_count, prefixes);
    for (size_t i = 0; i < info->export_env_count; i++) {
        if (!docs_has_quoted(prefixes, info->export_envs[i]))
            fail_msg("docs/env-vars.md: %s forwards the prefix %s, missing from its row \"%s\"",
                     ops->name, info->export_envs[i], prefixes);
    }
}

static void test_rows_match_backend_info(void **state)
{
    size_t checked = 0;
    (void)state;
    for (size_t i = 0; i < accel_builtin_backend_count; i++) {
        char row[LINE_MAX_BYTES];
        const accel_backend_ops_t *ops = accel_builtin_backends[i].ops();
        if (!docs_find_row(ops->name, row, sizeof row)) {
            if (accel_registry_known(ops->name) != NULL)
                fail_msg("docs/env-vars.md has no visible-devices row for %s", ops->name);
            continue;
        }
        check_backend(ops, row);
        checked++;
    }
    assert_true(checked > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_match_backend_info),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
