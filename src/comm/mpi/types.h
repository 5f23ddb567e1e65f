/* types.h: the Open MPI ABI the mpi engine is written against, declared
 * here because libmpi is opened with dlopen and <mpi.h> is not needed to
 * build accel. In Open MPI every handle is a pointer to an exported global
 * (MPI_COMM_WORLD is &ompi_mpi_comm_world, MPI_FLOAT &ompi_mpi_float...), so
 * the engine finds the handles with dlsym like the functions. MPICH's
 * integer handles are not supported (docs/comm.md). declarations_check.c
 * compares every type and constant with the real <mpi.h>. */
#ifndef ACCEL_COMM_MPI_TYPES_H
#define ACCEL_COMM_MPI_TYPES_H

#include <stddef.h>

typedef struct ompi_communicator_t *accel_mpi_comm_t;
typedef struct ompi_datatype_t *accel_mpi_datatype_t;
typedef struct ompi_op_t *accel_mpi_op_t;
typedef struct ompi_request_t *accel_mpi_request_t;
typedef struct ompi_errhandler_t *accel_mpi_errhandler_t;

/* MPI_Status, Open MPI's struct tag; left incomplete: the engine passes
 * MPI_STATUS_IGNORE only. */
typedef struct ompi_status_public_t accel_mpi_status_t;

#define ACCEL_MPI_SUCCESS                    0
#define ACCEL_MPI_THREAD_MULTIPLE            3
#define ACCEL_MPI_UNDEFINED                  (-32766)
#define ACCEL_MPI_IN_PLACE                   ((void *)1)
#define ACCEL_MPI_STATUS_IGNORE              ((accel_mpi_status_t *)0)
#define ACCEL_MPI_STATUSES_IGNORE            ((accel_mpi_status_t *)0)
#define ACCEL_MPI_MAX_ERROR_STRING           256
#define ACCEL_MPI_MAX_LIBRARY_VERSION_STRING 256

#endif /* ACCEL_COMM_MPI_TYPES_H */
