/* comm_check.h: what the programs of tests/comm/ share: CHECK macros that
 * name the rank, and deterministic per-rank inputs with exactly computable
 * reductions (small integers, so every dtype holds the result exactly and
 * the reference does not depend on the engine's summation order). One rank
 * per process; no threads. */
#ifndef ACCEL_TESTS_COMM_CHECK_H
#define ACCEL_TESTS_COMM_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel.h>
#include <accel/accel_comm.h>

extern int check_rank;     /* this process's rank in the world, for messages */
extern int check_failures; /* failed checks so far */

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "rank %d: %s:%d: CHECK(%s) failed: ", check_rank, __FILE__, __LINE__,  \
                    #cond);                                                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, " [last error: %s]\n", accel_last_error());                            \
        }                                                                                          \
    } while (0)

/* A call expected to succeed. */
#define CHECK_OK(call)                                                                             \
    do {                                                                                           \
        accel_status_t check_status_ = (call);                                                     \
        CHECK(check_status_ == ACCEL_OK, "%s returned %s", #call,                                  \
              accel_status_name(check_status_));                                                   \
    } while (0)

/* A call expected to fail with `status` and a sentence containing `words`. */
#define CHECK_FAILS(call, status, words)                                                           \
    do {                                                                                           \
        accel_status_t check_status_ = (call);                                                     \
        CHECK(check_status_ == (status), "%s returned %s, expected %s", #call,                     \
              accel_status_name(check_status_), accel_status_name(status));                        \
        CHECK(strstr(accel_last_error(), (words)) != NULL, "%s: sentence lacks '%s'", #call,       \
              (words));                                                                            \
    } while (0)

/* The element rank `rank` contributes at `index` for `op` (exact in every
 * dtype for up to 8 ranks). */
static inline double check_input(int rank, size_t index, accel_dtype_t dtype, accel_reduce_op_t op)
{
    bool is_unsigned = dtype == ACCEL_DTYPE_U8;
    switch (op) {
    case ACCEL_REDUCE_PROD: {
        static const double signed_values[] = {1, 2, -1, -2}, unsigned_values[] = {1, 2, 3, 1};
        size_t k = (index + 2 * (size_t)rank) % 4;
        return is_unsigned ? unsigned_values[k] : signed_values[k];
    }
    case ACCEL_REDUCE_MIN:
    case ACCEL_REDUCE_MAX:
        return (double)((index * 5 + (size_t)rank * 7) % 23) - (is_unsigned ? 0 : 11);
    default: /* sum, avg */
        return (double)((index * 7 + (size_t)rank * 3) % 11) - (is_unsigned ? 0 : 5);
    }
}

/* `op` over ranks 0..size-1 of check_input, as `dtype` would hold it (avg:
 * the sum divided by size, truncated toward zero for integers). */
static inline double check_expected(int size, size_t index, accel_dtype_t dtype,
                                    accel_reduce_op_t op, const int *ranks)
{
    double acc = 0;
    for (int i = 0; i < size; i++) {
        int r = ranks != NULL ? ranks[i] : i;
        double v = check_input(r, index, dtype, op);
        if (i == 0)
            acc = v;
        else if (op == ACCEL_REDUCE_SUM || op == ACCEL_REDUCE_AVG)
            acc += v;
        else if (op == ACCEL_REDUCE_PROD)
            acc *= v;
        else if (op == ACCEL_REDUCE_MIN)
            acc = v < acc ? v : acc;
        else
            acc = v > acc ? v : acc;
    }
    if (op == ACCEL_REDUCE_AVG) {
        bool integer =
            dtype == ACCEL_DTYPE_U8 || dtype == ACCEL_DTYPE_I32 || dtype == ACCEL_DTYPE_I64;
        acc = integer ? (double)(int64_t)(acc / size) : acc / size;
    }
    return acc;
}

size_t check_dtype_size(accel_dtype_t dtype);
void check_store(void *buffer, size_t index, accel_dtype_t dtype, double value);
double check_load(const void *buffer, size_t index, accel_dtype_t dtype);
/* Inputs of `rank` for `op` at elements [first, first + count) into
 * buffer[0..count). */
void check_fill(void *buffer, int rank, size_t first, size_t count, accel_dtype_t dtype,
                accel_reduce_op_t op);
/* buffer[0..count) against `op` over `ranks` (NULL: 0..size-1) at
 * [first, first + count); the first wrong element is one failed check. */
void check_verify(const char *what, const void *buffer, size_t first, size_t count,
                  accel_dtype_t dtype, accel_reduce_op_t op, int size, const int *ranks);

#endif /* ACCEL_TESTS_COMM_CHECK_H */
