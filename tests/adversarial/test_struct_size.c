/* test_struct_size.c: the one struct_size rule of accel.h for every struct a
 * caller passes in: smaller than the struct (0, 1, sizeof - 1) is refused
 * with INVALID_ARGUMENT naming the struct before anything is read or
 * written; sizeof works; larger (a caller built against a newer header)
 * works and the bytes past this library's struct are left alone. */
#include <stdlib.h>

#include <accel/accel_comm.h>

#include "adversarial.h"

#define TAIL 64 /* bytes past the struct a newer caller would have */

/* Call `fill` on a buffer whose struct_size is `size`; for refused sizes
 * check the refusal and that no byte changed, else success and an
 * untouched tail. `name` must appear in the sentence. */
static void output_struct(const char *name, size_t real, accel_status_t (*fill)(void *buffer))
{
    const size_t sizes[] = {0, 1, real - 1, real, real + TAIL};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint8_t buffer[1024 + TAIL], before[sizeof buffer];
        char what[160];
        assert_true(real + TAIL <= sizeof buffer);
        memset(buffer, 0xa5, sizeof buffer);
        memcpy(buffer, &sizes[i], sizeof(size_t));
        memcpy(before, buffer, sizeof buffer);
        accel_status_t status = fill(buffer);
        snprintf(what, sizeof what, "%s with struct_size %zu (sizeof %zu)", name, sizes[i], real);
        if (sizes[i] < real) {
            if (adv_refused(status, ACCEL_ERROR_INVALID_ARGUMENT, what))
                adv_case(strstr(accel_last_error(), name) != NULL, "%s: sentence lacks %s: %s",
                         what, name, accel_last_error());
            adv_case(memcmp(buffer, before, sizeof buffer) == 0, "%s: refused but written", what);
        } else {
            adv_case(status == ACCEL_OK, "%s: returned %s (%s)", what, accel_status_name(status),
                     accel_last_error());
            adv_case(memcmp(buffer + real, before + real, sizeof buffer - real) == 0,
                     "%s: bytes past the struct written", what);
        }
    }
}

static accel_status_t fill_memory_stats(void *b)
{
    return accel_memory_stats(adv_acc, 0, b);
}

static accel_status_t fill_pinned_stats(void *b)
{
    return accel_pinned_memory_stats(adv_acc, b);
}

static accel_status_t fill_properties(void *b)
{
    return accel_device_properties(adv_acc, 0, b);
}

static accel_status_t fill_engine_info(void *b)
{
    return accel_comm_engine_info(adv_acc, b);
}

static void test_output_structs(void **state)
{
    (void)state;
    output_struct("accel_memory_stats_t", sizeof(accel_memory_stats_t), fill_memory_stats);
    output_struct("accel_pinned_stats_t", sizeof(accel_pinned_stats_t), fill_pinned_stats);
    output_struct("accel_device_properties_t", sizeof(accel_device_properties_t), fill_properties);
    output_struct("accel_comm_engine_info_t", sizeof(accel_comm_engine_info_t), fill_engine_info);
}

/* Input structs: refused sizes only (a valid one would start MPI or I/O
 * threads); the rule's acceptance side is covered by every other test. */
static void test_input_structs(void **state)
{
    const size_t sizes[] = {0, 1, 3};
    const accel_aio_op_t *aio = adv_load_op("AsyncIOBuilder");
    (void)state;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char what[160];
        accel_comm_t *comm = NULL;
        accel_comm_options_t options = {.struct_size = sizes[i]};
        snprintf(what, sizeof what, "accel_comm_init with options.struct_size %zu", sizes[i]);
        if (adv_refused(accel_comm_init(adv_acc, &options, &comm), ACCEL_ERROR_INVALID_ARGUMENT,
                        what))
            adv_case(strstr(accel_last_error(), "accel_comm_options_t") != NULL,
                     "%s: sentence lacks the struct name: %s", what, accel_last_error());
        adv_case(comm == NULL, "%s: a communicator came back", what);
        if (aio == NULL)
            continue;
        accel_aio_config_t config = ACCEL_AIO_CONFIG_DEFAULT;
        accel_aio_handle_t *h = NULL;
        config.struct_size = sizes[i];
        snprintf(what, sizeof what, "async_io handle_create with config.struct_size %zu", sizes[i]);
        if (adv_refused(aio->handle_create(adv_acc, &config, &h), ACCEL_ERROR_INVALID_ARGUMENT,
                        what))
            adv_case(strstr(accel_last_error(), "accel_aio_config_t") != NULL,
                     "%s: sentence lacks the struct name: %s", what, accel_last_error());
        adv_case(h == NULL, "%s: a handle came back", what);
    }
}

int adv_run_struct_size_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_structs),
        cmocka_unit_test(test_input_structs),
    };
    return cmocka_run_group_tests_name("adversarial struct_size", tests, NULL, NULL);
}
