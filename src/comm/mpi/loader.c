/* loader.c: loading libmpi (Open MPI's libmpi.so.40, or ACCEL_MPI_LIBRARY)
 * with dlopen once per process and initialising MPI when the program did
 * not. Thread-safe: the table is filled under pthread_once, initialisation
 * is serialised by a mutex. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "comm/mpi/loader.h"

static pthread_once_t mpi_once = PTHREAD_ONCE_INIT;
accel_mpi_api_t accel_mpi_table;
static bool mpi_loaded;
static char mpi_reason[400];

/* Open MPI's components (the mca_*.so plugins it dlopens during MPI_Init)
 * may resolve symbols of libmpi and libopen-pal through the global scope, as
 * mpi4py documents: the library, opened RTLD_LOCAL like every vendor
 * runtime, is promoted to RTLD_GLOBAL before MPI_Init runs. */
static void mpi_promote_global(void *symbol)
{
    Dl_info info;
    if (dladdr(symbol, &info) != 0 && info.dli_fname != NULL) {
        void *again = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
        if (again != NULL)
            dlclose(again); /* the first handle keeps it loaded */
    }
}

/* A program linked against libmpi that names MPI_COMM_WORLD, MPI_FLOAT...
 * holds copy relocations: its executable has its own copy of each of those
 * objects, and libmpi itself then uses that copy, while dlsym on the
 * library's handle still returns the library's unused original (handing
 * that to MPI crashes it). When the libmpi we loaded is the one in the
 * global scope, its objects are taken from there, where the executable's
 * copies come first. */
static void mpi_prefer_global_objects(void)
{
    void *global_init = dlsym(RTLD_DEFAULT, "MPI_Init_thread");
    if (global_init == NULL || global_init != (void *)accel_mpi_table.MPI_Init_thread)
        return; /* not in the global scope, or another libmpi is */
#define ACCEL_MPI_SYMBOL(required, ret, name, params, export)
#define ACCEL_MPI_HANDLE(type, global, mpi_name)                                                   \
    {                                                                                              \
        void *object = dlsym(RTLD_DEFAULT, #global);                                               \
        if (object != NULL)                                                                        \
            accel_mpi_table.global = object;                                                       \
    }
#include "comm/mpi/symbols.h"
#undef ACCEL_MPI_SYMBOL
#undef ACCEL_MPI_HANDLE
}

static void mpi_load(void)
{
    static const char *const candidates[] = {"libmpi.so.40", "libmpi.so", NULL};
    char tried[256] = "";
    void *library = accel_backend_load_library("mpi", candidates, tried, sizeof tried);
    if (library == NULL) {
        snprintf(mpi_reason, sizeof mpi_reason,
                 "no MPI library (Open MPI's libmpi.so.40) found (tried %s; set ACCEL_MPI_LIBRARY "
                 "or install openmpi-bin)",
                 tried);
        return;
    }
#define ACCEL_MPI_SYMBOL(required, ret, name, params, export)                                      \
    ACCEL_SYMBOL_ENTRY(accel_mpi_table, required, name, export),
#define ACCEL_MPI_HANDLE(type, global, mpi_name)                                                   \
    {#global, NULL, (void *)&accel_mpi_table.global, true},
    const accel_symbol_t symbols[] = {
#include "comm/mpi/symbols.h"
    };
#undef ACCEL_MPI_SYMBOL
#undef ACCEL_MPI_HANDLE
    char missing[256];
    if (accel_symbol_table_resolve(library, symbols, sizeof symbols / sizeof symbols[0], "mpi",
                                   "libmpi", missing, sizeof missing) != ACCEL_OK) {
        snprintf(mpi_reason, sizeof mpi_reason,
                 "%s (accel's mpi engine needs Open MPI 3 or later; MPICH's ABI is not supported)",
                 missing);
        dlclose(library);
        return;
    }
    mpi_prefer_global_objects();
    mpi_promote_global(accel_mpi_table.MPI_Init_thread);
    int length = 0;
    if (accel_mpi_table.MPI_Get_library_version(accel_mpi_table.version, &length) !=
        ACCEL_MPI_SUCCESS)
        snprintf(accel_mpi_table.version, sizeof accel_mpi_table.version, "unknown version");
    accel_mpi_table.version[strcspn(accel_mpi_table.version, ",\n")] = '\0';
    accel_mpi_table.library = library;
    mpi_loaded = true;
}

const accel_mpi_api_t *accel_mpi_api(char *reason, size_t cap)
{
    pthread_once(&mpi_once, mpi_load);
    if (mpi_loaded)
        return &accel_mpi_table;
    if (reason != NULL && cap > 0)
        snprintf(reason, cap, "%s", mpi_reason);
    return NULL;
}

void accel_mpi_error_text(const accel_mpi_api_t *api, int code, char *out, size_t cap)
{
    char text[ACCEL_MPI_MAX_ERROR_STRING] = "";
    int length = 0;
    if (api->MPI_Error_string(code, text, &length) != ACCEL_MPI_SUCCESS || length <= 0)
        snprintf(text, sizeof text, "unknown MPI error");
    snprintf(out, cap, "MPI error %d: %s", code, text);
}

/* MPI must be finalised before the process exits, or mpirun reports the rank
 * as failed ("exited without calling finalize") and kills its peers. It may
 * be initialised once per process, so accel cannot finalise when the last
 * communicator goes (a later accel_comm_init would fail): when accel
 * initialised MPI, it finalises it at exit. MPI_Finalize waits for the other
 * ranks to reach theirs. */
static void mpi_finalize_at_exit(void)
{
    int finalized = 1;
    if (accel_mpi_table.MPI_Finalized(&finalized) == ACCEL_MPI_SUCCESS && !finalized)
        accel_mpi_table.MPI_Finalize();
}

static pthread_mutex_t mpi_init_lock = PTHREAD_MUTEX_INITIALIZER;

accel_status_t accel_mpi_ensure_initialised(const accel_mpi_api_t *api, bool require_initialised)
{
    int initialised = 0, finalized = 0, provided = 0, rc;
    accel_status_t status = ACCEL_OK;
    pthread_mutex_lock(&mpi_init_lock);
    api->MPI_Initialized(&initialised);
    api->MPI_Finalized(&finalized);
    if (finalized) {
        status = accel_backend_error(ACCEL_ERROR_UNAVAILABLE,
                                     "mpi: MPI was already finalised in this process; it cannot be "
                                     "initialised again");
    } else if (!initialised && require_initialised) {
        status = accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                     "mpi: accel_comm_init_mpi needs MPI initialised by the caller "
                                     "(MPI_Init_thread) before it is given an MPI_Comm");
    } else if (!initialised) {
        rc = api->MPI_Init_thread(NULL, NULL, ACCEL_MPI_THREAD_MULTIPLE, &provided);
        if (rc != ACCEL_MPI_SUCCESS) {
            char text[300];
            accel_mpi_error_text(api, rc, text, sizeof text);
            status = accel_backend_vendor_error(rc, "mpi: MPI_Init_thread failed: %s", text);
        } else {
            atexit(mpi_finalize_at_exit);
        }
    } else if (api->MPI_Query_thread(&provided) == ACCEL_MPI_SUCCESS &&
               provided < ACCEL_MPI_THREAD_MULTIPLE) {
        accel_log(ACCEL_LOG_WARN,
                  "mpi: MPI was initialised with thread level %d, below MPI_THREAD_MULTIPLE: use "
                  "accel communicators from one thread at a time",
                  provided);
    }
    pthread_mutex_unlock(&mpi_init_lock);
    return status;
}
