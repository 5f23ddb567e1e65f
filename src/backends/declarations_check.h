/* declarations_check.h: what every backend's declarations_check.c shares.
 * Such a file compiles the backend's own copy of a vendor's declarations
 * (types.h, symbols.h) against the vendor's real header: compiling is the
 * check. Not part of the library; each file is built only by its
 * <backend>.declarations test, where the real header is installed.
 *
 * For the symbols: define the backend's X-macro to hand each entry on,
 *     #define ACCEL_MLU_SYMBOL(required, ret, name, params, export_name) \
 *         ACCEL_DECLARATION_SYMBOL(ret, name, params)
 * then name the list and the vendor header and include
 * declarations_check_symbols.h, once per list:
 *     #define ACCEL_DECLARATIONS_LIST   "backends/mlu/symbols.h"
 *     #define ACCEL_DECLARATIONS_HEADER "cnrt.h"
 *     #include "backends/declarations_check_symbols.h"
 * Each entry is then checked twice: a static assertion that the real
 * function's type is the one our table gives it, and an assignment of the
 * real function to our pointer type (under -Werror=incompatible-pointer-types)
 * inside a function that is never called or emitted, so nothing links the
 * vendor library. */
#ifndef ACCEL_BACKENDS_DECLARATIONS_CHECK_H
#define ACCEL_BACKENDS_DECLARATIONS_CHECK_H

#define SAME_TYPE(a, b)        __builtin_types_compatible_p(a, b)
#define SAME_VALUE(real, ours) _Static_assert((real) == (ours), #ours " != " #real)

#define ACCEL_DECLARATIONS_CONCAT_(a, b) a##b
#define ACCEL_DECLARATIONS_CONCAT(a, b)  ACCEL_DECLARATIONS_CONCAT_(a, b)

#endif /* ACCEL_BACKENDS_DECLARATIONS_CHECK_H */
