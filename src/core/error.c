/* error.c: status names and the thread-local last-error sentence.
 * Each thread owns its buffers (thread-local storage); no locks. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "accel/accel_backend.h"

static _Thread_local char thread_error[1024];
static _Thread_local int64_t thread_vendor_error;

static const char *const status_names[] = {
    [ACCEL_OK] = "ACCEL_OK",
    [ACCEL_ERROR_INVALID_ARGUMENT] = "ACCEL_ERROR_INVALID_ARGUMENT",
    [ACCEL_ERROR_NOT_FOUND] = "ACCEL_ERROR_NOT_FOUND",
    [ACCEL_ERROR_UNAVAILABLE] = "ACCEL_ERROR_UNAVAILABLE",
    [ACCEL_ERROR_UNSUPPORTED] = "ACCEL_ERROR_UNSUPPORTED",
    [ACCEL_ERROR_OUT_OF_MEMORY] = "ACCEL_ERROR_OUT_OF_MEMORY",
    [ACCEL_ERROR_NOT_READY] = "ACCEL_ERROR_NOT_READY",
    [ACCEL_ERROR_DEVICE_ERROR] = "ACCEL_ERROR_DEVICE_ERROR",
    [ACCEL_ERROR_INTERNAL] = "ACCEL_ERROR_INTERNAL",
};

const char *accel_status_name(accel_status_t status)
{
    if ((unsigned)status >= sizeof status_names / sizeof status_names[0])
        return "ACCEL_ERROR_UNKNOWN_STATUS";
    return status_names[status];
}

const char *accel_last_error(void)
{
    return thread_error;
}

int64_t accel_last_vendor_error(void)
{
    return thread_vendor_error;
}

static void error_vformat(const char *fmt, va_list args)
{
    vsnprintf(thread_error, sizeof thread_error, fmt, args);
}

/* Also core's accel_error (error.h). */
accel_status_t accel_backend_error(accel_status_t status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    error_vformat(fmt, args);
    va_end(args);
    thread_vendor_error = 0;
    return status;
}

accel_status_t accel_backend_vendor_error(int64_t vendor_code, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    error_vformat(fmt, args);
    va_end(args);
    thread_vendor_error = vendor_code;
    return ACCEL_ERROR_DEVICE_ERROR;
}

accel_status_t accel_error_text(accel_status_t status, const char *text)
{
    size_t length = strlen(text);
    if (length >= sizeof thread_error)
        length = sizeof thread_error - 1;
    memcpy(thread_error, text, length);
    thread_error[length] = '\0';
    thread_vendor_error = 0;
    return status;
}

void accel_error_prefix(const char *prefix)
{
    char old[sizeof thread_error];
    memcpy(old, thread_error, sizeof old);
    snprintf(thread_error, sizeof thread_error, "%s%s", prefix, old);
}

void accel_error_copy(char *out, size_t cap)
{
    if (cap == 0)
        return;
    snprintf(out, cap, "%s", thread_error);
}
