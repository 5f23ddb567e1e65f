/* cnpx.c: the mlu backend's profiler ranges on CNPX (libcnpx.so), the
 * Cambricon counterpart of NVTX that torch_mlu's cnpx.range_push/range_pop
 * call: cnpxRangePush(msg) / cnpxRangePop(). libcnpx.so is dlopened on the
 * first range (ACCEL_MLU_CNPX_LIBRARY, then $NEUWARE_HOME/lib64, then the
 * loader's path) and kept; it is used only when it has both functions.
 * Without it the slots do nothing (core's own trace recorder still records
 * every range); CNPX has no domains or categories, so those are not passed.
 * Threads: the table is filled once under pthread_once; CNPX ranges are per
 * host thread, like accel's. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "backends/mlu/mlu_backend.h"

typedef struct mlu_cnpx_api {
    int (*cnpxRangePush)(const char *message);
    int (*cnpxRangePop)(void);
} mlu_cnpx_api_t;

static pthread_once_t mlu_cnpx_once = PTHREAD_ONCE_INIT;
static mlu_cnpx_api_t mlu_cnpx;
static bool mlu_cnpx_ok;
static char mlu_cnpx_where[256];

static void mlu_cnpx_load(void)
{
    static char home[200];
    const char *root = getenv("NEUWARE_HOME");
    const char *override = getenv("ACCEL_MLU_CNPX_LIBRARY");
    const char *candidates[3];
    size_t n = 0;
    const accel_symbol_t symbols[] = {
        ACCEL_SYMBOL_ENTRY(mlu_cnpx, true, cnpxRangePush, NULL),
        ACCEL_SYMBOL_ENTRY(mlu_cnpx, true, cnpxRangePop, NULL),
    };
    void *library = NULL;
    const char *loaded = NULL;

    if (override != NULL && override[0] != '\0') {
        candidates[n++] = override;
    } else {
        if (root != NULL && root[0] != '\0' &&
            snprintf(home, sizeof home, "%s/lib64/libcnpx.so", root) < (int)sizeof home)
            candidates[n++] = home;
        candidates[n++] = "libcnpx.so";
    }
    for (size_t i = 0; i < n && library == NULL; i++)
        if ((library = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL)) != NULL)
            loaded = candidates[i];
    if (library == NULL) {
        snprintf(mlu_cnpx_where, sizeof mlu_cnpx_where,
                 "no libcnpx.so (tried %s%s%s): ranges go to accel's trace only", candidates[0],
                 n > 1 ? ", " : "", n > 1 ? candidates[1] : "");
        return;
    }
    if (accel_symbol_table_resolve(library, symbols, 2, "mlu", "libcnpx.so", mlu_cnpx_where,
                                   sizeof mlu_cnpx_where) != ACCEL_OK) {
        dlclose(library);
        return;
    }
    snprintf(mlu_cnpx_where, sizeof mlu_cnpx_where, "CNPX ranges through %s", loaded);
    mlu_cnpx_ok = true;
}

bool accel_mlu_cnpx_status(char *out, size_t cap)
{
    pthread_once(&mlu_cnpx_once, mlu_cnpx_load);
    snprintf(out, cap, "%s", mlu_cnpx_where);
    return mlu_cnpx_ok;
}

void accel_mlu_range_push(void *self, const char *msg, const char *domain, const char *category)
{
    (void)self;
    (void)domain;
    (void)category;
    pthread_once(&mlu_cnpx_once, mlu_cnpx_load);
    if (mlu_cnpx_ok && !accel_mlu_forked())
        (void)mlu_cnpx.cnpxRangePush(msg); /* "reserved" result: nothing to act on */
}

void accel_mlu_range_pop(void *self, const char *domain)
{
    (void)self;
    (void)domain;
    pthread_once(&mlu_cnpx_once, mlu_cnpx_load);
    if (mlu_cnpx_ok && !accel_mlu_forked())
        (void)mlu_cnpx.cnpxRangePop();
}
