/* fuzz_names.c: backend names from outside: accel_open(name), the override
 * variables ACCEL_ACCELERATOR / DS_ACCELERATOR (through the choosing step of
 * accel_get, without its cache) and the registry lookup. Any text must give
 * ACCEL_OK or an error with a sentence, never a crash. */
#include "fuzz.h"

#include "registry.h"
#include "selection.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const variables[] = {"ACCEL_ACCELERATOR", "DS_ACCELERATOR"};
    const accel_backend_ops_t *ops = NULL;
    const char *method = NULL;
    accel_t *acc = NULL;
    char *name;
    accel_status_t status;
    if (size == 0)
        return 0;
    name = fuzz_string(data + 1, size - 1);
    status = accel_open(name, &acc);
    if (status == ACCEL_OK) {
        FUZZ_CHECK(strcmp(accel_name(acc), name) == 0);
        FUZZ_CHECK(accel_close(acc) == ACCEL_OK);
    } else {
        FUZZ_CHECK(acc == NULL && accel_last_error()[0] != '\0');
    }
    ops = accel_registry_find(name);
    FUZZ_CHECK(ops == NULL || strcmp(ops->name, name) == 0);
    setenv(variables[data[0] & 1], name, 1);
    status = accel_selection_choose(&ops, &method);
    FUZZ_CHECK(status != ACCEL_OK || (ops != NULL && strcmp(ops->name, name) == 0) ||
               name[0] == '\0');
    unsetenv(variables[data[0] & 1]);
    free(name);
    return 0;
}
