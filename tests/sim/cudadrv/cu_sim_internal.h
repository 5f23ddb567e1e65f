/* cu_sim_internal.h: state shared by the parts of the simulated libcuda.so:
 * cu_sim_device.c (initialisation, devices, primary contexts, memory, error
 * text), cu_sim_stream.c (streams as worker threads, copies, fills, events,
 * host functions, graphs) and cu_sim_module.c (modules and kernel launches,
 * run by cu_sim_kernels.cc on the host).
 * Locking: sim_lock (one mutex) guards every table and every stream queue
 * and event field; sim_changed (its condition) is broadcast whenever a task
 * finishes or an event completes. */
#ifndef ACCEL_TESTS_SIM_CU_SIM_INTERNAL_H
#define ACCEL_TESTS_SIM_CU_SIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim_break.h"
#include "sim_core.h"

#include "cu_sim.h"
#include "cu_sim_kernel.h"

#define SIM_MAX_DEVICES 16

/* A device's primary context: made on first retain, never freed (CUDA
 * keeps the handle valid too); `refs` counts retains, and the last release
 * resets the device (its memory, streams and events are gone). */
struct CUctx_st {
    int device;
    unsigned refs;
    CUresult sticky; /* CUDA_ERROR_ILLEGAL_ADDRESS after a kernel's bad access */
};

/* Every exported function starts with this: counts the call, returns the
 * injected fault if any, and refuses calls from a host function
 * (CUDA_ERROR_NOT_PERMITTED: CUDA forbids them there) and, in a child
 * forked after cuInit, every call (CUDA_ERROR_NOT_INITIALIZED). */
#define SIM_ENTER(name)                                                                            \
    do {                                                                                           \
        CUresult sim_refused_ = sim_enter(name);                                                   \
        if (sim_refused_ != CUDA_SUCCESS)                                                          \
            return sim_refused_;                                                                   \
    } while (0)
CUresult sim_enter(const char *function);

/* With ACCEL_SIM_FAULT_LOG=1 say `fmt` on stderr; returns `code`. */
CUresult sim_error(CUresult code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A kernel touched memory it may not: the device context's error sticks
 * (every later call in it returns `code`) until its last release. */
void sim_context_poison(int device, CUresult code);

/* CUDA_ERROR_NOT_INITIALIZED before cuInit, else CUDA_SUCCESS. */
CUresult sim_need_init(const char *function);
/* The calling thread's current context, which must be live and without a
 * sticky error; NULL with the code in *code otherwise. */
CUcontext sim_need_context(const char *function, CUresult *code);
/* Set on the stream workers while a host function runs. */
extern _Thread_local bool sim_in_host_fn;

typedef enum sim_mem_kind { SIM_MEM_HOST, SIM_MEM_DEVICE, SIM_MEM_PINNED } sim_mem_kind_t;
/* Where [ptr, ptr + size) lies: inside one device allocation (its device in
 * *device), inside one pinned (allocated or registered) range, or neither
 * (pageable host memory). Takes sim_lock. */
sim_mem_kind_t sim_memory_kind(const void *ptr, size_t size, int *device);
/* Allocate / free device memory of `device` (for the stream-ordered
 * allocator); the free returns false when `ptr` is not an allocation. */
CUresult sim_device_alloc(int device, size_t size, void **out, const char *function);
bool sim_device_free(void *ptr);
/* Every device's compute capability (ACCEL_SIM_CUDA_CC, default 9.0), and
 * as one number (90), for the sim's own checks: no call counted, no fault. */
void sim_compute_capability(int *major, int *minor);
int sim_device_arch(void);
/* Each device's capacity (ACCEL_SIM_DEVICE_MEMORY, default 1G) and bytes in
 * use, for NVML (cu_sim_nvml.c); any thread, no cuInit needed. */
size_t sim_device_capacity(void);
size_t sim_device_used(int device);
/* The device's memory is released when its last context reference goes. */
void sim_device_reset(int device);

/* Streams (cu_sim_stream.c). */
typedef struct sim_stream sim_stream_t;
/* Wait until every stream of `device` is idle; with `drop` the created
 * streams are also destroyed (a context reset). */
void sim_streams_drain(int device, bool drop);
/* CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (set as the last error) when a
 * stream of `device` captures, invalidating those captures; with
 * `unsafe_call` only captures in GLOBAL mode, or THREAD_LOCAL begun by the
 * calling thread, count (cuThreadExchangeStreamCaptureMode: RELAXED permits
 * unsafe calls). CUDA_SUCCESS otherwise. */
CUresult sim_device_capture_conflict(int device, bool unsafe_call, const char *function);
void sim_events_drop(int device);

/* Kernel launches (cu_sim_module.c) as queued tasks: a launch record owns
 * a copy of the arguments. */
typedef struct sim_launch sim_launch_t;
sim_launch_t *sim_launch_copy(const sim_launch_t *launch);
/* Run the launch on the calling (worker) thread; CUDA_ERROR_ILLEGAL_ADDRESS
 * when a pointer argument is not memory the kernel may touch. */
CUresult sim_launch_run(const sim_launch_t *launch);
void sim_launch_free(sim_launch_t *launch);
/* Queue `launch` (already checked, owned by the callee) on `stream`. */
CUresult sim_stream_launch(CUstream stream, sim_launch_t *launch, const char *function);

#endif /* ACCEL_TESTS_SIM_CU_SIM_INTERNAL_H */
