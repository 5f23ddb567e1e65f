/* api_pinning.c: DeepSpeed's tensor pinning API (pin_memory(t, make_copy,
 * match_shape), is_pinned, unpin_memory) and its pinned-bytes accounting.
 * Two backends, chosen per accelerator from ACCEL_PIN_MEMORY_BACKEND or
 * DeepSpeed's DS_PIN_MEMORY_BACKEND at the first call:
 *  - default ("torch" in DeepSpeed): the backend's own pinned allocator
 *    (host_alloc, what tensor.pin_memory() uses);
 *  - native: page-aligned host memory locked with mlock (DeepSpeed's
 *    PinMemoryBuilder), on any backend, with or without a device.
 * Ownership: a pinned tensor owns its buffer and its shape array until
 * accel_unpin_memory. Every buffer is recorded in acc->pinned, so
 * accel_is_pinned answers for any byte of it (views included).
 * Thread-safe: the registry locks; the counters are atomic. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"
#include "env.h"
#include "error.h"
#include "tensor_check.h"

/* acc->pin_backend values; 0 means the environment was not read yet. */
#define PIN_BACKEND_UNREAD 0
#define PIN_BACKEND_OFFSET 1 /* stored as accel_pin_backend_t + 1 */

/* `text` with spaces stripped and lowered equals `word`. */
static bool pin_word_is(const char *text, const char *word)
{
    size_t len;
    while (isspace((unsigned char)*text))
        text++;
    len = strlen(text);
    while (len > 0 && isspace((unsigned char)text[len - 1]))
        len--;
    if (len != strlen(word))
        return false;
    for (size_t i = 0; i < len; i++) {
        if (tolower((unsigned char)text[i]) != word[i])
            return false;
    }
    return true;
}

/* ACCEL_PIN_MEMORY_BACKEND ("native" or "torch"/"default"; anything else is
 * warned about), else DeepSpeed's DS_PIN_MEMORY_BACKEND (its rule: native
 * when it reads "native" after strip().lower(), the default otherwise). */
static accel_pin_backend_t pin_backend_from_env(void)
{
    const char *text = accel_env_get("ACCEL_PIN_MEMORY_BACKEND");
    if (text != NULL) {
        if (pin_word_is(text, "native"))
            return ACCEL_PIN_BACKEND_NATIVE;
        if (!pin_word_is(text, "torch") && !pin_word_is(text, "default"))
            accel_log(ACCEL_LOG_WARN,
                      "ACCEL_PIN_MEMORY_BACKEND=%s is not native, torch or default; using the "
                      "default",
                      text);
        return ACCEL_PIN_BACKEND_DEFAULT;
    }
    text = getenv("DS_PIN_MEMORY_BACKEND");
    return text != NULL && pin_word_is(text, "native") ? ACCEL_PIN_BACKEND_NATIVE
                                                       : ACCEL_PIN_BACKEND_DEFAULT;
}

static accel_pin_backend_t pin_backend_of(accel_t *acc)
{
    int value = atomic_load(&acc->pin_backend);
    if (value == PIN_BACKEND_UNREAD) {
        int expected = PIN_BACKEND_UNREAD;
        value = (int)pin_backend_from_env() + PIN_BACKEND_OFFSET;
        if (!atomic_compare_exchange_strong(&acc->pin_backend, &expected, value))
            value = expected;
    }
    return (accel_pin_backend_t)(value - PIN_BACKEND_OFFSET);
}

accel_status_t accel_pin_memory_backend(accel_t *acc, accel_pin_backend_t *out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = pin_backend_of(acc);
    return ACCEL_OK;
}

accel_status_t accel_set_pin_memory_backend(accel_t *acc, accel_pin_backend_t backend)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (backend != ACCEL_PIN_BACKEND_DEFAULT && backend != ACCEL_PIN_BACKEND_NATIVE)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "unknown pin memory backend %d",
                           (int)backend);
    atomic_store(&acc->pin_backend, (int)backend + PIN_BACKEND_OFFSET);
    return ACCEL_OK;
}

/* ---- the tensor being pinned */

/* Bytes of a contiguous host tensor that is not device memory (the check
 * every tensor-taking call shares, tensor_check.h); INVALID_ARGUMENT
 * otherwise, and for an empty tensor. */
static accel_status_t pin_tensor_bytes(accel_t *acc, const DLTensor *t, size_t *out)
{
    accel_tensor_span_t span;
    accel_tensor_memory_t where;
    int device;
    accel_status_t status = accel_tensor_span_check("pin_memory: the", t, &span);
    if (status == ACCEL_OK && span.bytes == 0)
        status = accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                             "pin_memory: the tensor is empty; there is nothing to pin");
    if (status == ACCEL_OK)
        status = accel_tensor_span_locate(acc, "pin_memory: the", t, &span, ACCEL_TENSOR_HOST,
                                          &where, &device);
    if (status == ACCEL_OK)
        *out = span.bytes;
    return status;
}

/* ---- buffers */

static long pin_page_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? page : 4096;
}

static size_t pin_native_span(size_t bytes)
{
    size_t page = (size_t)pin_page_size();
    return (bytes + page - 1) / page * page;
}

/* Page-aligned and locked; an mlock the system refuses (EPERM, or the
 * memlock limit) leaves the pages pageable but still counted as pinned, as
 * the cpu backend does. */
static accel_status_t pin_native_alloc(size_t bytes, void **out)
{
    size_t span = pin_native_span(bytes);
    void *ptr = NULL;
    int err = accel_host_pages_alloc(span, (size_t)pin_page_size(), &ptr);
    if (err != 0)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "pin_memory (native): cannot allocate %zu bytes of host memory: %s",
                           span, strerror(err));
    if (mlock(ptr, span) != 0)
        accel_log(ACCEL_LOG_DEBUG,
                  "pin_memory (native): mlock of %zu bytes refused (%s); the buffer stays "
                  "pageable but is treated as pinned",
                  span, strerror(errno));
    *out = ptr;
    return ACCEL_OK;
}

static void pin_native_free(void *ptr, size_t bytes)
{
    size_t span = pin_native_span(bytes);
    munlock(ptr, span);
    accel_host_pages_free(ptr, span);
}

static accel_status_t pin_buffer_alloc(accel_t *acc, accel_pin_backend_t backend, size_t bytes,
                                       void **out)
{
    accel_status_t status;
    if (backend == ACCEL_PIN_BACKEND_NATIVE)
        return pin_native_alloc(bytes, out);
    status = accel_check_has_devices(acc);
    if (status == ACCEL_OK && !ACCEL_BACKEND_HAS(acc->ops, host_alloc))
        status = accel_error(ACCEL_ERROR_UNSUPPORTED,
                             "%s cannot allocate pinned host memory; the native pin memory "
                             "backend (ACCEL_PIN_MEMORY_BACKEND=native or "
                             "DS_PIN_MEMORY_BACKEND=native) works on every backend",
                             acc->ops->name);
    if (status == ACCEL_OK)
        status = accel_ensure_init(acc);
    if (status == ACCEL_OK && (*out = accel_host_cache_take(&acc->host_cache, bytes)) != NULL)
        return ACCEL_OK;
    if (status == ACCEL_OK)
        status = acc->ops->host_alloc(acc->self, bytes, out);
    return status;
}

static void pin_buffer_free(accel_t *acc, accel_pinned_kind_t kind, void *ptr, size_t bytes)
{
    if (kind == ACCEL_PINNED_NATIVE)
        pin_native_free(ptr, bytes);
    else
        accel_host_release(acc, ptr, bytes); /* kept in the pinned host cache */
}

/* ---- the API */

accel_status_t accel_pin_memory(accel_t *acc, const DLTensor *tensor, bool make_copy,
                                bool match_shape, DLTensor *out)
{
    accel_pin_backend_t backend;
    accel_pinned_kind_t kind;
    size_t bytes = 0, elem;
    int32_t ndim;
    int64_t *shape;
    void *buffer = NULL;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (tensor == NULL || out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "pin_memory: tensor or output is NULL");
    status = pin_tensor_bytes(acc, tensor, &bytes);
    if (status != ACCEL_OK)
        return status;
    backend = pin_backend_of(acc);
    kind = backend == ACCEL_PIN_BACKEND_NATIVE ? ACCEL_PINNED_NATIVE : ACCEL_PINNED_TENSOR;
    ndim = match_shape ? tensor->ndim : 1;
    shape = malloc(sizeof *shape * (size_t)(ndim > 0 ? ndim : 1));
    if (shape == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "pin_memory: out of host memory for a shape");
    elem = (size_t)(tensor->dtype.bits / 8) * tensor->dtype.lanes; /* whole bytes: checked */
    if (match_shape && ndim > 0)
        memcpy(shape, tensor->shape, sizeof *shape * (size_t)ndim);
    else if (!match_shape)
        shape[0] = (int64_t)(bytes / elem);
    status = pin_buffer_alloc(acc, backend, bytes, &buffer);
    if (status == ACCEL_OK) {
        status = accel_pinned_add(&acc->pinned, buffer, bytes, kind);
        if (status != ACCEL_OK)
            pin_buffer_free(acc, kind, buffer, bytes);
    }
    if (status != ACCEL_OK) {
        free(shape);
        return status;
    }
    if (make_copy)
        memcpy(buffer, (const char *)tensor->data + tensor->byte_offset, bytes);
    atomic_fetch_add(&acc->pin_tracked_bytes, (uint64_t)bytes);
    atomic_fetch_add(&acc->pin_count, 1);
    *out = (DLTensor){.data = buffer,
                      .device = {.device_type = kDLCPU, .device_id = 0},
                      .ndim = ndim,
                      .dtype = tensor->dtype,
                      .shape = shape,
                      .strides = NULL,
                      .byte_offset = 0};
    return ACCEL_OK;
}

accel_status_t accel_unpin_memory(accel_t *acc, DLTensor *tensor, bool *out_freed)
{
    accel_pinned_range_t range;
    size_t bytes = 0;
    const char *base;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (tensor == NULL || out_freed == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "unpin_memory: tensor or output is NULL");
    *out_freed = false;
    if (tensor->data == NULL)
        return ACCEL_OK; /* nothing pinned (an unpinned tensor is zeroed) */
    /* An address computed in integers: a hostile byte_offset only misses
     * the registry (nothing is touched unless a recorded buffer starts there). */
    base = (const char *)((uintptr_t)tensor->data + (uintptr_t)tensor->byte_offset);
    if (!accel_pinned_find(&acc->pinned, base, 0, &range) || range.base != (uintptr_t)base ||
        (range.kind != ACCEL_PINNED_TENSOR && range.kind != ACCEL_PINNED_NATIVE))
        return ACCEL_OK; /* not a buffer from accel_pin_memory: DeepSpeed's False */
    if (accel_pinned_remove(&acc->pinned, base, range.kind, &bytes) != ACCEL_OK)
        return ACCEL_OK; /* another thread unpinned it first */
    pin_buffer_free(acc, range.kind, (void *)base, bytes);
    free(tensor->shape);
    memset(tensor, 0, sizeof *tensor);
    *out_freed = true;
    return ACCEL_OK;
}

accel_status_t accel_pinned_memory_stats(accel_t *acc, accel_pinned_stats_t *out)
{
    accel_pinned_stats_t stats = {.struct_size = sizeof stats};
    size_t caller_size;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    /* cached_bytes came later: a caller built before it passes the old size
     * (every field up to it); a size between the two is no release's. */
    size_t old_size = offsetof(accel_pinned_stats_t, cached_bytes);
    status = accel_check_struct_size("accel_pinned_stats_t", out != NULL,
                                     out != NULL ? out->struct_size : 0, old_size);
    if (status != ACCEL_OK)
        return status;
    if (out->struct_size > old_size && out->struct_size < sizeof stats)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "accel_pinned_stats_t.struct_size is %zu: neither %zu (a caller "
                           "built before cached_bytes) nor sizeof(accel_pinned_stats_t) (%zu)",
                           out->struct_size, old_size, sizeof stats);
    accel_pinned_bytes(&acc->pinned, &stats.pinned_bytes, &stats.pinned_bytes_peak);
    stats.tracked_bytes = atomic_load(&acc->pin_tracked_bytes);
    stats.pin_count = atomic_load(&acc->pin_count);
    stats.cached_bytes = accel_host_cache_bytes(&acc->host_cache);
    caller_size = out->struct_size < sizeof stats ? old_size : sizeof stats;
    stats.struct_size = out->struct_size;
    memcpy(out, &stats, caller_size);
    return ACCEL_OK;
}
