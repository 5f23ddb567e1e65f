/* cnpx.c: the mlu backend's profiler ranges on CNPX (libcnpx.so), the
 * Cambricon counterpart of NVTX that torch_mlu's cnpx.range_push/range_pop
 * call: cnpxRangePush(msg) / cnpxRangePop(). libcnpx.so is loaded by the
 * kit's vendor-library loader on the first range (ACCEL_MLU_CNPX_LIBRARY,
 * then $NEUWARE_HOME/lib64, then the loader's path) and kept; it is used
 * only when it has both functions. Without it the slots do nothing (core's
 * own trace recorder still records every range, and why CNPX is not used
 * goes to the debug log once); CNPX has no domains or categories, so those
 * are not passed. Threads: the loader fills the table once under its lock;
 * CNPX ranges are per host thread, like accel's. */
#include <pthread.h>

#include "backends/mlu/mlu_backend.h"

typedef struct mlu_cnpx_api {
    int (*cnpxRangePush)(const char *message);
    int (*cnpxRangePop)(void);
} mlu_cnpx_api_t;

static mlu_cnpx_api_t mlu_cnpx_api;

static const accel_symbol_t mlu_cnpx_symbols[] = {
    ACCEL_SYMBOL_ENTRY(mlu_cnpx_api, true, cnpxRangePush, NULL),
    ACCEL_SYMBOL_ENTRY(mlu_cnpx_api, true, cnpxRangePop, NULL),
};

static const char *const mlu_cnpx_homes[] = {"NEUWARE_HOME", NULL};
static const char *const mlu_cnpx_names[] = {"libcnpx.so", NULL};

static accel_vendor_library_t mlu_cnpx = {
    .name = "mlu_cnpx",
    .backend = "mlu",
    .home_vars = mlu_cnpx_homes,
    .home_file = "lib64/libcnpx.so",
    .candidates = mlu_cnpx_names,
    .symbols = mlu_cnpx_symbols,
    .symbol_count = sizeof mlu_cnpx_symbols / sizeof mlu_cnpx_symbols[0],
    .not_found = "mlu: no libcnpx.so",
    .symbols_in = "libcnpx.so",
};

static void mlu_cnpx_say_why(void)
{
    accel_log(ACCEL_LOG_DEBUG, "%s; ranges go to accel's trace only", mlu_cnpx.text);
}

/* The table when libcnpx.so loaded (NULL otherwise, said once). */
static const mlu_cnpx_api_t *mlu_cnpx_loaded(void)
{
    static pthread_once_t said = PTHREAD_ONCE_INIT;
    if (accel_vendor_library_open(&mlu_cnpx, NULL, 0))
        return &mlu_cnpx_api;
    pthread_once(&said, mlu_cnpx_say_why);
    return NULL;
}

void accel_mlu_range_push(void *self, const char *msg, const char *domain, const char *category)
{
    const mlu_cnpx_api_t *cnpx = mlu_cnpx_loaded();
    (void)self;
    (void)domain;
    (void)category;
    if (cnpx != NULL && !accel_mlu_forked())
        (void)cnpx->cnpxRangePush(msg); /* "reserved" result: nothing to act on */
}

void accel_mlu_range_pop(void *self, const char *domain)
{
    const mlu_cnpx_api_t *cnpx = mlu_cnpx_loaded();
    (void)self;
    (void)domain;
    if (cnpx != NULL && !accel_mlu_forked())
        (void)cnpx->cnpxRangePop();
}
