/* declarations_check_symbols.h: checks every entry of the symbols list
 * ACCEL_DECLARATIONS_LIST against the vendor header named
 * ACCEL_DECLARATIONS_HEADER (declarations_check.h says how to use it).
 * Included once per list, so it has no include guard; it undefines both
 * names at its end. */
#ifndef ACCEL_DECLARATIONS_LIST
#error "define ACCEL_DECLARATIONS_LIST (the symbols.h to check) first"
#endif
#ifndef ACCEL_DECLARATIONS_HEADER
#error "define ACCEL_DECLARATIONS_HEADER (the vendor header's name) first"
#endif

#define ACCEL_DECLARATION_SYMBOL(ret, name, params)                                                \
    _Static_assert(SAME_TYPE(__typeof__(&name), ret(*) params),                                    \
                   #name " differs from " ACCEL_DECLARATIONS_HEADER);
#include ACCEL_DECLARATIONS_LIST
#undef ACCEL_DECLARATION_SYMBOL

/* The same as assignments, as a caller would write them; never called. */
__attribute__((unused)) static void ACCEL_DECLARATIONS_CONCAT(check_assignments_, __COUNTER__)(void)
{
#define ACCEL_DECLARATION_SYMBOL(ret, name, params)                                                \
    {                                                                                              \
        ret(*ours) params = name;                                                                  \
        (void)ours;                                                                                \
    }
#include ACCEL_DECLARATIONS_LIST
#undef ACCEL_DECLARATION_SYMBOL
}

#undef ACCEL_DECLARATIONS_LIST
#undef ACCEL_DECLARATIONS_HEADER
