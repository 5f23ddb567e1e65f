/* backend_helpers.c: the small bodies every backend's slots would otherwise
 * write again (accel/accel_backend_utils.h, "slot bodies"): copying out the
 * dtype list and the device properties. Stateless; any thread. */
#include <string.h>

#include "accel/accel_backend_utils.h"

accel_status_t accel_dtypes_copy_out(const char *backend, const accel_dtype_t *list, size_t count,
                                     accel_dtype_t *out, size_t cap, size_t *out_count)
{
    if (out == NULL && cap > 0)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "%s: dtype output array is NULL but capacity is %zu", backend,
                                   cap);
    for (size_t i = 0; i < count && i < cap; i++)
        out[i] = list[i];
    *out_count = count;
    return ACCEL_OK;
}

accel_status_t accel_device_properties_copy_out(accel_device_properties_t *out,
                                                const accel_device_properties_t *props)
{
    accel_device_properties_t copy = *props;
    size_t size = out->struct_size < sizeof copy ? out->struct_size : sizeof copy;
    copy.struct_size = out->struct_size;
    memcpy(out, &copy, size);
    return ACCEL_OK;
}
