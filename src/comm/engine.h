/* engine.h: the contract between accel's communicator layer (src/comm/)
 * and one collectives engine (src/comm/<engine>/): MPI, NCCL, Ascend HCCL,
 * Habana HCCL, CNCL, oneCCL, TCCL.
 *
 * Division of work. The layer validates every argument (handles, counts,
 * dtypes, ops, roots, peers, buffer ranges against the allocator), resolves
 * the stream, turns dtypes and ops into the engine's codes through the
 * engine's tables, emulates what the engine lacks (avg: sum, then a scale on
 * the stream; a reduce or in-place broadcast an engine cannot do directly),
 * bootstraps ranks (MPI, or the engine's own unique-id rendezvous) and
 * splits communicators. An engine only binds its library: it is called with
 * arguments already checked and converted, and reports a failure with
 * accel_backend_vendor_error naming its function and the library's own code
 * and text.
 *
 * Adding an engine: its folder with one .c file defining
 * `const accel_comm_engine_t accel_comm_engine_<name>`, its symbol table
 * (X-macro, accel_backend_utils.h), its line in src/comm/engines.c, its
 * sources in src/comm/CMakeLists.txt, and a declarations test against the
 * real header where one can be fetched.
 *
 * Threads: load() may be called from any thread, any number of times (it
 * loads once); every other entry is called by the layer with the
 * communicator's lock held, so an engine communicator is never used by two
 * threads at once.
 */
#ifndef ACCEL_COMM_ENGINE_H
#define ACCEL_COMM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "accel/accel_backend.h"
#include "accel/accel_comm.h"

/* Engine code for a dtype / op that the engine does not have. */
#define ACCEL_COMM_NO_CODE (-1)

/* Where an engine's buffers live and how its calls are ordered. */
typedef enum accel_comm_engine_kind {
    /* Host memory; calls are synchronous on the calling thread (the layer
     * synchronizes the stream first). MPI. */
    ACCEL_COMM_ENGINE_HOST = 0,
    /* Device memory; calls enqueue on the vendor stream that the backend's
     * native_stream slot gives, and return. NCCL and the others. */
    ACCEL_COMM_ENGINE_DEVICE = 1,
} accel_comm_engine_kind_t;

/* What the layer passes to init: the backend and device the communicator
 * belongs to (engines of kind DEVICE call acc_ops->native_stream to make the
 * device current before initialising), and the timeout. */
typedef struct accel_comm_engine_ctx {
    const accel_backend_ops_t *ops;
    void *self;
    int device;
    double timeout_s;
} accel_comm_engine_ctx_t;

typedef struct accel_comm_engine {
    const char *name; /* "mpi", "nccl", "hccl", "habana-hccl", "cncl", "oneccl", "tccl" */
    accel_comm_engine_kind_t kind;
    /* accel backends this engine serves (NULL-terminated; "*" for any
     * backend whose memory is host memory, i.e. whose DLPack device type is
     * kDLCPU: a backend without native_stream may still have device memory
     * the host cannot address, as opencl does). A plugin "xpu.external"
     * matches "xpu". */
    const char *const *backends;

    /* Load the library once. UNAVAILABLE, with a sentence naming the library,
     * its override variable and every place tried, when it does not load or
     * lacks a required symbol. `detail` (may be NULL) gets the file loaded and
     * its version, or why not, for accel_comm_engine_info. */
    accel_status_t (*load)(char *detail, size_t detail_cap);

    /* Codes of accel dtypes and ops in the engine's own numbering;
     * ACCEL_COMM_NO_CODE where it has none (dtype: the call is refused with
     * UNSUPPORTED naming the engine; avg: emulated). */
    int dtype_codes[ACCEL_DTYPE_COUNT_];
    int op_codes[ACCEL_REDUCE_COUNT_];

    /* ---- how ranks meet
     * Engines that bootstrap themselves (MPI) set unique_id_size 0 and
     * init_world. Engines with a unique id: rank 0 calls unique_id, the
     * layer hands the bytes to every rank (MPI broadcast), then every rank
     * calls init. Without MPI, `rendezvous_env` is set from MASTER_ADDR and
     * MASTER_PORT and no bytes travel: rank 0 calls unique_id, and each
     * other rank calls it too when `unique_id_every_rank` (the id is then
     * read from the variable alike everywhere), else passes a zeroed id. */
    size_t unique_id_size;
    const char *rendezvous_env; /* "NCCL_COMM_ID", "HCCL_COMM_ID"; NULL: none */
    /* NCCL: true, ncclGetUniqueId only parses NCCL_COMM_ID (src/bootstrap.cc,
     * bootstrapGetUniqueId) and rank 0's ncclCommInitRank starts the root
     * there, so every rank needs that id. Habana HCL: false, its
     * hcclGetUniqueId starts the coordinator on the caller (so a second
     * caller collides on the port) and a process's first hcclCommInitRank
     * ignores the id it is given (src/comm/habana_hccl/engine.c says where). */
    bool unique_id_every_rank;
    /* DEVICE engines: called with the communicator's device current on the
     * thread (the layer activates it first, accel_comm_engine_unique_id). */
    accel_status_t (*unique_id)(void *out);
    accel_status_t (*init)(const accel_comm_engine_ctx_t *ctx, int nranks, int rank,
                           const void *unique_id, void **out_comm);
    /* MPI: a communicator over the launcher's world (`mpi_comm` NULL) or over
     * the caller's MPI_Comm (`mpi_comm` points at its value); reports the
     * rank and size. NULL for unique-id engines. */
    accel_status_t (*init_world)(const accel_comm_engine_ctx_t *ctx, const void *mpi_comm,
                                 void **out_comm, int *out_rank, int *out_size);
    /* Optional; NULL: the layer splits with all_gather and a new unique id
     * per color. `*out_comm` NULL for color ACCEL_COMM_SPLIT_NONE. */
    accel_status_t (*split)(void *comm, int color, int key, void **out_comm);
    /* Waits for what the communicator has queued, then frees it. */
    accel_status_t (*destroy)(void *comm);

    /* ---- collectives: codes from the tables above; `stream` is the vendor
     * stream (DEVICE) or NULL (HOST). */
    accel_status_t (*all_reduce)(void *comm, const void *send, void *recv, size_t count, int dtype,
                                 int op, void *stream);
    accel_status_t (*all_gather)(void *comm, const void *send, void *recv, size_t send_count,
                                 int dtype, void *stream);
    accel_status_t (*reduce_scatter)(void *comm, const void *send, void *recv, size_t recv_count,
                                     int dtype, int op, void *stream);
    /* send == recv for in place; engines that only broadcast in place
     * (Ascend HCCL) get send == recv from the layer, which copies first. */
    accel_status_t (*broadcast)(void *comm, const void *send, void *recv, size_t count, int dtype,
                                int root, void *stream);
    bool broadcast_in_place_only;
    /* Optional (NULL: the layer reduces with all_reduce into a scratch
     * buffer and copies on the root). */
    accel_status_t (*reduce)(void *comm, const void *send, void *recv, size_t count, int dtype,
                             int op, int root, void *stream);
    accel_status_t (*send)(void *comm, const void *buf, size_t count, int dtype, int peer,
                           void *stream);
    accel_status_t (*recv)(void *comm, void *buf, size_t count, int dtype, int peer, void *stream);
    /* Optional (NULL: the layer all-reduces one element). */
    accel_status_t (*barrier)(void *comm, void *stream);
    /* Optional as a pair (NULL: calls run as they come). Per thread; the
     * layer handles nesting and calls these for the outermost group only. */
    accel_status_t (*group_start)(void);
    accel_status_t (*group_end)(void);

    /* ---- per-op capability (appended: members above keep their places)
     * Optional (NULL: a reduction works for every dtype and op that have
     * codes). Whether the library reduces `dtype` with `op` (accel's enums;
     * avg is asked as the sum the layer emulates it with) on the device
     * `ctx` names; when not, false and a sentence in `why` (the vendor's
     * rule and where it is written). The layer asks before every
     * all_reduce, reduce_scatter and reduce that goes through it, and a
     * false answer refuses the call with UNSUPPORTED: the library is never
     * given a reduction it rejects. Any thread; may ask the backend about
     * the device (ctx->ops). */
    bool (*reduce_supported)(const accel_comm_engine_ctx_t *ctx, accel_dtype_t dtype,
                             accel_reduce_op_t op, char *why, size_t why_cap);
} accel_comm_engine_t;

#endif /* ACCEL_COMM_ENGINE_H */
