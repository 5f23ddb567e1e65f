/* loader.h: libmpi opened with dlopen once per process (never closed): its
 * function table, the Open MPI handles it exports, and MPI's own
 * initialisation as accel does it. Thread-safe: loaded under pthread_once,
 * read-only afterwards. */
#ifndef ACCEL_COMM_MPI_LOADER_H
#define ACCEL_COMM_MPI_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "accel/accel.h"
#include "comm/mpi/types.h"

typedef struct accel_mpi_api {
#define ACCEL_MPI_SYMBOL(required, ret, name, params, export) ret(*name) params;
#define ACCEL_MPI_HANDLE(type, global, mpi_name)              void *global;
#include "comm/mpi/symbols.h"
#undef ACCEL_MPI_SYMBOL
#undef ACCEL_MPI_HANDLE
    void *library;
    char version[ACCEL_MPI_MAX_LIBRARY_VERSION_STRING]; /* first line of the version */
} accel_mpi_api_t;

/* The loaded table, or NULL with why not in `reason` (the library, its
 * override ACCEL_MPI_LIBRARY and every place tried, or the missing symbol). */
const accel_mpi_api_t *accel_mpi_api(char *reason, size_t cap);

/* The same table, for the engine's calls once accel_mpi_api has returned it
 * (every engine communicator is made after that): written only inside the
 * pthread_once of the first accel_mpi_api, read-only afterwards. */
extern accel_mpi_api_t accel_mpi_table;

/* MPI initialised with MPI_THREAD_MULTIPLE when nobody did it yet (accel
 * then finalises it at process exit, see loader.c); a library that was
 * initialised by the caller is used as it is. `require_initialised`: the
 * caller promised MPI is initialised (accel_comm_init_mpi); refused if not. */
accel_status_t accel_mpi_ensure_initialised(const accel_mpi_api_t *api, bool require_initialised);

/* MPI's sentence for an error code ("MPI_ERR_TRUNCATE: message truncated"). */
void accel_mpi_error_text(const accel_mpi_api_t *api, int code, char *out, size_t cap);

#endif /* ACCEL_COMM_MPI_LOADER_H */
