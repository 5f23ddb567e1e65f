/* fake_nodev.h: a backend for unit tests whose runtime is "present" but
 * which has no device. Every slot that would need a device counts itself in
 * fake_device_calls and fails, so a test can check that core never asked.
 * Header-only (static functions): include it in one test file each.
 * fake_nodev_ops() builds a table under any name and info; the tables must
 * outlive their registration (the process). */
#ifndef ACCEL_TESTS_FAKE_NODEV_H
#define ACCEL_TESTS_FAKE_NODEV_H

#include <stdio.h>

#include "accel/accel_backend.h"

static int fake_device_calls; /* slots that need a device, called anyway */

static void fake_probe(accel_probe_result_t *out)
{
    out->available = true;
    out->device_count = 0;
    snprintf(out->reason, sizeof out->reason, "runtime loaded, 0 devices");
}

static int fake_state;

static accel_status_t fake_create(void **out_self)
{
    *out_self = &fake_state;
    return ACCEL_OK;
}

static void fake_destroy(void *self)
{
    (void)self;
}

static accel_status_t fake_device_work(void)
{
    fake_device_calls++;
    return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR, "fake: device work reached the backend");
}

static accel_status_t fake_init(void *self)
{
    (void)self;
    return fake_device_work(); /* a vendor init fails without a device */
}

static accel_status_t fake_device_count(void *self, int *out)
{
    (void)self;
    *out = 0;
    return ACCEL_OK;
}

static accel_status_t fake_synchronize(void *self, int device)
{
    (void)self;
    (void)device;
    return fake_device_work();
}

static accel_status_t fake_supported_dtypes(void *self, int device, accel_dtype_t *out, size_t cap,
                                            size_t *out_count)
{
    (void)self;
    (void)device;
    (void)out;
    (void)cap;
    (void)out_count;
    return fake_device_work();
}

static accel_status_t fake_mem_alloc(void *self, int device, size_t size, void **out)
{
    (void)self;
    (void)device;
    (void)size;
    (void)out;
    return fake_device_work();
}

static void fake_mem_free(void *self, int device, void *ptr)
{
    (void)self;
    (void)device;
    (void)ptr;
    fake_device_calls++;
}

static accel_status_t fake_memcpy_async(void *self, int device, void *dst, const void *src,
                                        size_t size, accel_copy_kind_t kind, void *stream)
{
    (void)self;
    (void)device;
    (void)dst;
    (void)src;
    (void)size;
    (void)kind;
    (void)stream;
    return fake_device_work();
}

static accel_status_t fake_memset_async(void *self, int device, void *dst, int value, size_t size,
                                        void *stream)
{
    (void)self;
    (void)device;
    (void)dst;
    (void)value;
    (void)size;
    (void)stream;
    return fake_device_work();
}

static accel_status_t fake_host_alloc(void *self, size_t size, void **out)
{
    (void)self;
    (void)size;
    (void)out;
    return fake_device_work();
}

static void fake_host_free(void *self, void *ptr, size_t size)
{
    (void)self;
    (void)ptr;
    (void)size;
    fake_device_calls++;
}

static accel_status_t fake_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                    void *ptr, size_t count, uint64_t seed, uint64_t offset)
{
    (void)self;
    (void)device;
    (void)stream;
    (void)kind;
    (void)ptr;
    (void)count;
    (void)seed;
    (void)offset;
    return fake_device_work();
}

static accel_backend_ops_t fake_nodev_ops(const char *name, const accel_backend_info_t *info)
{
    return (accel_backend_ops_t){
        .abi_version = ACCEL_BACKEND_ABI_VERSION,
        .struct_size = sizeof(accel_backend_ops_t),
        .name = name,
        .info = info,
        .probe = fake_probe,
        .create = fake_create,
        .destroy = fake_destroy,
        .init = fake_init,
        .device_count = fake_device_count,
        .synchronize = fake_synchronize,
        .supported_dtypes = fake_supported_dtypes,
        .mem_alloc = fake_mem_alloc,
        .mem_free = fake_mem_free,
        .memcpy_async = fake_memcpy_async,
        .memset_async = fake_memset_async,
        .host_alloc = fake_host_alloc,
        .host_free = fake_host_free,
        .rng_fill = fake_rng_fill,
    };
}

#endif
