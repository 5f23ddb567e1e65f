/* accel_backend_utils.h: helpers libaccel exports for backend authors,
 * in-tree backends and plugins alike: vendor symbol loading, the bodies
 * slots share (dtype and properties copy-out, reasons), the fork rule, the
 * per-thread device record, probe/create detection, the host-callback
 * thread mark and self-wait refusal, an address-range map,
 * the host thread pool, the Philox host fill, environment parsing and the
 * on-disk kernel cache. Each part says who owns what and which threads may
 * call it. Include after (or instead of) accel/accel_backend.h. */
#ifndef ACCEL_BACKEND_UTILS_H
#define ACCEL_BACKEND_UTILS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accel/accel_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ vendor symbols
 *
 * A backend lists the vendor calls it makes in a symbols.h X-macro, one line
 * per call, in one shape:
 *   ACCEL_<LIB>_SYMBOL(required, return type, name, (parameters), export)
 * `export` is a versioned exported name to try first (e.g. "cuMemAlloc_v2"),
 * or NULL. The backend expands the list twice: into its function table
 *   #define ACCEL_CL_SYMBOL(required, ret, name, params, export) ret(*name) params;
 * and into a descriptor array that points at the table's slots
 *   #define ACCEL_CL_SYMBOL(required, ret, name, params, export) \
 *       ACCEL_SYMBOL_ENTRY(api, required, name, export),
 *   const accel_symbol_t symbols[] = {
 *   #include "symbols.h"
 *   };
 * then calls accel_symbol_table_resolve() on the dlopen handle.
 * Ownership: the descriptors and the slots belong to the caller; the handle
 * stays open (resolve never closes it). Threads: resolve writes the slots, so
 * run it once per table (pthread_once) before any thread reads the table. */

typedef struct accel_symbol {
    const char *name;        /* the symbol as the vendor header spells it */
    const char *export_name; /* versioned export tried first, or NULL */
    void *slot;              /* address of the function-pointer field to fill */
    bool required;           /* false: may be missing (the slot is then NULL) */
} accel_symbol_t;

/* One descriptor for field `name` of the function table `table` (an lvalue).
 * (No parameter is called `export`, a C++ keyword: the header is C++-safe.) */
#define ACCEL_SYMBOL_ENTRY(table, required, name, export_name)                                     \
    {                                                                                              \
#name, (export_name), (void *)&(table).name, (required)                                    \
    }

/* Fill every slot with dlsym(library, export_name) or, failing that,
 * dlsym(library, name). ACCEL_OK when every required symbol was found. Otherwise returns
 * ACCEL_ERROR_UNSUPPORTED, sets every slot back to NULL (all or nothing) and
 * writes "<library_name> lacks <symbol>, which the <backend> backend
 * requires" into `reason` (when non-NULL; truncated to reason_cap), for the
 * backend to report when it is asked for a device; the thread's last error
 * is not touched (loading usually runs inside pthread_once). INVALID_ARGUMENT
 * with an error sentence for a NULL library, a NULL array with a non-zero
 * count, or a descriptor without a name or slot (no slot is written then). */
ACCEL_API accel_status_t accel_symbol_table_resolve(void *library, const accel_symbol_t *symbols,
                                                    size_t count, const char *backend,
                                                    const char *library_name, char *reason,
                                                    size_t reason_cap);

/* The file a loaded vendor library lives in (for reports and reasons), found
 * with dladdr from the address of one of its resolved functions, e.g.
 *   accel_library_path(*(void **)&api.vendorInit, "libvendor.so", api.path,
 *                      sizeof api.path);
 * `fallback` (the name it was loaded by) when dladdr cannot say. Cut at cap. */
ACCEL_API void accel_library_path(const void *function, const char *fallback, char *out,
                                  size_t cap);

/* ================================================================ vendor library
 *
 * Loading a vendor library once per process, for backends and collectives
 * engines alike: the backend describes the library once, in one static
 * accel_vendor_library_t (where to look, its symbol table, the words of its
 * sentences), and every path that needs it calls accel_vendor_library_open:
 *   static accel_vendor_library_t mydev_lib = {
 *       .name = "mydev", .candidates = mydev_names,
 *       .symbols = mydev_symbols, .symbol_count = 12,
 *       .not_found = "no MyDev runtime (libmydev.so) found",
 *       .symbols_in = "libmydev.so", .path_from = "mydevInit",
 *       .path = mydev_api.path, .path_cap = sizeof mydev_api.path};
 *   if (!accel_vendor_library_open(&mydev_lib, reason, cap)) return NULL;
 * Where it looks: ACCEL_<NAME>_LIBRARY, then <each set home variable>/
 * <home_file>, then `candidates` (accel_backend_load_library).
 * Sentences, in lib->text: not found, "<not_found> (tried <every place>
 * [<home_unset>])[; <not_found_hint>]"; a required symbol missing,
 * "<symbols_in> lacks <symbol>, which the <backend> backend requires
 * [(<too_old>)]". Either way the handle is closed and the slots are NULL.
 * Ownership: the descriptor is the caller's (static storage); once loaded,
 * the handle stays open for the process. Threads: any thread, any number
 * of times: the first call loads, under a lock libaccel holds for all
 * libraries, and `on_load` runs inside it; the fields below the line are
 * written only then and read-only once open has returned. */

typedef struct accel_vendor_library accel_vendor_library_t;

struct accel_vendor_library {
    /* ---- the description (constant) */
    const char *name;             /* names ACCEL_<NAME>_LIBRARY: "npu", "hpu_hlml", "nccl" */
    const char *backend;          /* in the missing-symbol sentence (optional; NULL: name) */
    const char *const *home_vars; /* (optional) NULL-terminated install-root variables */
    const char *home_file;        /* tried under each set home variable: "lib64/libcnrt.so" */
    const char *home_unset; /* (optional) added to the tried list when no home variable is set */
    const char *const *candidates; /* NULL-terminated sonames or paths, after the homes */
    bool brief_tried; /* dlerror's "cannot open shared object file: ..." said "not found" */
    const accel_symbol_t *symbols; /* the table's descriptors (slots in the caller's table) */
    size_t symbol_count;
    const char *not_found;      /* "no Cambricon Neuware runtime (libcnrt.so) found" */
    const char *not_found_hint; /* (optional) after the tried list: "set X to its path" */
    const char *symbols_in;     /* who lacks a symbol: "the libascendcl.so that loaded" */
    const char *too_old;        /* (optional) after that sentence: "CANN too old?" */
    const char *path_from;      /* (optional) a symbol whose file fills `path` (dladdr) */
    char *path;                 /* (optional) where the file's path goes, path_cap bytes */
    size_t path_cap;
    void **handle_out; /* (optional) where the dlopen handle goes */
    /* (optional) after every required symbol resolved, inside the lock:
     * optional slots, the version line for the report (into text), a fork
     * rule. Returning false fails the load with the sentence it wrote. */
    bool (*on_load)(accel_vendor_library_t *lib, void *handle);
    /* ---- the outcome (written by the first open only) */
    int state;      /* 0 not tried, 1 loaded, 2 failed: read with acquire */
    char text[640]; /* why not; when loaded, what on_load wrote (or "") */
};

/* Load `lib` once per process. true when loaded; false with lib->text
 * copied into `reason` (when non-NULL; cut at cap). */
ACCEL_API bool accel_vendor_library_open(accel_vendor_library_t *lib, char *reason, size_t cap);

/* ================================================================ slot bodies
 *
 * The bodies several slots share word for word across backends. Stateless:
 * any thread. */

/* supported_dtypes: copy list[0 .. count) into out[0 .. cap) (as many as
 * fit) and set *out_count = count, the length of the whole list. With out
 * NULL and cap > 0: INVALID_ARGUMENT, "<backend>: dtype output array is NULL
 * but capacity is <cap>", and nothing is written. A slot ends with
 *   return accel_dtypes_copy_out("mydev", list, n, out, cap, out_count); */
ACCEL_API accel_status_t accel_dtypes_copy_out(const char *backend, const accel_dtype_t *list,
                                               size_t count, accel_dtype_t *out, size_t cap,
                                               size_t *out_count);

/* device_properties: copy the filled `props` into the caller's `out`, only
 * the prefix out->struct_size covers (a caller built against an older, shorter
 * struct gets the fields it knows), leaving out->struct_size as the caller set
 * it. Returns ACCEL_OK, so a slot ends with
 *   return accel_device_properties_copy_out(out, &props); */
ACCEL_API accel_status_t accel_device_properties_copy_out(accel_device_properties_t *out,
                                                          const accel_device_properties_t *props);

/* snprintf for reasons and sentences that may be cut at the buffer's end
 * (a long library path), which is fine for a message; gcc's
 * -Wformat-truncation does not flag it as it would a direct snprintf call.
 * cap 0 writes nothing. */
ACCEL_API void accel_reason_format(char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ================================================================ the fork rule
 *
 * For a runtime that a child forked after the parent started it may not use
 * (its contexts, threads and device handles stay with the parent): one
 * zero-initialised static accel_fork_rule_t per runtime, started where the
 * runtime is first initialised; every later call in a forked child asks
 * accel_fork_rule_forked and refuses with a sentence that says so.
 * Ownership: the rule is the backend's (static storage, never freed).
 * Threads: any thread; the fields are read and written atomically by the
 * functions only (do not touch them). Fork: libaccel installs one
 * pthread_atfork child handler, with the first start, that marks every
 * started rule as the parent's. */

typedef struct accel_fork_rule {
    bool started;        /* accel_fork_rule_start ran in this process or a parent */
    uint64_t generation; /* which process of the fork chain started it */
} accel_fork_rule_t;

/* The runtime is (about to be) initialised in this process: from now on a
 * child forked from it may not use it. Starting again is a no-op. */
ACCEL_API void accel_fork_rule_start(accel_fork_rule_t *rule);
/* True in a child forked (directly or further down) after the rule was
 * started; false in the process that started it or when never started.
 * Cheap: three relaxed or acquire loads. */
ACCEL_API bool accel_fork_rule_forked(const accel_fork_rule_t *rule);

/* ================================================================ the thread's device
 *
 * For a runtime that keeps a current device per thread (aclrtSetDevice,
 * cnrtSetDevice...): each backend remembers, per thread, which device it
 * last made current, so that a call on the same device skips the runtime
 * call. One zero-initialised
 *   static _Thread_local accel_thread_device_t mydev_thread;
 * per backend, keyed by the backend instance's id (accel_backend_instance_id,
 * taken in create), so that a new instance never trusts an old entry.
 * Threads: the record is the calling thread's own; the id is atomic. */

typedef struct accel_thread_device {
    uint64_t instance; /* the instance that set it; 0: none yet */
    int device;
} accel_thread_device_t;

/* A new id for a backend instance: never 0, unique in the process. */
ACCEL_API uint64_t accel_backend_instance_id(void);

/* Whether the thread last made `device` current for `instance`. */
static inline bool accel_thread_device_is(const accel_thread_device_t *thread, uint64_t instance,
                                          int device)
{
    return thread->instance == instance && thread->device == device;
}

/* Record that the thread made `device` current for `instance`. */
static inline void accel_thread_device_set(accel_thread_device_t *thread, uint64_t instance,
                                           int device)
{
    thread->instance = instance;
    thread->device = device;
}

/* The device the thread last made current for `instance`, else 0 (the
 * runtime's default). */
static inline int accel_thread_device_get(const accel_thread_device_t *thread, uint64_t instance)
{
    return thread->instance == instance && thread->device >= 0 ? thread->device : 0;
}

/* ================================================================ detection
 *
 * The steps that open probe and create in a backend over a vendor runtime:
 * load the runtime (or say why), refuse in a forked child if the runtime
 * has a fork rule, count the devices without creating a context (or say why).
 * The backend describes its steps once, in a constant accel_backend_detect_t,
 * and both slots call the helpers below with it.
 * Ownership: the descriptor and its strings are the backend's (static).
 * Threads: as the callbacks: each may run on any thread, several at once. */

typedef struct accel_backend_detect {
    const char *backend; /* "mydev": prefixes create()'s sentences */
    /* The loaded runtime's function table (typed by the backend), or NULL
     * with why in `reason` (always written then). Loads once per process. */
    const void *(*load)(char *reason, size_t cap);
    /* True in a child forked after the parent started the runtime. NULL:
     * the runtime works in a forked child (the two below are then unused). */
    bool (*forked)(void);
    const char *forked_reason; /* probe's reason in such a child */
    /* create()'s refusal in such a child: sets the last error, returns it. */
    accel_status_t (*fork_error)(void);
    /* Count the devices of `runtime` (load's answer) without creating a
     * context: true with how they were counted in `how` (probe's reason),
     * false with why not. */
    bool (*count)(const void *runtime, int *count, char *how, size_t cap);
} accel_backend_detect_t;

/* The whole probe slot: not available with load's reason, forked_reason or
 * count's reason; else available when count > 0, device_count and count's
 * sentence on how. */
ACCEL_API void accel_backend_detect_probe(const accel_backend_detect_t *detect,
                                          accel_probe_result_t *out);
/* create()'s first steps: the runtime in *runtime and, when `count` is not
 * NULL, the device count in *count; ACCEL_OK. Otherwise UNAVAILABLE with
 * "<backend>: <load's or count's reason>", or fork_error()'s status, and
 * *count untouched. With count NULL the backend counts itself. */
ACCEL_API accel_status_t accel_backend_detect_open(const accel_backend_detect_t *detect,
                                                   const void **runtime, int *count);

/* ================================================================ host-callback threads
 *
 * Work queued on a stream after a host callback waits until the callback
 * returns, so a callback that waits for its own stream, its device or every
 * device would wait for itself for ever. A backend marks each thread while
 * it runs a host callback: a stream worker once, at its start; a thread
 * that serves several streams (an emulator's thread, the runtime's own
 * callback thread reached through a trampoline) around each call. From the
 * mark core refuses, before calling any slot, accel_synchronize of the
 * marked device, accel_stream_synchronize and accel_stream_destroy of the
 * marked stream and accel_empty_cache, with INVALID_ARGUMENT and a
 * sentence. A backend refuses its own waits that core does not see (a copy
 * to pageable memory that waits for the stream) with the refusals below.
 * Threads: the mark is the calling thread's own (thread-local); nothing is
 * shared, nothing is freed. */

/* Any device, for accel_callback_thread_of and accel_callback_refuse_device_wait. */
#define ACCEL_CALLBACK_ANY_DEVICE (-1)

/* Mark the calling thread as running host callbacks of `stream` (the
 * backend stream handle the slots receive; NULL for the device's default
 * stream) of `device` of the backend state `backend` (what create()
 * returned). Replaces any earlier mark; lasts until cleared or the thread
 * ends. */
ACCEL_API void accel_callback_thread_mark(const void *backend, int device, const void *stream);
/* The calling thread runs no host callback any more. */
ACCEL_API void accel_callback_thread_clear(void);
/* True when the calling thread is marked for `backend` and `device`
 * (ACCEL_CALLBACK_ANY_DEVICE: any of its devices); *out_stream (when not
 * NULL) gets the marked stream. */
ACCEL_API bool accel_callback_thread_of(const void *backend, int device, const void **out_stream);
/* INVALID_ARGUMENT with "a host callback cannot <what>: ..." as the
 * thread's last error when the calling thread is marked for `backend`,
 * `device` and `stream`; else ACCEL_OK. `what` reads after "cannot", e.g.
 * "copy to pageable memory on its own stream". */
ACCEL_API accel_status_t accel_callback_refuse_stream_wait(const void *backend, int device,
                                                           const void *stream, const char *what);
/* The same for a wait for the whole `device` (ACCEL_CALLBACK_ANY_DEVICE:
 * for every device): refused when marked for any stream of it. */
ACCEL_API accel_status_t accel_callback_refuse_device_wait(const void *backend, int device,
                                                           const char *what);

/* A runtime that runs host callbacks on its own thread (aclrtLaunchCallback,
 * cuLaunchHostFunc, cnrtInvokeHostFunc...) is handed a call record and
 * accel_callback_call_run as the function: the record marks the thread,
 * runs the user's function, clears the mark and (unless `replayed`) frees
 * itself. A call the runtime may run more than once (captured into a graph)
 * is made with `replayed` true: it is never freed by running, and
 * accel_callback_calls_release frees every such call of a backend (in
 * destroy(), once no graph can run them).
 * Ownership: a new record belongs to the backend until the runtime accepts
 * it (free it with accel_callback_call_free when the runtime refuses it),
 * then to the runtime's run. Threads: any; the list of replayed calls is
 * under a lock of the kit's. */
typedef struct accel_callback_call accel_callback_call_t;

/* A record for `fn(user_data)` on `stream` of `device` of `backend`.
 * INVALID_ARGUMENT when `fn` or `out` is NULL, OUT_OF_MEMORY when it cannot
 * be allocated, each with a sentence; *out is untouched then. */
ACCEL_API accel_status_t accel_callback_call_new(const void *backend, int device,
                                                 const void *stream, accel_host_fn_t fn,
                                                 void *user_data, bool replayed,
                                                 accel_callback_call_t **out);
/* The runtime's function: `call` is the record (void * to match the
 * runtime's callback type). */
ACCEL_API void accel_callback_call_run(void *call);
/* Free a record the runtime did not accept (NULL: nothing). */
ACCEL_API void accel_callback_call_free(accel_callback_call_t *call);
/* Free every replayed record of `backend`. */
ACCEL_API void accel_callback_calls_release(const void *backend);

/* ================================================================ host-callback emulator
 *
 * For a runtime whose host callbacks are missing or unusable. Each callback
 * added to an emulator becomes, in stream order:
 *   record(reached)      a marker that completes once the stream's earlier
 *                        work has;
 *   gate(gate)           (optional) the stream's later work waits for a
 *                        gate the host opens;
 *   record(passed)       (with a gate) completes once the stream is past it.
 * The emulator's one thread takes callbacks in the order they were added,
 * waits for `reached`, runs the function marked as a callback thread of its
 * stream (accel_callback_thread_mark), opens the gate, waits for `passed`
 * and releases all three. A failed wait is logged and the function runs
 * anyway, so nothing that waits for it is left hanging. Without gate ops
 * the stream's later work does NOT wait for the callback: the backend then
 * waits in its synchronize, query and destroy (accel_callback_emulator_last
 * and _reached), and records an event's ticket so that its query and
 * synchronize wait too.
 * Granularity is the backend's: one emulator per stream keeps a blocked
 * callback from holding back other streams' callbacks; one per backend is
 * cheaper.
 * Ownership: the emulator is the backend's storage (init/fini); markers and
 * gates belong to the emulator from a successful op until it releases them.
 * Threads: add, last and reached from any thread. The ops run on the adding
 * thread (record, gate) under the emulator's add lock, so the queue's order
 * is the stream's order, and on the emulator's thread (wait, open, release)
 * with no emulator lock held. fini must not run on the emulator's thread. */

typedef struct accel_callback_emulator_ops {
    /* Place a marker on `stream` of `device` that completes once the work
     * queued before it has. (required) */
    accel_status_t (*record)(void *ctx, int device, void *stream, void **out_marker);
    /* Block until `marker` has completed; non-OK when the wait failed (or
     * gave up: accel_callback_emulator_stopping says fini is waiting).
     * (required) */
    accel_status_t (*wait)(void *ctx, int device, void *marker);
    /* Free a marker once the device no longer uses it. (required) */
    void (*release)(void *ctx, int device, void *marker);
    /* Make `stream`'s later work wait for a new gate the host opens.
     * (optional as a group with open_gate and release_gate) */
    accel_status_t (*gate)(void *ctx, int device, void *stream, void **out_gate);
    /* Open the gate; a failure is logged by the backend. */
    accel_status_t (*open_gate)(void *ctx, int device, void *gate);
    void (*release_gate)(void *ctx, int device, void *gate);
} accel_callback_emulator_ops_t;

typedef struct accel_callback_emulator_entry accel_callback_emulator_entry_t;

typedef struct accel_callback_emulator {
    const accel_callback_emulator_ops_t *ops;
    void *ctx;                /* handed to every op */
    const void *backend;      /* for the thread's mark */
    const char *name;         /* "xpu": prefixes log lines and sentences */
    pthread_mutex_t lock;     /* guards everything below */
    pthread_mutex_t add_lock; /* held across an add's ops, so order is kept */
    pthread_cond_t changed;
    bool started, stopping;
    pthread_t thread;
    accel_callback_emulator_entry_t *head, *tail; /* queued, oldest first */
    accel_callback_emulator_entry_t *running;     /* taken by the thread */
    uint64_t added;                               /* seq of the newest callback added */
    uint64_t returned; /* every callback with a seq up to this has returned */
} accel_callback_emulator_t;

/* Set up `em` (no thread yet: the first add starts it). */
ACCEL_API void accel_callback_emulator_init(accel_callback_emulator_t *em,
                                            const accel_callback_emulator_ops_t *ops, void *ctx,
                                            const void *backend, const char *name);
/* Let the thread run what is queued (waits that give up are logged), join
 * it and free what is left. Call after the streams' work has finished (a
 * stream synchronize), never from a callback. In a forked child (no thread
 * there, locks perhaps held) pass `forked` true: the queued entries are only
 * freed, touching no lock and calling no op. */
ACCEL_API void accel_callback_emulator_fini(accel_callback_emulator_t *em, bool forked);
/* Queue fn(user_data) behind `stream`'s work (NULL: the device's default
 * stream). INVALID_ARGUMENT when `em` or `fn` is NULL. On failure nothing
 * runs and the status says why; a failure after
 * `reached` was placed (the gate) still lets the thread release it. */
ACCEL_API accel_status_t accel_callback_emulator_add(accel_callback_emulator_t *em, int device,
                                                     void *stream, accel_host_fn_t fn,
                                                     void *user_data);
/* The ticket of the newest callback of `stream` of `device` still queued
 * or running (0: none); with every_stream true, of any stream of `device`. */
ACCEL_API uint64_t accel_callback_emulator_last(accel_callback_emulator_t *em, int device,
                                                const void *stream, bool every_stream);
/* True when every callback up to `ticket` has returned; with `wait`, wait
 * for that first (never from the emulator's own thread). */
ACCEL_API bool accel_callback_emulator_reached(accel_callback_emulator_t *em, uint64_t ticket,
                                               bool wait);
/* True once fini has asked the thread to finish: a wait op may give up. */
ACCEL_API bool accel_callback_emulator_stopping(accel_callback_emulator_t *em);

/* ================================================================ address ranges
 *
 * accel_range_map_t: non-overlapping [base, base + size) ranges kept in a
 * sorted array, found by binary search (O(log n) lookup, O(n) insert and
 * remove), each with a fixed-size payload chosen at init (copied in and out
 * by value; the map never interprets or frees it).
 * Ownership: the map owns its array only; it records addresses and never
 * touches the memory they name.
 * Threads: NOT thread-safe. The owner of the map locks around every call
 * (core's pinned registry and the opencl backend each hold a mutex per map),
 * and a pointer returned by find stays valid only until the next insert,
 * remove or fini, under that same lock. Statuses carry no error text: the
 * caller, who knows what the range is, words the sentence. */

typedef struct accel_range {
    uintptr_t base;
    size_t size;
    /* followed by the payload (accel_range_payload) */
} accel_range_t;

typedef struct accel_range_map {
    unsigned char *items; /* count entries of `stride` bytes, sorted by base */
    size_t stride;
    size_t payload_size;
    size_t count;
    size_t capacity;
} accel_range_map_t;

/* An empty map whose ranges carry `payload_size` bytes each (0 allowed). */
ACCEL_API void accel_range_map_init(accel_range_map_t *map, size_t payload_size);
/* Free the array; the map is empty (and may be init'ed again). */
ACCEL_API void accel_range_map_fini(accel_range_map_t *map);
/* Record [base, base + size) with a copy of `payload` (payload_size bytes;
 * NULL means zeroes). INVALID_ARGUMENT for a NULL base, size 0 or a range
 * that runs past the end of the address space; INVALID_ARGUMENT too when it
 * overlaps a recorded range (*conflict, when non-NULL, then points at the
 * range in the way; otherwise it is set to NULL); OUT_OF_MEMORY. On any
 * failure the map is unchanged. */
ACCEL_API accel_status_t accel_range_map_insert(accel_range_map_t *map, const void *base,
                                                size_t size, const void *payload,
                                                const accel_range_t **conflict);
/* The range holding every byte of [ptr, ptr + size), or NULL. size 0 asks
 * whether ptr itself lies inside a range. */
ACCEL_API const accel_range_t *accel_range_map_find(const accel_range_map_t *map, const void *ptr,
                                                    size_t size);
/* The index-th range in address order (0 .. count-1), or NULL: for walking
 * the map, e.g. to release everything at teardown. */
ACCEL_API const accel_range_t *accel_range_map_at(const accel_range_map_t *map, size_t index);
/* Remove the range that starts exactly at `base`, copying it to *out and its
 * payload to payload_out (each when non-NULL); false (map unchanged) when no
 * range starts there. */
ACCEL_API bool accel_range_map_remove(accel_range_map_t *map, const void *base, accel_range_t *out,
                                      void *payload_out);

/* The payload of a range returned by find (map's payload_size bytes). */
static inline void *accel_range_payload(const accel_range_t *range)
{
    return (void *)(range + 1);
}

/* ================================================================ host thread pool
 *
 * One process-wide pool of worker threads for host-side data-parallel work
 * (the CPU optimizer ops, the Philox fill, a plugin's host fallbacks). A run
 * splits [0, count) into contiguous chunks, one per thread, the caller's
 * thread taking the first. Threads start on first use, with every signal
 * blocked; their number is ACCEL_CPU_THREADS, else the CPUs in the
 * process's affinity mask (at most 256).
 * Threads: any thread may call. One run at a time: a caller that finds the
 * pool busy (another thread's run, or a nested call from inside `fn`) runs
 * its whole range alone on its own thread, so there is no deadlock and the
 * result is the same. `fn` must not depend on which thread runs a chunk.
 * Fork: after fork() the child forgets the parent's workers and starts a
 * fresh pool on first use (pthread_atfork). */

typedef void (*accel_thread_pool_fn_t)(void *ctx, size_t begin, size_t end);

/* Run fn over [0, count) in chunks that are multiples of `grain` elements
 * (except the last), using at most one thread per `min_per_thread` elements
 * (0 counts as 1 for both). Returns when every chunk is done; ctx is shared
 * by all chunks. */
ACCEL_API void accel_thread_pool_run(size_t count, size_t grain, size_t min_per_thread,
                                     accel_thread_pool_fn_t fn, void *ctx);

/* Threads a run may use, the caller included (>= 1), starting the pool. */
ACCEL_API size_t accel_thread_pool_threads(void);

/* ================================================================ library threads
 *
 * Every thread libaccel or a backend starts for its own work (stream
 * workers, callback threads, async_io workers, the host thread pool) must
 * not take the application's signals: the kernel hands a process-directed
 * signal to any thread that does not block it, and an application handler
 * running on a library thread races the application's own threads, which
 * go on meanwhile. accel_thread_start is pthread_create with every signal
 * blocked in the new thread; the caller's mask is unchanged. Returns
 * pthread_create's result (EINVAL, nothing started, for a NULL thread or
 * fn). Any thread. */
ACCEL_API int accel_thread_start(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *),
                                 void *arg);

/* ================================================================ host pages
 *
 * Host memory for buffers that get pinned (mlock, a vendor's host
 * registration) or moved by O_DIRECT. A buffer of at least one transparent
 * huge page (the kernel's hpage_pmd_size, read once; none where the kernel
 * has no THP or its huge page is over 32 MiB) is its own mapping, starts on
 * a huge-page boundary and is advised MADV_HUGEPAGE, so under THP "madvise"
 * or "always" the kernel backs it with huge pages: pinning it, and each
 * O_DIRECT transfer, then walk far fewer pages (512 times on x86-64;
 * docs/ops.md, Async I/O, has the measurement). A smaller buffer is
 * posix_memalign'ed, and so is every buffer under ACCEL_HOST_HUGE_PAGES=0.
 * Either way the address is a multiple of `alignment`.
 * Ownership: the caller frees with accel_host_pages_free and the same byte
 * count. Threads: any thread. Fork: private anonymous memory, as malloc's. */

/* `bytes` (> 0) at a multiple of `alignment` (a power of two, at least
 * sizeof(void *), at most the page size for a small buffer). Returns 0 and
 * sets *out, or an errno (EINVAL for 0 bytes, a NULL out or a bad
 * alignment; ENOMEM) and leaves *out alone. */
ACCEL_API int accel_host_pages_alloc(size_t bytes, size_t alignment, void **out);
/* Free what accel_host_pages_alloc(bytes, ...) returned; NULL is ignored. */
ACCEL_API void accel_host_pages_free(void *ptr, size_t bytes);

/* ================================================================ Philox
 *
 * accel's random numbers (docs/architecture.md, Random numbers): Philox4x32-10 keyed by the seed,
 * word i of the stream of `seed` is word i%4 of the block with counter i/4;
 * a fill of kind u32/uniform reads 1 word per element, normal 2 (Box-Muller),
 * starting at word `offset`. Every backend must produce these bits; a plugin
 * can fill host memory with them directly. Pure functions (the fill uses the
 * thread pool above): any thread. */

/* Words one element consumes (1 or 2), or 0 for an unknown kind. */
ACCEL_API unsigned accel_rng_words_per_element(accel_rng_kind_t kind);
/* How far a fill of `count` elements moves the stream offset:
 * round_up(words * count, 4). */
ACCEL_API uint64_t accel_rng_offset_advance(accel_rng_kind_t kind, size_t count);
/* Elements [first, first + count) of the fill that starts at `offset`, into
 * dst[first .. first + count) on the calling thread: dst is the start of the
 * whole fill and holds uint32_t for u32, float otherwise. For splitting a
 * fill yourself; an unknown kind or NULL dst writes nothing. */
ACCEL_API void accel_philox_fill_range(accel_rng_kind_t kind, void *dst, size_t first, size_t count,
                                       uint64_t seed, uint64_t offset);
/* The whole fill of `count` elements into dst, a large one split over the
 * host thread pool (the bits do not depend on the split). INVALID_ARGUMENT
 * with an error sentence for an unknown kind or a NULL dst with count > 0;
 * nothing is written then. */
ACCEL_API accel_status_t accel_philox_fill(accel_rng_kind_t kind, void *dst, size_t count,
                                           uint64_t seed, uint64_t offset);

/* ================================================================ deferred release
 *
 * A list of resources (a pinned staging buffer, ...) that queued device work
 * still uses, each freed once a fence recorded after that work has
 * completed, the way IREE's HAL resource sets keep resources alive until a
 * submission's semaphore signals. Each entry is (device, fence, resource,
 * size, release function + its context). The fence callbacks have the shapes
 * of the backend table's event slots (a backend passes its own event_query,
 * event_synchronize, event_destroy and synchronize), so a fence is usually a
 * backend event recorded on the stream after the work.
 * - poll frees every entry whose fence query answers ACCEL_OK; NOT_READY
 *   keeps it. A query that fails keeps it too (its work may still be in
 *   flight) and a later poll asks again.
 * - drain waits for each entry's fence and frees it. When that wait fails it
 *   waits for the whole device (device_wait) instead; when that fails too, or
 *   there is none, the memory is left to the runtime (a leak said in one
 *   warning line), never freed under work that may still use it.
 * Ownership: add takes the resource and the fence whatever happens; the list
 * calls release(release_ctx, device, resource, size, finished) exactly once:
 * finished true once the work is done (free the resource), false when it is
 * left to the runtime (free only your own records of it, not the memory the
 * work may use). Then destroy(self, device, fence) when finished, else
 * forget(self, device, fence). The fence callbacks and release functions
 * must outlive the list.
 * Threads: add and poll from any thread, several at once. The list's lock is
 * held only to link and unlink entries: callbacks run without it (a callback
 * may itself add or poll). drain, destroy and abandon are teardown: call them
 * when no other thread uses the list. Fork: abandon, in a child forked while
 * entries were listed, frees the list's own records only, calling nothing
 * (the parent's runtime is not the child's). */

typedef struct accel_deferred_fence_ops {
    void *self; /* first argument of each callback */
    /* ACCEL_OK: complete; ACCEL_ERROR_NOT_READY: pending; else failed. (required) */
    accel_status_t (*query)(void *self, int device, void *fence);
    /* Block until the fence completes. (required) */
    accel_status_t (*wait)(void *self, int device, void *fence);
    /* Free a completed fence, after its resource. (optional) */
    void (*destroy)(void *self, int device, void *fence);
    /* Drop a fence whose work cannot be known finished (a backend event
     * slot may destroy a pending event, as cuEventDestroy may). (optional:
     * NULL leaves it to the runtime) */
    void (*forget)(void *self, int device, void *fence);
    /* Block until all of the device's work is done: drain's fallback when a
     * wait fails. (optional) */
    accel_status_t (*device_wait)(void *self, int device);
} accel_deferred_fence_ops_t;

/* Free `resource` (`device` and `size` as given to add); `finished` false:
 * its work cannot be known done, free only your records of it. */
typedef void (*accel_deferred_release_fn_t)(void *ctx, int device, void *resource, size_t size,
                                            bool finished);

typedef struct accel_deferred_release accel_deferred_release_t;

/* An empty list over `fence` (copied). INVALID_ARGUMENT with a sentence for a
 * NULL argument or a fence without query or wait; OUT_OF_MEMORY. */
ACCEL_API accel_status_t accel_deferred_release_create(const accel_deferred_fence_ops_t *fence,
                                                       accel_deferred_release_t **out);
/* List `resource` until `fence` (on `device`) completes, first polling the
 * list. Takes ownership in every case: when no record can be allocated it
 * waits for the fence itself and releases at once (or leaves both to the
 * runtime, as drain does). A NULL resource with a NULL release lists the
 * fence alone. */
ACCEL_API void accel_deferred_release_add(accel_deferred_release_t *list, int device, void *fence,
                                          void *resource, size_t size,
                                          accel_deferred_release_fn_t release, void *release_ctx);
/* Release the entries whose fence has completed; never waits. Returns how
 * many were released. */
ACCEL_API size_t accel_deferred_release_poll(accel_deferred_release_t *list);
/* Entries listed now (for tests and reports). */
ACCEL_API size_t accel_deferred_release_pending(accel_deferred_release_t *list);
/* Wait for and release every entry (see above); returns how many were left
 * to the runtime. The list stays usable. */
ACCEL_API size_t accel_deferred_release_drain(accel_deferred_release_t *list);
/* drain, then free the list. NULL is a no-op. */
ACCEL_API void accel_deferred_release_destroy(accel_deferred_release_t *list);
/* Free the list and its records without calling any callback: every listed
 * resource and fence is left to the runtime (a forked child). NULL: no-op. */
ACCEL_API void accel_deferred_release_abandon(accel_deferred_release_t *list);

/* ================================================================ environment
 *
 * Reading a backend's environment variables the way core reads its own.
 * The parsers are pure. The getters call getenv, so like any getenv they must
 * not race setenv; a bad value is reported once per call at warn level
 * ("<name>=<value> is not ...; using <fallback>") and the fallback returned. */

/* getenv that treats "" as unset (NULL). */
ACCEL_API const char *accel_env_get(const char *name);
/* A decimal integer filling the whole text (no blanks); false otherwise,
 * *out untouched. */
ACCEL_API bool accel_env_parse_int(const char *text, long *out);
/* "0,2,5": up to `cap` non-negative ints, no blanks, no empty items; false on
 * any bad item or more than cap items, `out` untouched. */
ACCEL_API bool accel_env_parse_int_list(const char *text, int *out, size_t cap, size_t *out_count);
/* 1/0, true/false, yes/no, on/off (case-insensitive); false otherwise. */
ACCEL_API bool accel_env_parse_bool(const char *text, bool *out);

/* The integer in `name` when it lies in [min, max]; `fallback` when unset,
 * and with a warning when not an integer or out of range (max LONG_MAX:
 * no upper bound). */
ACCEL_API long accel_env_get_int(const char *name, long min, long max, long fallback);
/* The boolean in `name`; `fallback` when unset, with a warning when bad. */
ACCEL_API bool accel_env_get_bool(const char *name, bool fallback);
/* The list in `name` into out[0 .. cap): its length, or 0 when unset, and
 * with a warning (out untouched) when bad. */
ACCEL_API size_t accel_env_get_int_list(const char *name, int *out, size_t cap);

/* ================================================================ kernel cache
 *
 * An on-disk cache of compiled device kernels (program binaries, cubins...)
 * for backends that compile at run time. Folder: ACCEL_CACHE_DIR, else
 * $XDG_CACHE_HOME/accel, else ~/.cache/accel; entries are
 * <dir>/kernels/<key>.bin with a header (magic, key, size, checksum), so a
 * truncated, corrupt or foreign file reads as a miss. The key is the hex
 * digest of everything that changes the binary (source, options, device
 * name, driver version...), built with accel_kernel_hash_*.
 * Threads and processes: stateless, any thread; put writes a temporary file
 * beside the entry and renames it over, so concurrent writers leave one
 * complete file. */

/* 128-bit FNV-1a over length-prefixed parts ("ab"+"c" != "a"+"bc"). Plain
 * value: one per key being built, on one thread at a time. */
typedef struct accel_kernel_hash {
    uint64_t low, high;
} accel_kernel_hash_t;

#define ACCEL_KERNEL_KEY_SIZE 33 /* 32 hex digits + NUL */

ACCEL_API void accel_kernel_hash_init(accel_kernel_hash_t *hash);
ACCEL_API void accel_kernel_hash_add(accel_kernel_hash_t *hash, const void *data, size_t size);
ACCEL_API void accel_kernel_hash_add_string(accel_kernel_hash_t *hash, const char *text);
/* The key: 32 lowercase hex digits. */
ACCEL_API void accel_kernel_hash_key(const accel_kernel_hash_t *hash,
                                     char out[ACCEL_KERNEL_KEY_SIZE]);

/* The file an entry lives in; UNAVAILABLE when no cache folder can be named
 * (no ACCEL_CACHE_DIR, XDG_CACHE_HOME or HOME). */
ACCEL_API accel_status_t accel_kernel_cache_path(const char *key, char *out, size_t cap);
/* The entry's bytes in *out (malloc'ed; the caller frees), or NOT_FOUND on a
 * miss or an unusable file (the reason is logged at debug level). */
ACCEL_API accel_status_t accel_kernel_cache_get(const char *key, void **out, size_t *out_size);
/* Store `size` bytes under `key`, replacing any entry atomically. Failures
 * (read-only home, full disk) return a status and change nothing. */
ACCEL_API accel_status_t accel_kernel_cache_put(const char *key, const void *data, size_t size);

/* ================================================================ slot groups
 * A backend names its slot functions <prefix>_<slot> (accel_mlu_mem_alloc,
 * accel_mlu_stream_create...). For each group of accel_backend_ops_t slots
 * that backends fill together, one macro declares the prototypes (in the
 * backend's private header, with a `;` after it) and one fills the table's
 * members (in backend.c's designated initializer, with a `,` after it):
 *     ACCEL_BACKEND_DECLARE_STREAM_SLOTS(accel_mlu);
 *     static const accel_backend_ops_t mlu_ops = {..., ACCEL_BACKEND_STREAM_SLOTS(accel_mlu), ...};
 * The prototypes have the table's types, so a slot whose signature drifts
 * fails to compile where it is defined. Header-only: nothing is exported. */

/* The table's head for a backend whose name is `id` (a bare word: mlu): its
 * version and size, .name = "mlu", .info = &mlu_info and the lifecycle
 * slots mlu_probe, mlu_create, mlu_destroy and mlu_init. */
#define ACCEL_BACKEND_OPS_HEAD(id)                                                                 \
    .abi_version = ACCEL_BACKEND_ABI_VERSION, .struct_size = sizeof(accel_backend_ops_t),          \
    .name = #id, .info = &id##_info, .probe = id##_probe, .create = id##_create,                   \
    .destroy = id##_destroy, .init = id##_init

/* device_count, device_properties, set_device, query_flag, supported_dtypes
 * as id##_<slot> (usually static in backend.c: mlu_device_count...). */
#define ACCEL_BACKEND_DEVICE_SLOTS(id)                                                             \
    .device_count = id##_device_count, .device_properties = id##_device_properties,                \
    .set_device = id##_set_device, .query_flag = id##_query_flag,                                  \
    .supported_dtypes = id##_supported_dtypes

/* mem_alloc, mem_free, memcpy_async, memset_async (required). */
#define ACCEL_BACKEND_DECLARE_MEMORY_SLOTS(prefix)                                                 \
    accel_status_t prefix##_mem_alloc(void *self, int device, size_t size, void **out);            \
    void prefix##_mem_free(void *self, int device, void *ptr);                                     \
    accel_status_t prefix##_memcpy_async(void *self, int device, void *dst, const void *src,       \
                                         size_t size, accel_copy_kind_t kind, void *stream);       \
    accel_status_t prefix##_memset_async(void *self, int device, void *dst, int value,             \
                                         size_t size, void *stream)
#define ACCEL_BACKEND_MEMORY_SLOTS(prefix)                                                         \
    .mem_alloc = prefix##_mem_alloc, .mem_free = prefix##_mem_free,                                \
    .memcpy_async = prefix##_memcpy_async, .memset_async = prefix##_memset_async

/* host_alloc, host_free (pinned host memory). */
#define ACCEL_BACKEND_DECLARE_PINNED_SLOTS(prefix)                                                 \
    accel_status_t prefix##_host_alloc(void *self, size_t size, void **out);                       \
    void prefix##_host_free(void *self, void *ptr, size_t size)
#define ACCEL_BACKEND_PINNED_SLOTS(prefix)                                                         \
    .host_alloc = prefix##_host_alloc, .host_free = prefix##_host_free

/* host_register, host_unregister (pinning memory the caller owns). */
#define ACCEL_BACKEND_DECLARE_REGISTER_SLOTS(prefix)                                               \
    accel_status_t prefix##_host_register(void *self, void *ptr, size_t size);                     \
    void prefix##_host_unregister(void *self, void *ptr, size_t size)
#define ACCEL_BACKEND_REGISTER_SLOTS(prefix)                                                       \
    .host_register = prefix##_host_register, .host_unregister = prefix##_host_unregister

/* stream_create, _destroy, _synchronize, _query, _wait_event, _add_callback. */
#define ACCEL_BACKEND_DECLARE_STREAM_SLOTS(prefix)                                                 \
    accel_status_t prefix##_stream_create(void *self, int device, int priority, void **out);       \
    void prefix##_stream_destroy(void *self, int device, void *stream);                            \
    accel_status_t prefix##_stream_synchronize(void *self, int device, void *stream);              \
    accel_status_t prefix##_stream_query(void *self, int device, void *stream);                    \
    accel_status_t prefix##_stream_wait_event(void *self, int device, void *stream, void *event);  \
    accel_status_t prefix##_stream_add_callback(void *self, int device, void *stream,              \
                                                accel_host_fn_t fn, void *user_data)
#define ACCEL_BACKEND_STREAM_SLOTS(prefix)                                                         \
    .stream_create = prefix##_stream_create, .stream_destroy = prefix##_stream_destroy,            \
    .stream_synchronize = prefix##_stream_synchronize, .stream_query = prefix##_stream_query,      \
    .stream_wait_event = prefix##_stream_wait_event,                                               \
    .stream_add_callback = prefix##_stream_add_callback

/* event_create, _destroy, _record, _synchronize, _query, _elapsed_ms. */
#define ACCEL_BACKEND_DECLARE_EVENT_SLOTS(prefix)                                                  \
    accel_status_t prefix##_event_create(void *self, int device, unsigned flags, void **out);      \
    void prefix##_event_destroy(void *self, int device, void *event);                              \
    accel_status_t prefix##_event_record(void *self, int device, void *stream, void *event);       \
    accel_status_t prefix##_event_synchronize(void *self, int device, void *event);                \
    accel_status_t prefix##_event_query(void *self, int device, void *event);                      \
    accel_status_t prefix##_event_elapsed_ms(void *self, int device, void *start, void *end,       \
                                             float *out)
#define ACCEL_BACKEND_EVENT_SLOTS(prefix)                                                          \
    .event_create = prefix##_event_create, .event_destroy = prefix##_event_destroy,                \
    .event_record = prefix##_event_record, .event_synchronize = prefix##_event_synchronize,        \
    .event_query = prefix##_event_query, .event_elapsed_ms = prefix##_event_elapsed_ms

/* graph_capture_begin, graph_capture_end, graph_launch, graph_destroy. */
#define ACCEL_BACKEND_DECLARE_GRAPH_SLOTS(prefix)                                                  \
    accel_status_t prefix##_graph_capture_begin(void *self, int device, void *stream);             \
    accel_status_t prefix##_graph_capture_end(void *self, int device, void *stream,                \
                                              void **out_graph);                                   \
    accel_status_t prefix##_graph_launch(void *self, int device, void *stream, void *graph);       \
    void prefix##_graph_destroy(void *self, void *graph)
#define ACCEL_BACKEND_GRAPH_SLOTS(prefix)                                                          \
    .graph_capture_begin = prefix##_graph_capture_begin,                                           \
    .graph_capture_end = prefix##_graph_capture_end, .graph_launch = prefix##_graph_launch,        \
    .graph_destroy = prefix##_graph_destroy

#ifdef __cplusplus
}
#endif

#endif /* ACCEL_BACKEND_UTILS_H */
