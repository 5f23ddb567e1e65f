/* error.h: the thread-local "last error" of every accel call.
 * Each thread has its own buffer; nothing here takes a lock. */
#ifndef ACCEL_CORE_ERROR_H
#define ACCEL_CORE_ERROR_H

#include "accel/accel.h"
#include "accel/accel_backend.h"

/* Record `status` and a formatted sentence for this thread; returns status.
 * Core's name for accel_backend_error() (accel_backend.h), the one function
 * that does this: backends and plugins need the exported name, and core
 * keeps its shorter spelling at its many call sites. Clears the vendor
 * code (accel_backend_vendor_error sets one). */
#define accel_error accel_backend_error
/* accel_error with a fixed sentence, copied without formatting: for the
 * answers a caller polls for (NOT_READY from a query), which must stay
 * cheap. */
accel_status_t accel_error_text(accel_status_t status, const char *text);
/* Keep the current sentence but prefix it: "cuda: " + old text. */
void accel_error_prefix(const char *prefix);
/* Copy this thread's sentence (for deferred errors such as a failed init). */
void accel_error_copy(char *out, size_t cap);

#endif
