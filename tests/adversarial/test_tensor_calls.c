/* test_tensor_calls.c: every API call that takes a DLTensor, given each
 * hostile variant (hostile.c) in each tensor position, and the placement
 * variants that depend on the call (device memory labelled kDLCPU, host
 * memory labelled as the device, a device range past its block). Each must
 * be refused with INVALID_ARGUMENT and change nothing: the arenas the
 * tensors live in, the files async_io would touch, the counters. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adversarial.h"

#define ELEMENTS   64
#define ARENA_SIZE (64 * 1024)
#define MAX_ARGS   4

typedef enum call_memory {
    CALL_HOST,   /* host memory only (cpu_* ops, pin_memory) */
    CALL_DEVICE, /* the backend's device memory (fused_* ops) */
    CALL_EITHER, /* async_io: host or device */
} call_memory_t;

/* One tensor-taking call: `args` tensors, run on `tensors` (entry i of a
 * list when multi: the lists then hold 2 entries, the first valid). */
typedef struct tensor_call {
    const char *name;
    const char *builder; /* op builder to load, or NULL */
    size_t args;
    call_memory_t memory;
    bool multi;
    accel_status_t (*run)(const void *table, DLTensor **tensors, DLTensor **lists);
} tensor_call_t;

static const accel_adam_config_t adam = ACCEL_ADAM_CONFIG_DEFAULT;
static const accel_adagrad_config_t adagrad = ACCEL_ADAGRAD_CONFIG_DEFAULT;
static const accel_lion_config_t lion = ACCEL_LION_CONFIG_DEFAULT;
static const accel_lamb_config_t lamb = ACCEL_LAMB_CONFIG_DEFAULT;

static accel_status_t run_adam(const void *table, DLTensor **t, DLTensor **lists)
{
    (void)lists;
    return ((const accel_adam_op_t *)table)->step(adv_acc, NULL, &adam, 1, t[0], t[1], t[2], t[3]);
}

static accel_status_t run_adam_multi(const void *table, DLTensor **t, DLTensor **l)
{
    (void)t;
    return ((const accel_adam_op_t *)table)
        ->step_multi(adv_acc, NULL, &adam, 1, 2, l[0], l[1], l[2], l[3]);
}

static accel_status_t run_adagrad(const void *table, DLTensor **t, DLTensor **lists)
{
    (void)lists;
    return ((const accel_adagrad_op_t *)table)->step(adv_acc, NULL, &adagrad, t[0], t[1], t[2]);
}

static accel_status_t run_lion(const void *table, DLTensor **t, DLTensor **lists)
{
    (void)lists;
    return ((const accel_lion_op_t *)table)->step(adv_acc, NULL, &lion, t[0], t[1], t[2]);
}

static accel_status_t run_lion_multi(const void *table, DLTensor **t, DLTensor **l)
{
    (void)t;
    return ((const accel_lion_op_t *)table)->step_multi(adv_acc, NULL, &lion, 2, l[0], l[1], l[2]);
}

static accel_status_t run_lamb(const void *table, DLTensor **t, DLTensor **lists)
{
    (void)lists;
    return ((const accel_lamb_op_t *)table)->step(adv_acc, NULL, &lamb, 1, t[0], t[1], t[2], t[3]);
}

/* async_io: a handle per call, files in a fresh folder. */
static char aio_folder[64], aio_read_path[96], aio_write_path[96];
static accel_aio_handle_t *aio_handle;

static accel_status_t run_aio(const void *table, DLTensor *t, bool read, bool async)
{
    const accel_aio_op_t *aio = table;
    accel_status_t status = read ? aio->pread(aio_handle, t, aio_read_path, 0, async)
                                 : aio->pwrite(aio_handle, t, aio_write_path, 0, async);
    if (status == ACCEL_OK && async) { /* accepted: its outcome comes from wait() */
        status = aio->wait(aio_handle, NULL);
        return status == ACCEL_OK ? ACCEL_OK : status;
    }
    return status;
}

static accel_status_t run_pread(const void *table, DLTensor **t, DLTensor **lists)
{
    (void)lists;
    return run_aio(table, t[0], true, false);
}

static accel_status_t run_pread_async(const void *table, DLTensor **t, DLTensor **lists)
{
    (void)lists;
    return run_aio(table, t[0], true, true);
}

static accel_status_t run_pwrite(const void *table, DLTensor **t, DLTensor **lists)
{
    (void)lists;
    return run_aio(table, t[0], false, false);
}

static accel_status_t run_pwrite_async(const void *table, DLTensor **t, DLTensor **lists)
{
    (void)lists;
    return run_aio(table, t[0], false, true);
}

static DLTensor pin_out;

static accel_status_t run_pin(const void *table, DLTensor **t, DLTensor **lists)
{
    (void)table;
    (void)lists;
    memset(&pin_out, 0x5a, sizeof pin_out);
    return accel_pin_memory(adv_acc, t[0], true, true, &pin_out);
}

static const tensor_call_t calls[] = {
    {"cpu_adam.step", "CPUAdamBuilder", 4, CALL_HOST, false, run_adam},
    {"cpu_adam.step_multi", "CPUAdamBuilder", 4, CALL_HOST, true, run_adam_multi},
    {"cpu_adagrad.step", "CPUAdagradBuilder", 3, CALL_HOST, false, run_adagrad},
    {"cpu_lion.step", "CPULionBuilder", 3, CALL_HOST, false, run_lion},
    {"cpu_lion.step_multi", "CPULionBuilder", 3, CALL_HOST, true, run_lion_multi},
    {"fused_adam.step", "FusedAdamBuilder", 4, CALL_DEVICE, false, run_adam},
    {"fused_adam.step_multi", "FusedAdamBuilder", 4, CALL_DEVICE, true, run_adam_multi},
    {"fused_lion.step", "FusedLionBuilder", 3, CALL_DEVICE, false, run_lion},
    {"fused_lion.step_multi", "FusedLionBuilder", 3, CALL_DEVICE, true, run_lion_multi},
    {"fused_lamb.step", "FusedLambBuilder", 4, CALL_DEVICE, false, run_lamb},
    {"async_io.pread", "AsyncIOBuilder", 1, CALL_EITHER, false, run_pread},
    {"async_io.pread(async)", "AsyncIOBuilder", 1, CALL_EITHER, false, run_pread_async},
    {"async_io.pwrite", "AsyncIOBuilder", 1, CALL_EITHER, false, run_pwrite},
    {"async_io.pwrite(async)", "AsyncIOBuilder", 1, CALL_EITHER, false, run_pwrite_async},
    {"pin_memory", NULL, 1, CALL_HOST, false, run_pin},
};

/* ---------------------------------------------------------------- the cases */

static adv_arena_t host_arena, device_arena;

/* Valid tensor i of a call: f32, ELEMENTS long, 2 KiB apart from 8 KiB into
 * the arena (so an offset that wraps to before data stays inside it). */
static DLTensor valid_tensor(const tensor_call_t *call, size_t i, int64_t *shape)
{
    bool device = call->memory == CALL_DEVICE;
    adv_arena_t *arena = device ? &device_arena : &host_arena;
    *shape = ELEMENTS;
    return (DLTensor){.data = arena->data + 8192 + i * 2048,
                      .device = {.device_type = device ? adv_device_type() : kDLCPU},
                      .ndim = 1,
                      .dtype = {.code = kDLFloat, .bits = 32, .lanes = 1},
                      .shape = shape};
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Run `call` with tensor `arg` replaced by `bad`; check the refusal and
 * that nothing changed. */
static void run_case(const tensor_call_t *call, const void *table, size_t arg, adv_tensor_t *bad,
                     const char *variant)
{
    int64_t shapes[MAX_ARGS][2];
    DLTensor good[MAX_ARGS], lists[MAX_ARGS][2];
    DLTensor *tensors[MAX_ARGS] = {NULL}, *list_ptrs[MAX_ARGS] = {NULL};
    adv_counters_t before, after;
    char what[256];
    for (size_t i = 0; i < call->args; i++) {
        good[i] = valid_tensor(call, i, &shapes[i][0]);
        tensors[i] = &good[i];
        /* entry 0 valid and on its own memory (4 KiB further), entry 1 the case */
        lists[i][0] = valid_tensor(call, i + MAX_ARGS, &shapes[i][1]);
        lists[i][1] = good[i];
        list_ptrs[i] = lists[i];
    }
    if (call->multi) {
        if (bad->null)
            list_ptrs[arg] = NULL;
        else
            lists[arg][1] = bad->t;
    } else {
        tensors[arg] = adv_tensor_ptr(bad);
    }
    snprintf(what, sizeof what, "%s on %s: tensor %zu: %s", call->name, accel_name(adv_acc), arg,
             variant);
    adv_counters_read(&before);
    accel_status_t status = call->run(table, tensors, list_ptrs);
    adv_counters_read(&after);
    adv_refused(status, ACCEL_ERROR_INVALID_ARGUMENT, what);
    long host_changed = adv_arena_changed(&host_arena);
    long device_changed = adv_arena_changed(&device_arena);
    adv_case(host_changed < 0 && device_changed < 0,
             "%s: memory changed (host arena byte %ld, device arena byte %ld)", what, host_changed,
             device_changed);
    adv_case(adv_counters_same(&before, &after), "%s: allocator or pinned counters changed", what);
    if (call->run == run_pwrite || call->run == run_pwrite_async) {
        adv_case(!file_exists(aio_write_path), "%s: %s was created", what, aio_write_path);
        unlink(aio_write_path);
    }
    if (status == ACCEL_OK && call->run == run_pin) {
        bool freed = false;
        accel_unpin_memory(adv_acc, &pin_out, &freed);
    }
}

/* The placement variants of `call` on this backend, in `out`; their name,
 * or NULL past the last. */
static const char *placement_variant(const tensor_call_t *call, size_t index, const DLTensor *good,
                                     adv_tensor_t *out)
{
    bool split = !adv_device_is_host(); /* device memory is not host memory */
    adv_tensor_copy(good, out);
    if (index == 0 && call->memory != CALL_DEVICE && split) {
        out->t.data = device_arena.data + 8192;
        out->t.device.device_type = kDLCPU;
        return "device memory labelled kDLCPU";
    }
    if (index == 1 && call->memory != CALL_HOST && split) {
        out->t.data = host_arena.data + 8192;
        out->t.device.device_type = adv_device_type();
        return "host memory labelled as device memory";
    }
    if (index == 2 && call->memory != CALL_HOST && (split || call->memory == CALL_DEVICE)) {
        out->t.data = device_arena.data;
        out->t.device.device_type = adv_device_type();
        out->t.byte_offset = ARENA_SIZE - 16;
        return "a device range running past its allocation";
    }
    return index <= 2 ? "" : NULL;
}

static void test_every_tensor_call(void **state)
{
    unsigned start = adv_cases;
    (void)state;
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
        const tensor_call_t *call = &calls[c];
        const void *table = call->builder != NULL ? adv_load_op(call->builder) : "";
        if (table == NULL)
            continue;
        for (size_t arg = 0; arg < call->args; arg++) {
            int64_t shape;
            DLTensor good = valid_tensor(call, arg, &shape);
            adv_tensor_t bad;
            const char *name;
            for (size_t v = 0; (name = adv_hostile_variant(v, &good, &bad)) != NULL; v++)
                run_case(call, table, arg, &bad, name);
            for (size_t v = 0; (name = placement_variant(call, v, &good, &bad)) != NULL; v++) {
                if (name[0] != '\0')
                    run_case(call, table, arg, &bad, name);
            }
        }
    }
    print_message("tensor calls on %s: %u cases\n", accel_name(adv_acc), adv_cases - start);
}

/* Shapes accel is asked to allocate: refused, nothing allocated. */
static void test_tensor_make_shapes(void **state)
{
    static const struct {
        const char *name;
        int32_t ndim;
        int64_t shape[2];
    } shapes[] = {
        {"negative extent", 1, {-1, 0}},
        {"extent INT64_MAX", 1, {INT64_MAX, 0}},
        {"extents whose product overflows", 2, {(int64_t)1 << 40, (int64_t)1 << 40}},
        {"ndim -1", -1, {1, 0}},
        {"ndim 33", 33, {1, 0}},
    };
    (void)state;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        for (int how = 0; how < 3; how++) {
            static const char *const calls_made[] = {"tensor_empty", "tensor_zeros",
                                                     "tensor_from_host"};
            DLTensor out;
            adv_counters_t before, after;
            char what[160];
            uint8_t source[64] = {0};
            accel_status_t status;
            memset(&out, 0x5a, sizeof out);
            DLTensor untouched = out;
            adv_counters_read(&before);
            if (how == 0)
                status = accel_tensor_empty(adv_acc, 0, ACCEL_DTYPE_F32, shapes[i].ndim,
                                            shapes[i].shape, &out);
            else if (how == 1)
                status = accel_tensor_zeros(adv_acc, 0, ACCEL_DTYPE_F32, shapes[i].ndim,
                                            shapes[i].shape, &out);
            else
                status = accel_tensor_from_host(adv_acc, 0, ACCEL_DTYPE_F32, shapes[i].ndim,
                                                shapes[i].shape, source, &out);
            adv_counters_read(&after);
            snprintf(what, sizeof what, "%s on %s: %s", calls_made[how], accel_name(adv_acc),
                     shapes[i].name);
            adv_refused(status, ACCEL_ERROR_INVALID_ARGUMENT, what);
            adv_case(memcmp(&out, &untouched, sizeof out) == 0, "%s: output written", what);
            adv_case(adv_counters_same(&before, &after), "%s: counters changed", what);
        }
    }
}

static int group_setup(void **state)
{
    int fd;
    (void)state;
    adv_arena_make(&host_arena, ARENA_SIZE, false);
    adv_arena_make(&device_arena, ARENA_SIZE, true);
    snprintf(aio_folder, sizeof aio_folder, "adversarial-aio-XXXXXX");
    if (mkdtemp(aio_folder) == NULL)
        return -1;
    snprintf(aio_read_path, sizeof aio_read_path, "%s/source", aio_folder);
    snprintf(aio_write_path, sizeof aio_write_path, "%s/never", aio_folder);
    fd = open(aio_read_path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0 || write(fd, host_arena.expect, ARENA_SIZE) != ARENA_SIZE)
        return -1;
    close(fd);
    const accel_aio_op_t *aio = adv_load_op("AsyncIOBuilder");
    accel_aio_config_t config = ACCEL_AIO_CONFIG_DEFAULT;
    config.direct = false; /* any file system; the checks come before the file */
    if (aio != NULL && aio->handle_create(adv_acc, &config, &aio_handle) != ACCEL_OK)
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    const accel_aio_op_t *aio = adv_load_op("AsyncIOBuilder");
    (void)state;
    if (aio != NULL && aio_handle != NULL)
        aio->handle_destroy(aio_handle);
    unlink(aio_read_path);
    unlink(aio_write_path);
    rmdir(aio_folder);
    adv_arena_free(&host_arena);
    adv_arena_free(&device_arena);
    return 0;
}

/* accel_on_accelerator, the one tensor-taking call that reads no memory:
 * each layout variant is answered (it looks at the device only) or refused
 * with a sentence, and a NULL tensor or output is refused. */
static void test_on_accelerator(void **state)
{
    float data[8] = {0};
    int64_t shape[1] = {8};
    DLTensor good = {.data = data,
                     .device = {.device_type = kDLCPU},
                     .ndim = 1,
                     .dtype = {.code = kDLFloat, .bits = 32, .lanes = 1},
                     .shape = shape};
    adv_tensor_t hostile;
    bool on = true;
    (void)state;
    adv_refused(accel_on_accelerator(adv_acc, NULL, &on), ACCEL_ERROR_INVALID_ARGUMENT,
                "accel_on_accelerator: NULL tensor");
    adv_refused(accel_on_accelerator(adv_acc, &good, NULL), ACCEL_ERROR_INVALID_ARGUMENT,
                "accel_on_accelerator: NULL output");
    for (size_t i = 1; adv_hostile_variant(i, &good, &hostile) != NULL; i++) {
        accel_status_t status = accel_on_accelerator(adv_acc, adv_tensor_ptr(&hostile), &on);
        adv_case(status == ACCEL_OK || accel_last_error()[0] != '\0',
                 "accel_on_accelerator: %s: %s with no sentence",
                 adv_hostile_variant(i, &good, &hostile), accel_status_name(status));
    }
}

int adv_run_tensor_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_tensor_call),
        cmocka_unit_test(test_tensor_make_shapes),
        cmocka_unit_test(test_on_accelerator),
    };
    return cmocka_run_group_tests_name("adversarial tensors", tests, group_setup, group_teardown);
}
