/* kernel_cache.h: an on-disk cache of compiled device kernels (OpenCL program
 * binaries, CUDA cubins...), shared by the backends that compile at run time.
 *
 * Where: ACCEL_CACHE_DIR, else $XDG_CACHE_HOME/accel, else ~/.cache/accel;
 * entries are files <dir>/kernels/<key>.bin. A key is the hex digest of
 * everything that changes the binary (source, build options, device name,
 * driver and platform versions); the backend builds it with the hash below.
 * Each file carries a header (magic, key, size, checksum): a truncated,
 * corrupt or foreign file (or a FIFO or anything else that is not a regular
 * file) reads as a miss, so the caller builds from source.
 * Threads and processes: stateless, safe from any thread; put() writes a
 * temporary file in the same folder and renames it over the entry, so
 * concurrent writers (threads or processes) leave one complete file. */
#ifndef ACCEL_CORE_KERNEL_CACHE_H
#define ACCEL_CORE_KERNEL_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "accel/accel.h"

/* 128-bit FNV-1a over length-prefixed parts (so "ab"+"c" != "a"+"bc"). */
typedef struct accel_kernel_hash {
    unsigned __int128 state;
} accel_kernel_hash_t;

#define ACCEL_KERNEL_KEY_SIZE 33 /* 32 hex digits + NUL */

void accel_kernel_hash_init(accel_kernel_hash_t *hash);
void accel_kernel_hash_add(accel_kernel_hash_t *hash, const void *data, size_t size);
void accel_kernel_hash_add_string(accel_kernel_hash_t *hash, const char *text);
/* The key: 32 lowercase hex digits. */
void accel_kernel_hash_key(const accel_kernel_hash_t *hash, char out[ACCEL_KERNEL_KEY_SIZE]);

/* The file an entry lives in; UNAVAILABLE when no cache folder can be named
 * (no ACCEL_CACHE_DIR, XDG_CACHE_HOME or HOME). */
accel_status_t accel_kernel_cache_path(const char *key, char *out, size_t cap);

/* The entry's bytes in *out (malloc'ed; the caller frees), or NOT_FOUND on a
 * miss or an unusable file (the reason is logged at debug level). */
accel_status_t accel_kernel_cache_get(const char *key, void **out, size_t *out_size);

/* Store `size` bytes under `key`, replacing any entry atomically. Failures
 * (read-only home, full disk) return a status and change nothing. */
accel_status_t accel_kernel_cache_put(const char *key, const void *data, size_t size);

#endif /* ACCEL_CORE_KERNEL_CACHE_H */
