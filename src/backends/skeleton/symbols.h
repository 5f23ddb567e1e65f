/* symbols.h: the skeleton backend's vendor symbol table, one line per
 * function: ACCEL_SKELETON_SYMBOL(return type, name, (parameters)). The
 * skeleton's "vendor runtime" is the C library, so the template runs on
 * every machine; a real backend lists its vendor's calls here instead.
 * No include guard: include it after defining ACCEL_SKELETON_SYMBOL. */
ACCEL_SKELETON_SYMBOL(void *, aligned_alloc, (size_t alignment, size_t size))
ACCEL_SKELETON_SYMBOL(void, free, (void *ptr))
ACCEL_SKELETON_SYMBOL(void *, memcpy, (void *dst, const void *src, size_t size))
ACCEL_SKELETON_SYMBOL(void *, memset, (void *dst, int value, size_t size))
