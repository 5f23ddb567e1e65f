/* adversarial.h: what the adversarial tests share. They run over the
 * backend ACCEL_ACCELERATOR names (main.c opens it with accel_get), using
 * only the public headers, so the same cases run on cpu, opencl, the
 * skeleton and every simulated vendor runtime.
 *
 * Every case is one hostile call that must be refused with a named status,
 * a sentence in accel_last_error(), and no change: the memory around the
 * tensors, the files, and the allocator's and pinned counters are compared
 * before and after. A case that fails is reported (name and what changed)
 * and the test goes on with the next, so one run lists every failure.
 * Single-threaded; one accel_t per process. */
#ifndef ACCEL_TESTS_ADVERSARIAL_H
#define ACCEL_TESTS_ADVERSARIAL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <accel/accel.h>
#include <accel/accel_ops.h>

/* The accelerator under test (main.c). */
extern accel_t *adv_acc;

/* Cases run and cases failed so far (all tests). */
extern unsigned adv_cases, adv_failed;

/* Record one case: `ok` or a failure described by the format. */
void adv_case(bool ok, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* A call that must return `want` (not ACCEL_OK) with a sentence; records
 * the case and returns whether it held. */
bool adv_refused(accel_status_t got, accel_status_t want, const char *what);

/* The backend's DLPack device type, and whether its device memory is host
 * memory (kDLCPU: cpu, the skeleton). */
int32_t adv_device_type(void);
bool adv_device_is_host(void);

/* ---- hostile tensors (hostile.c) */

/* A tensor built from a valid one; `null` stands for a NULL DLTensor *. */
typedef struct adv_tensor {
    DLTensor t;
    int64_t shape[4];
    int64_t strides[4];
    bool null;
} adv_tensor_t;

/* A copy of the valid 1-D tensor `good` (its shape copied into out). */
void adv_tensor_copy(const DLTensor *good, adv_tensor_t *out);
/* The index-th hostile variant of `good`, a valid 1-D tensor of n > 1
 * elements over live memory: its name, or NULL past the last. Layout and
 * size variants only (placement variants depend on the call). */
const char *adv_hostile_variant(size_t index, const DLTensor *good, adv_tensor_t *out);
static inline DLTensor *adv_tensor_ptr(adv_tensor_t *a)
{
    return a->null ? NULL : &a->t;
}

/* ---- memory that must not change (hostile.c) */

/* An arena of `size` bytes in host memory (posix_memalign'd) or device
 * memory (accel_malloc), filled with a pattern whose copy is kept. */
typedef struct adv_arena {
    uint8_t *data;
    size_t size;
    bool device;
    uint8_t *expect;
} adv_arena_t;

void adv_arena_make(adv_arena_t *arena, size_t size, bool device);
void adv_arena_free(adv_arena_t *arena);
/* Byte offset of the first changed byte, or -1 when none changed; a
 * changed arena gets its pattern back. */
long adv_arena_changed(const adv_arena_t *arena);
void adv_arena_restore(const adv_arena_t *arena);

/* The allocator's and pinned counters of device 0, compared whole. */
typedef struct adv_counters {
    accel_memory_stats_t memory;
    accel_pinned_stats_t pinned;
} adv_counters_t;

void adv_counters_read(adv_counters_t *out);
bool adv_counters_same(const adv_counters_t *a, const adv_counters_t *b);

/* An op table from the builder `class_name`, or NULL (with the reason
 * printed) when this backend cannot load it. */
const void *adv_load_op(const char *class_name);

/* The groups (one per file); each returns cmocka's failure count. */
int adv_run_tensor_tests(void);
int adv_run_free_tests(void);
int adv_run_struct_size_tests(void);
int adv_run_callback_tests(void);

#endif /* ACCEL_TESTS_ADVERSARIAL_H */
