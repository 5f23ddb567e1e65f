/* hostile.c: the hostile tensor variants every tensor-taking call is given,
 * and the before/after comparisons of adversarial.h. */
#include <stdlib.h>

#include "adversarial.h"

unsigned adv_cases, adv_failed;

void adv_case(bool ok, const char *format, ...)
{
    va_list args;
    adv_cases++;
    if (ok)
        return;
    adv_failed++;
    fprintf(stderr, "[ CASE FAILED ] ");
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "\n");
}

bool adv_refused(accel_status_t got, accel_status_t want, const char *what)
{
    bool ok = got == want && accel_last_error()[0] != '\0';
    adv_case(ok, "%s: returned %s, expected %s (last error: \"%s\")", what, accel_status_name(got),
             accel_status_name(want), accel_last_error());
    return ok;
}

int32_t adv_device_type(void)
{
    int32_t type = kDLCPU;
    assert_int_equal(accel_dlpack_device_type(adv_acc, &type), ACCEL_OK);
    return type;
}

bool adv_device_is_host(void)
{
    return adv_device_type() == kDLCPU;
}

void adv_tensor_copy(const DLTensor *good, adv_tensor_t *out)
{
    memset(out, 0, sizeof *out);
    out->t = *good;
    out->shape[0] = good->shape[0];
    out->t.shape = out->shape;
    out->t.strides = NULL;
}

const char *adv_hostile_variant(size_t index, const DLTensor *good, adv_tensor_t *out)
{
    int64_t n = good->shape[0];
    adv_tensor_copy(good, out);
    switch (index) {
    case 0: out->null = true; return "NULL tensor";
    case 1: out->t.ndim = -1; return "ndim -1";
    case 2: out->t.ndim = 33; return "ndim 33";
    case 3: out->t.shape = NULL; return "shape NULL";
    case 4: out->shape[0] = -n; return "negative extent";
    case 5:
        out->t.ndim = 2;
        out->shape[0] = (int64_t)1 << 62;
        out->shape[1] = 16;
        return "extents whose product overflows";
    case 6: out->shape[0] = INT64_MAX; return "extent INT64_MAX";
    case 7:
        out->t.byte_offset = UINT64_MAX - 3;
        return "byte_offset UINT64_MAX-3 (data + offset wraps to 4 bytes before data)";
    case 8:
        out->t.byte_offset = (uint64_t)(UINTPTR_MAX - (uintptr_t)good->data);
        return "byte_offset to the last byte of the address space (the size wraps)";
    case 9: out->t.data = NULL; return "data NULL with elements";
    case 10: out->t.dtype.bits = 0; return "element of 0 bits";
    case 11: out->t.dtype.bits = 4; return "element of 4 bits";
    case 12: out->t.dtype.lanes = 0; return "0 lanes";
    case 13:
        out->t.ndim = 2;
        out->shape[0] = 2;
        out->shape[1] = n / 2;
        out->t.strides = out->strides;
        out->strides[0] = 1;
        out->strides[1] = 2;
        return "not contiguous (column-major strides)";
    case 14:
        out->t.strides = out->strides;
        out->strides[0] = -1;
        return "negative stride";
    case 15: out->t.device.device_type = kDLVulkan; return "a foreign DLPack device type";
    default: return NULL;
    }
}

void adv_arena_make(adv_arena_t *arena, size_t size, bool device)
{
    void *host = NULL;
    arena->size = size;
    arena->device = device;
    arena->expect = malloc(size);
    assert_non_null(arena->expect);
    for (size_t i = 0; i < size; i++)
        arena->expect[i] = (uint8_t)(i * 131 + 7);
    if (!device) {
        assert_int_equal(posix_memalign(&host, 4096, size), 0);
        memcpy(host, arena->expect, size);
        arena->data = host;
        return;
    }
    assert_int_equal(accel_malloc(adv_acc, size, &host), ACCEL_OK);
    assert_int_equal(accel_memcpy(adv_acc, host, arena->expect, size, ACCEL_COPY_HOST_TO_DEVICE),
                     ACCEL_OK);
    arena->data = host;
}

void adv_arena_free(adv_arena_t *arena)
{
    if (arena->device)
        assert_int_equal(accel_free(adv_acc, arena->data), ACCEL_OK);
    else
        free(arena->data);
    free(arena->expect);
}

long adv_arena_changed(const adv_arena_t *arena)
{
    uint8_t *now = malloc(arena->size);
    long first = -1;
    assert_non_null(now);
    if (arena->device) {
        assert_int_equal(accel_synchronize(adv_acc, 0), ACCEL_OK);
        assert_int_equal(
            accel_memcpy(adv_acc, now, arena->data, arena->size, ACCEL_COPY_DEVICE_TO_HOST),
            ACCEL_OK);
    } else {
        memcpy(now, arena->data, arena->size);
    }
    for (size_t i = 0; i < arena->size && first < 0; i++) {
        if (now[i] != arena->expect[i])
            first = (long)i;
    }
    free(now);
    if (first >= 0) /* put the pattern back: one failed case must not fail the next */
        adv_arena_restore(arena);
    return first;
}

void adv_arena_restore(const adv_arena_t *arena)
{
    if (arena->device)
        assert_int_equal(accel_memcpy(adv_acc, arena->data, arena->expect, arena->size,
                                      ACCEL_COPY_HOST_TO_DEVICE),
                         ACCEL_OK);
    else
        memcpy(arena->data, arena->expect, arena->size);
}

void adv_counters_read(adv_counters_t *out)
{
    memset(out, 0, sizeof *out);
    out->memory.struct_size = sizeof out->memory;
    out->pinned.struct_size = sizeof out->pinned;
    assert_int_equal(accel_memory_stats(adv_acc, 0, &out->memory), ACCEL_OK);
    assert_int_equal(accel_pinned_memory_stats(adv_acc, &out->pinned), ACCEL_OK);
}

bool adv_counters_same(const adv_counters_t *a, const adv_counters_t *b)
{
    return memcmp(&a->memory, &b->memory, sizeof a->memory) == 0 &&
           a->pinned.pinned_bytes == b->pinned.pinned_bytes &&
           a->pinned.tracked_bytes == b->pinned.tracked_bytes &&
           a->pinned.pin_count == b->pinned.pin_count;
}

const void *adv_load_op(const char *class_name)
{
    accel_op_builder_t *builder = NULL;
    const void *table = NULL;
    bool compatible = false;
    char reason[256] = "";
    if (accel_get_op_builder(adv_acc, class_name, &builder) != ACCEL_OK ||
        accel_op_builder_is_compatible(builder, &compatible, reason, sizeof reason) != ACCEL_OK ||
        !compatible || accel_op_builder_load(builder, &table) != ACCEL_OK) {
        print_message("[  SKIP    ] %s on %s: %s\n", class_name, accel_name(adv_acc),
                      compatible ? accel_last_error() : reason);
        return NULL;
    }
    return table;
}
