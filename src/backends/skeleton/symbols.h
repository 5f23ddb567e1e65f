/* symbols.h: the skeleton backend's vendor symbol table, one line per
 * function: ACCEL_SKELETON_SYMBOL(required, return type, name, (parameters),
 * versioned export name or NULL), the shape accel_backend_utils.h's
 * ACCEL_SYMBOL_ENTRY expects. The
 * skeleton's "vendor runtime" is the C library, so the template runs on
 * every machine; a real backend lists its vendor's calls here instead.
 * No include guard: include it after defining ACCEL_SKELETON_SYMBOL. */
/* An X-macro list read as data, one vendor call per entry: not reformatted. */
/* clang-format off */
ACCEL_SKELETON_SYMBOL(true, void *, aligned_alloc, (size_t alignment, size_t size), NULL)
ACCEL_SKELETON_SYMBOL(true, void, free, (void *ptr), NULL)
ACCEL_SKELETON_SYMBOL(true, void *, memcpy, (void *dst, const void *src, size_t size), NULL)
ACCEL_SKELETON_SYMBOL(true, void *, memset, (void *dst, int value, size_t size), NULL)
/* clang-format on */
