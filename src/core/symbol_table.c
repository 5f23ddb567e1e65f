/* symbol_table.c: resolving a backend's vendor function table from a dlopen
 * handle (accel_symbol_table_resolve, accel/accel_backend_utils.h), all or
 * nothing. A missing symbol is a fact about the installed library, not a
 * caller's mistake: it goes to `reason`, and the last error is left alone.
 * Threads: writes only the caller's slots; the caller runs it once per table
 * before other threads read it. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "accel/accel_backend_utils.h"

/* dlsym returns object pointers; the slots are function pointers, written by
 * copying the bytes (POSIX requires the two to have one representation). */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "function and object pointers differ in size");

static void symbol_table_clear(const accel_symbol_t *symbols, size_t count)
{
    void *none = NULL;
    for (size_t i = 0; i < count; i++)
        memcpy(symbols[i].slot, &none, sizeof none);
}

static void *symbol_lookup(void *library, const accel_symbol_t *symbol)
{
    void *address = symbol->export_name != NULL ? dlsym(library, symbol->export_name) : NULL;
    if (address == NULL)
        address = dlsym(library, symbol->name);
    return address;
}

accel_status_t accel_symbol_table_resolve(void *library, const accel_symbol_t *symbols,
                                          size_t count, const char *backend,
                                          const char *library_name, char *reason, size_t reason_cap)
{
    if (backend == NULL)
        backend = "backend";
    if (library_name == NULL)
        library_name = "the vendor library";
    if (library == NULL || (symbols == NULL && count > 0))
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "%s: no %s to resolve symbols from", backend,
                                   library == NULL ? "library handle" : "symbol list");
    for (size_t i = 0; i < count; i++) {
        if (symbols[i].name == NULL || symbols[i].slot == NULL)
            return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                       "%s: symbol descriptor %zu has no name or slot", backend, i);
    }
    for (size_t i = 0; i < count; i++) {
        void *address = symbol_lookup(library, &symbols[i]);
        memcpy(symbols[i].slot, &address, sizeof address);
        if (address == NULL && symbols[i].required) {
            symbol_table_clear(symbols, count);
            if (reason != NULL && reason_cap > 0)
                snprintf(reason, reason_cap, "%s lacks %s, which the %s backend requires",
                         library_name, symbols[i].name, backend);
            return ACCEL_ERROR_UNSUPPORTED;
        }
    }
    return ACCEL_OK;
}
