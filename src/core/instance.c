/* instance.c: building and releasing an accel_t, and its one-time lazy
 * runtime initialisation.
 * Creation never initialises the vendor runtime (fork safety); the first call
 * that needs a device goes through accel_ensure_init, which runs the backend's
 * init once (guarded by acc->lock) and then the deferred lazy calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "env.h"
#include "error.h"
#include "fork.h"
#include "ops/ops.h"
#include "rng_fallback.h"
#include "thread_state.h"

/* Every accel_t from create to destroy, so the fork handler can take their
 * locks. Guarded by instances_lock (a leaf apart from fork). */
static pthread_mutex_t instances_lock = PTHREAD_MUTEX_INITIALIZER;
static accel_t *instances;

/* torch's default seed, so an unseeded generator matches torch's habit. */
#define ACCEL_DEFAULT_SEED 67280421310721ull

typedef struct allocator_ctx {
    accel_t *acc;
    int device;
} allocator_ctx_t;

static accel_status_t allocator_raw_alloc(void *ctx, size_t size, void **out)
{
    allocator_ctx_t *c = ctx;
    return c->acc->ops->mem_alloc(c->acc->self, c->device, size, out);
}

static void allocator_raw_free(void *ctx, void *ptr)
{
    allocator_ctx_t *c = ctx;
    c->acc->ops->mem_free(c->acc->self, c->device, ptr);
}

static accel_status_t allocator_event_record_new(void *ctx, void *stream, void **out)
{
    allocator_ctx_t *c = ctx;
    const accel_backend_ops_t *ops = c->acc->ops;
    void *event = NULL;
    accel_status_t status = ops->event_create(c->acc->self, c->device, ACCEL_EVENT_DEFAULT, &event);
    if (status != ACCEL_OK)
        return status;
    status = ops->event_record(c->acc->self, c->device, stream, event);
    if (status != ACCEL_OK) {
        ops->event_destroy(c->acc->self, c->device, event);
        return status;
    }
    *out = event;
    return ACCEL_OK;
}

static accel_status_t allocator_event_query(void *ctx, void *event)
{
    allocator_ctx_t *c = ctx;
    return c->acc->ops->event_query(c->acc->self, c->device, event);
}

static void allocator_event_destroy(void *ctx, void *event)
{
    allocator_ctx_t *c = ctx;
    c->acc->ops->event_destroy(c->acc->self, c->device, event);
}

static accel_status_t allocator_event_synchronize(void *ctx, void *event)
{
    allocator_ctx_t *c = ctx;
    return c->acc->ops->event_synchronize(c->acc->self, c->device, event);
}

/* Asked without the error machinery: NOT_READY is an answer here, and any
 * other failure just means "record an event", which is always safe. */
static bool allocator_stream_idle(void *ctx, void *stream)
{
    allocator_ctx_t *c = ctx;
    return c->acc->ops->stream_query(c->acc->self, c->device, stream) == ACCEL_OK;
}

static bool instance_read_caching(void)
{
    accel_alloc_conf_t conf = {.caching = true};
    char bad_key[64] = "";
    const char *text = accel_env_get("ACCEL_ALLOC_CONF");
    if (text != NULL && !accel_env_parse_alloc_conf(text, &conf, bad_key, sizeof bad_key))
        accel_log(ACCEL_LOG_WARN, "ACCEL_ALLOC_CONF: ignoring unknown setting '%s'", bad_key);
    return conf.caching;
}

static accel_status_t instance_make_allocator(accel_t *acc, int device, bool caching)
{
    const accel_backend_ops_t *ops = acc->ops;
    bool has_events = ACCEL_BACKEND_HAS(ops, event_create) &&
                      ACCEL_BACKEND_HAS(ops, event_record) && ACCEL_BACKEND_HAS(ops, event_query) &&
                      ACCEL_BACKEND_HAS(ops, event_destroy);
    allocator_ctx_t *ctx = malloc(sizeof *ctx);
    if (ctx == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory creating an allocator");
    *ctx = (allocator_ctx_t){.acc = acc, .device = device};
    accel_allocator_device_t dev = {
        .ctx = ctx,
        .raw_alloc = allocator_raw_alloc,
        .raw_free = allocator_raw_free,
        .event_record_new = has_events ? allocator_event_record_new : NULL,
        .event_query = has_events ? allocator_event_query : NULL,
        .event_destroy = has_events ? allocator_event_destroy : NULL,
        .event_synchronize = has_events && ACCEL_BACKEND_HAS(ops, event_synchronize)
                                 ? allocator_event_synchronize
                                 : NULL,
        .stream_idle = ACCEL_BACKEND_HAS(ops, stream_query) ? allocator_stream_idle : NULL,
        .generation = &acc->block_generation,
    };
    accel_status_t status = accel_allocator_create(&dev, caching, &acc->devices[device].allocator);
    if (status != ACCEL_OK) {
        free(ctx);
        return status;
    }
    acc->devices[device].allocator_ctx = ctx;
    return ACCEL_OK;
}

static accel_status_t instance_make_devices(accel_t *acc)
{
    bool caching = instance_read_caching();
    if (acc->device_count == 0)
        return ACCEL_OK; /* opened by name without a device: no per-device state */
    acc->devices = calloc((size_t)acc->device_count, sizeof *acc->devices);
    if (acc->devices == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory for device state");
    for (int d = 0; d < acc->device_count; d++) {
        accel_device_state_t *dev = &acc->devices[d];
        pthread_mutex_init(&dev->rng_lock, NULL);
        pthread_mutex_init(&dev->capture_lock, NULL);
        dev->rng_seed = ACCEL_DEFAULT_SEED;
        dev->default_stream = calloc(1, sizeof *dev->default_stream);
        if (dev->default_stream == NULL)
            return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory for streams");
        *dev->default_stream =
            (accel_stream_t){.tag = ACCEL_TAG_STREAM, .acc = acc, .device = d, .is_default = true};
        accel_status_t status = instance_make_allocator(acc, d, caching);
        if (status != ACCEL_OK)
            return status;
    }
    return ACCEL_OK;
}

static int instance_initial_device(const accel_t *acc)
{
    long rank;
    const char *text;
    if (!acc->ops->info->current_device_from_local_rank || acc->device_count == 0)
        return 0;
    text = accel_env_get("LOCAL_RANK");
    if (text == NULL)
        return 0;
    if (!accel_env_parse_int(text, &rank) || rank < 0 || rank >= acc->device_count) {
        accel_log(ACCEL_LOG_WARN, "LOCAL_RANK=%s is not a device index below %d; using device 0",
                  text, acc->device_count);
        return 0;
    }
    return (int)rank;
}

accel_status_t accel_instance_create(const accel_backend_ops_t *ops, const char *method,
                                     accel_t **out)
{
    accel_status_t status;
    accel_t *acc = calloc(1, sizeof *acc);
    if (acc == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory opening %s", ops->name);
    static _Atomic uint64_t next_serial = 1;
    acc->tag = ACCEL_TAG_ACCEL;
    acc->ops = ops;
    acc->selection_method = method;
    acc->serial = atomic_fetch_add_explicit(&next_serial, 1, memory_order_relaxed);
    pthread_mutex_init(&acc->lock, NULL);
    accel_pinned_init(&acc->pinned);
    accel_host_cache_init(&acc->host_cache);
    accel_handles_init(&acc->handles);
    if (pthread_key_create(&acc->thread_key, accel_thread_state_exit) != 0) {
        pthread_mutex_destroy(&acc->lock);
        accel_pinned_fini(&acc->pinned);
        accel_host_cache_fini(&acc->host_cache, NULL, NULL);
        accel_handles_fini(&acc->handles);
        free(acc);
        return accel_error(ACCEL_ERROR_INTERNAL, "out of thread-local keys opening %s", ops->name);
    }
    snprintf(acc->compile_backend, sizeof acc->compile_backend, "%s",
             ops->info->default_compile_backend ? ops->info->default_compile_backend : "");

    status = ops->create(&acc->self);
    if (status != ACCEL_OK) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%s: ", ops->name);
        accel_error_prefix(prefix);
        acc->self = NULL;
        goto fail;
    }
    status = ops->device_count(acc->self, &acc->device_count);
    /* A negative count is the runtime's answer, not accel's bug: no usable
     * device, as before 0 devices were allowed (accel_check_has_devices). */
    if (status == ACCEL_OK && acc->device_count < 0)
        status = accel_error(ACCEL_ERROR_UNAVAILABLE,
                             "%s: the runtime reports %d devices, which is no usable device",
                             ops->name, acc->device_count);
    if (status != ACCEL_OK)
        goto fail;
    acc->initial_device = instance_initial_device(acc);
    status = accel_rng_fallback_open(acc);
    if (status == ACCEL_OK)
        status = instance_make_devices(acc);
    if (status == ACCEL_OK)
        status = accel_ops_builders_make(acc, &acc->builders, &acc->builder_count);
    if (status != ACCEL_OK)
        goto fail;
    accel_fork_install();
    pthread_mutex_lock(&instances_lock);
    acc->next_instance = instances;
    if (instances != NULL)
        instances->prev_instance = acc;
    instances = acc;
    pthread_mutex_unlock(&instances_lock);
    *out = acc;
    return ACCEL_OK;

fail : {
    char saved[1024];
    accel_error_copy(saved, sizeof saved);
    accel_instance_destroy(acc);
    return accel_error(status, "%s", saved);
}
}

/* Segments go back to the runtime only once the device's queued work has
 * run: some runtimes free at once, under a copy still in flight. When the
 * device cannot be synchronized its memory is left to the runtime (a leak,
 * said) rather than freed under work that may still use it. */
static void instance_free_allocator(accel_t *acc, int device, accel_allocator_t *allocator)
{
    if (acc->self == NULL || acc->ops->synchronize(acc->self, device) == ACCEL_OK) {
        accel_allocator_destroy(allocator);
        return;
    }
    accel_log(ACCEL_LOG_WARN,
              "%s: closing: device %d could not be synchronized (%s); its cached memory is "
              "left to the runtime rather than freed under work that may still use it",
              acc->ops->name, device, accel_last_error());
    accel_allocator_destroy_keeping_memory(allocator);
}

static void instance_free_devices(accel_t *acc)
{
    if (acc->devices == NULL)
        return;
    for (int d = 0; d < acc->device_count; d++) {
        accel_device_state_t *dev = &acc->devices[d];
        if (dev->allocator != NULL)
            instance_free_allocator(acc, d, dev->allocator);
        free(dev->allocator_ctx);
        pthread_mutex_destroy(&dev->rng_lock);
        pthread_mutex_destroy(&dev->capture_lock);
        free(dev->default_stream);
    }
    free(acc->devices);
}

/* The pinned host cache's blocks go back through the backend's host_free. */
static void instance_release_host_block(void *ctx, void *ptr, size_t size)
{
    accel_t *acc = ctx;
    acc->ops->host_free(acc->self, ptr, size);
}

void accel_instance_destroy(accel_t *acc)
{
    accel_lazy_entry_t *entry;
    if (acc == NULL)
        return;
    pthread_mutex_lock(&instances_lock);
    if (acc->prev_instance != NULL)
        acc->prev_instance->next_instance = acc->next_instance;
    else if (instances == acc)
        instances = acc->next_instance;
    if (acc->next_instance != NULL)
        acc->next_instance->prev_instance = acc->prev_instance;
    pthread_mutex_unlock(&instances_lock);
    /* The random fills' staging buffers and the allocators free through the
     * backend, so they go before the backend. */
    accel_rng_fallback_close(acc);
    accel_host_cache_fini(&acc->host_cache, instance_release_host_block, acc);
    instance_free_devices(acc);
    accel_ops_builders_free(acc->builders, acc->builder_count);
    if (acc->self != NULL)
        acc->ops->destroy(acc->self);
    while ((entry = acc->lazy_head) != NULL) {
        acc->lazy_head = entry->next;
        free(entry);
    }
    /* The calling thread's and every other live thread's: after the key is
     * deleted, thread exits no longer free them. */
    pthread_key_delete(acc->thread_key);
    accel_thread_states_free(acc);
    accel_pinned_fini(&acc->pinned);
    accel_handles_fini(&acc->handles);
    pthread_mutex_destroy(&acc->lock);
    acc->tag = ACCEL_TAG_DEAD;
    free(acc);
}

static void instance_run_lazy(accel_t *acc, accel_lazy_entry_t *list)
{
    /* The list was pushed newest-first; run oldest-first. */
    accel_lazy_entry_t *ordered = NULL;
    while (list != NULL) {
        accel_lazy_entry_t *next = list->next;
        list->next = ordered;
        ordered = list;
        list = next;
    }
    while (ordered != NULL) {
        accel_lazy_entry_t *next = ordered->next;
        ordered->fn(acc, ordered->user_data);
        free(ordered);
        ordered = next;
    }
}

accel_status_t accel_ensure_init(accel_t *acc)
{
    accel_lazy_entry_t *pending = NULL;
    accel_status_t status;
    if (atomic_load_explicit(&acc->initialized, memory_order_acquire))
        return ACCEL_OK;
    pthread_mutex_lock(&acc->lock);
    if (!acc->init_attempted) {
        acc->init_attempted = true;
        acc->init_status = acc->ops->init(acc->self);
        if (acc->init_status != ACCEL_OK) {
            accel_error_copy(acc->init_error, sizeof acc->init_error);
            accel_log(ACCEL_LOG_ERROR, "%s: runtime initialisation failed: %s", acc->ops->name,
                      acc->init_error);
        } else {
            pending = acc->lazy_head;
            acc->lazy_head = NULL;
            atomic_store_explicit(&acc->initialized, true, memory_order_release);
        }
    }
    status = acc->init_status;
    pthread_mutex_unlock(&acc->lock);
    if (status != ACCEL_OK)
        return accel_error(status, "%s: runtime initialisation failed earlier: %s", acc->ops->name,
                           acc->init_error);
    instance_run_lazy(acc, pending);
    return ACCEL_OK;
}

/* ---- fork: every lock of every accel_t, outermost first (see fork.h) */

/* The builders' locks: the listed ones and the NotImplementedBuilder after
 * them (ops.h); none when the builders were never made. */
static size_t instance_builder_locks(const accel_t *acc)
{
    return acc->builders != NULL ? acc->builder_count + 1 : 0;
}

static void instance_fork_lock(accel_t *acc)
{
    for (size_t i = 0; i < instance_builder_locks(acc); i++)
        pthread_mutex_lock(&acc->builders[i].lock);
    pthread_mutex_lock(&acc->lock);
    accel_handles_fork_lock(&acc->handles);
    for (int d = 0; d < acc->device_count; d++) {
        pthread_mutex_lock(&acc->devices[d].capture_lock);
        pthread_mutex_lock(&acc->devices[d].rng_lock);
        accel_allocator_fork_lock(acc->devices[d].allocator);
    }
    pthread_mutex_lock(&acc->pinned.lock);
    accel_host_cache_fork_lock(&acc->host_cache);
    accel_rng_fallback_fork_lock(acc);
}

static void instance_fork_unlock(accel_t *acc)
{
    accel_rng_fallback_fork_unlock(acc);
    accel_host_cache_fork_unlock(&acc->host_cache);
    pthread_mutex_unlock(&acc->pinned.lock);
    for (int d = acc->device_count; d-- > 0;) {
        accel_allocator_fork_unlock(acc->devices[d].allocator);
        pthread_mutex_unlock(&acc->devices[d].rng_lock);
        pthread_mutex_unlock(&acc->devices[d].capture_lock);
    }
    accel_handles_fork_unlock(&acc->handles);
    pthread_mutex_unlock(&acc->lock);
    for (size_t i = instance_builder_locks(acc); i-- > 0;)
        pthread_mutex_unlock(&acc->builders[i].lock);
}

void accel_instances_fork_lock(void)
{
    pthread_mutex_lock(&instances_lock);
    for (accel_t *acc = instances; acc != NULL; acc = acc->next_instance)
        instance_fork_lock(acc);
}

void accel_instances_fork_unlock(void)
{
    for (accel_t *acc = instances; acc != NULL; acc = acc->next_instance)
        instance_fork_unlock(acc);
    pthread_mutex_unlock(&instances_lock);
}
