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

#include "accel/accel_backend_utils.h"

/* The hash, key and get/put/path functions are public, declared in
 * accel/accel_backend_utils.h so plugins can cache their binaries too. */

#endif /* ACCEL_CORE_KERNEL_CACHE_H */
