/* declarations_check.c: the mpi engine's own Open MPI declarations (types.h,
 * symbols.h) compared with the real <mpi.h>. Built only when mpi.h is found;
 * building it is the check (ctest mpi.declarations runs the trivial
 * result). Every mismatch is a compile error: a static assertion per type,
 * constant and function, and per handle that the exported global exists and
 * that the MPI macro expands to that global's address (its text, checked
 * by main, so nothing of libmpi is linked or called). */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "comm/mpi/types.h"

#define SAME_TYPE(a, b) __builtin_types_compatible_p(a, b)

_Static_assert(SAME_TYPE(MPI_Comm, accel_mpi_comm_t), "MPI_Comm");
_Static_assert(SAME_TYPE(MPI_Datatype, accel_mpi_datatype_t), "MPI_Datatype");
_Static_assert(SAME_TYPE(MPI_Op, accel_mpi_op_t), "MPI_Op");
_Static_assert(SAME_TYPE(MPI_Request, accel_mpi_request_t), "MPI_Request");
_Static_assert(SAME_TYPE(MPI_Errhandler, accel_mpi_errhandler_t), "MPI_Errhandler");
_Static_assert(SAME_TYPE(MPI_Status, accel_mpi_status_t), "MPI_Status");

#define SAME_VALUE(real, ours) _Static_assert((real) == (ours), #ours " != " #real)
SAME_VALUE(MPI_SUCCESS, ACCEL_MPI_SUCCESS);
SAME_VALUE(MPI_THREAD_MULTIPLE, ACCEL_MPI_THREAD_MULTIPLE);
SAME_VALUE(MPI_UNDEFINED, ACCEL_MPI_UNDEFINED);
SAME_VALUE(MPI_MAX_ERROR_STRING, ACCEL_MPI_MAX_ERROR_STRING);
SAME_VALUE(MPI_MAX_LIBRARY_VERSION_STRING, ACCEL_MPI_MAX_LIBRARY_VERSION_STRING);

/* Pointer constants cannot be compared in a constant expression: checked at
 * run time by main. */
static int check_pointer_constants(void)
{
    int bad = 0;
    bad += MPI_IN_PLACE != ACCEL_MPI_IN_PLACE;
    bad += (void *)MPI_STATUS_IGNORE != (void *)ACCEL_MPI_STATUS_IGNORE;
    bad += (void *)MPI_STATUSES_IGNORE != (void *)ACCEL_MPI_STATUSES_IGNORE;
    return bad;
}

#define ACCEL_MPI_SYMBOL(required, ret, name, params, export)                                      \
    _Static_assert(SAME_TYPE(__typeof__(&name), ret(*) params), #name " differs from mpi.h");
/* The handle macro has the handle type and the global is declared. */
#define ACCEL_MPI_HANDLE(type, global, mpi_name)                                                   \
    _Static_assert(SAME_TYPE(__typeof__(mpi_name), type), #mpi_name " type");                      \
    _Static_assert(sizeof(&global) > 0, #global " declared");
#include "comm/mpi/symbols.h"
#undef ACCEL_MPI_SYMBOL
#undef ACCEL_MPI_HANDLE

#define EXPANDED(x) #x
#define TEXT_OF(x)  EXPANDED(x)

int main(void)
{
    /* MPI_FLOAT expands to ((MPI_Datatype) ((void *) &(ompi_mpi_float))). */
#define ACCEL_MPI_HANDLE(type, global, mpi_name)                                                   \
    if (strstr(TEXT_OF(mpi_name), "&(" #global ")") == NULL) {                                     \
        printf(#mpi_name " is not &" #global ": %s\n", TEXT_OF(mpi_name));                         \
        return 1;                                                                                  \
    }
#include "comm/mpi/symbols.h"
#undef ACCEL_MPI_HANDLE
    if (check_pointer_constants() != 0) {
        printf("an MPI pointer constant differs\n");
        return 1;
    }
    printf("mpi declarations match mpi.h\n");
    return 0;
}
