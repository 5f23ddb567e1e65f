/* fuzz_op_builder.c: op builder names from outside (accel_get_op_builder,
 * DeepSpeed's get_op_builder(class_name)). A found builder must answer its
 * names and compatibility, and load or refuse with a sentence. */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    accel_op_builder_t *builder = NULL;
    char *name = fuzz_string(data, size);
    accel_status_t status = accel_get_op_builder(fuzz_cpu(), name, &builder);
    if (status == ACCEL_OK) {
        bool compatible = false;
        const void *table = NULL;
        FUZZ_CHECK(builder != NULL);
        FUZZ_CHECK(accel_op_builder_is_compatible(builder, &compatible, NULL, 0) == ACCEL_OK);
        status = accel_op_builder_load(builder, &table);
        FUZZ_CHECK((status == ACCEL_OK) == (table != NULL));
    } else {
        FUZZ_CHECK(accel_last_error()[0] != '\0');
    }
    free(name);
    return 0;
}
