/* memory_stat_keys.h: torch's memory_stats() key names over the allocator's
 * statistics (allocator.h), in the order torch returns them (sorted by name).
 * The table is built once, on first use; thread-safe. */
#ifndef ACCEL_CORE_MEMORY_STAT_KEYS_H
#define ACCEL_CORE_MEMORY_STAT_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "allocator.h"

/* How many keys there are. */
size_t accel_memory_stat_key_count(void);

/* Key `index` and its value in `stats`; false past the end. The key is a
 * constant string owned by the library. */
bool accel_memory_stat_key(size_t index, const accel_allocator_stats_t *stats, const char **out_key,
                           uint64_t *out_value);

#endif
