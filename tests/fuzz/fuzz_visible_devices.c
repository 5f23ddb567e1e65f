/* fuzz_visible_devices.c: visible-device lists. The text goes through the
 * list parser behind the backends' *_VISIBLE_DEVICES reading; a parsed list
 * (or raw ids from the bytes, negative ones included) goes to
 * accel_set_visible_devices_envs, whose assignments are collected and checked. */
#include "fuzz.h"

#include "env.h"

typedef struct collected {
    size_t calls;
    size_t bytes;
} collected_t;

static int collect(void *ctx, const char *name, const char *value)
{
    collected_t *seen = ctx;
    FUZZ_CHECK(name != NULL && value != NULL && name[0] != '\0');
    seen->calls++;
    seen->bytes += strlen(value);
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { CAP = 64 };
    int ids[CAP];
    size_t count = 0;
    collected_t seen = {0};
    accel_status_t status;
    char *text = fuzz_string(data, size);
    if (accel_env_parse_int_list(text, ids, CAP, &count)) {
        FUZZ_CHECK(count <= CAP);
        for (size_t i = 0; i < count; i++)
            FUZZ_CHECK(ids[i] >= 0);
    } else {
        /* the raw bytes as ids: any int, any count up to CAP */
        count = size / sizeof(int) < CAP ? size / sizeof(int) : CAP;
        memcpy(ids, data, count * sizeof(int));
    }
    status = accel_set_visible_devices_envs(fuzz_cpu(), ids, count, collect, &seen);
    FUZZ_CHECK(status == ACCEL_OK || accel_last_error()[0] != '\0');
    free(text);
    return 0;
}
