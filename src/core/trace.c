/* trace.c: the built-in trace recorder (ACCEL_TRACE=out.json, or
 * accel_trace_start/flush/stop): Chrome trace-event JSON that Perfetto and
 * chrome://tracing open.
 *
 * Tracks: each host thread is its own track (its OS thread id); each stream
 * that reports work through accel_trace_stream_work gets a synthetic track id
 * named "stream N (device D)" by thread_name metadata. Ranges are B/E pairs,
 * copies/fills/stream work are X (complete) events, allocations are i
 * (instant) events plus a C (counter) event of the device's memory.
 *
 * Memory and locking: one fixed buffer of `capacity` events (1 << 20, or
 * ACCEL_TRACE_BUFFER), allocated at start and freed at stop. A single mutex
 * guards the buffer and every table here; it is taken only while tracing is
 * on, so the off path never touches it. When the buffer is full further
 * events are dropped and counted; the count is written with the trace.
 * A flush rewrites the whole file from the buffer (the file is always one
 * complete JSON document), with events sorted by time, unmatched E events
 * left out and ranges still open closed at the flush time. atexit() is
 * registered the first time tracing starts, never before. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/json_string.h"
#include "env.h"
#include "error.h"
#include "fork.h"
#include "trace.h"

#define TRACE_DEFAULT_CAPACITY (1u << 20)
#define TRACE_MIN_CAPACITY     16L
#define TRACE_MAX_CAPACITY     (1L << 26)
#define TRACE_NAME_MAX         40
#define TRACE_STREAM_TID_BASE  (1 << 24) /* above any Linux pid_max */

typedef enum trace_category {
    TRACE_CAT_RANGE = 0,
    TRACE_CAT_API = 1,
    TRACE_CAT_STREAM = 2,
    TRACE_CAT_MEMORY = 3,
} trace_category_t;

static const char *const trace_category_names[] = {"range", "api", "stream", "memory"};

typedef struct trace_event {
    uint64_t ts_ns;  /* CLOCK_MONOTONIC */
    uint64_t dur_ns; /* X only */
    uint64_t value;  /* bytes (X, i) or allocated bytes (C) */
    uint64_t value2; /* reserved bytes (C) */
    int32_t tid;
    int16_t device; /* -1: none */
    char phase;     /* 'B', 'E', 'X', 'i', 'C' */
    uint8_t category;
    char name[TRACE_NAME_MAX];
} trace_event_t;

typedef struct trace_thread {
    int32_t tid;
    char name[32];
} trace_thread_t;

typedef struct trace_stream {
    const void *key;
    int device;
    int32_t tid;
} trace_stream_t;

atomic_int accel_trace_state = ACCEL_TRACE_STATE_UNKNOWN;

static pthread_once_t trace_env_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;

/* Everything below is guarded by trace_lock. */
static struct {
    FILE *file;
    char path[4096];
    trace_event_t *events; /* NULL while not recording */
    size_t capacity, count;
    uint64_t dropped;
    uint64_t start_ns;
    int pid;
    uint32_t generation; /* bumped at every start: threads re-announce themselves */
    bool atexit_registered;
    trace_thread_t *threads;
    size_t thread_count, thread_cap;
    trace_stream_t *streams;
    size_t stream_count, stream_cap;
} trace;

/* Per thread: its OS id (0 until asked) and the session it announced itself in. */
static _Thread_local int32_t trace_tls_tid;
static _Thread_local uint32_t trace_tls_generation;

uint64_t accel_trace_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + 1u;
}

static int32_t trace_thread_id(void)
{
    if (trace_tls_tid == 0)
        trace_tls_tid = (int32_t)syscall(SYS_gettid);
    return trace_tls_tid;
}

static void *trace_grow(void *array, size_t *cap, size_t elem)
{
    size_t new_cap = *cap ? *cap * 2 : 16;
    void *grown = realloc(array, new_cap * elem);
    if (grown != NULL)
        *cap = new_cap;
    return grown;
}

/* Called with trace_lock held: name the calling thread's track once per
 * session (a failed allocation leaves it unnamed, which viewers accept). */
static void trace_announce_thread_locked(int32_t tid)
{
    if (trace_tls_generation == trace.generation)
        return;
    trace_tls_generation = trace.generation;
    if (trace.thread_count == trace.thread_cap) {
        trace_thread_t *grown = trace_grow(trace.threads, &trace.thread_cap, sizeof *grown);
        if (grown == NULL)
            return;
        trace.threads = grown;
    }
    trace_thread_t *thread = &trace.threads[trace.thread_count++];
    thread->tid = tid;
    if (pthread_getname_np(pthread_self(), thread->name, sizeof thread->name) != 0 ||
        thread->name[0] == '\0')
        snprintf(thread->name, sizeof thread->name, "thread %d", (int)tid);
}

/* Called with trace_lock held: the track of a stream, made on first sight.
 * A key reused by a stream on another device (freed memory reused) gets a
 * new track, and so does one reused after accel_trace_stream_destroyed
 * (closed tracks keep their events but have key NULL, which never matches).
 * Returns 0 when out of memory. */
static int32_t trace_stream_track_locked(const void *key, int device)
{
    for (size_t i = trace.stream_count; i-- > 0;)
        if (trace.streams[i].key == key && trace.streams[i].device == device)
            return trace.streams[i].tid;
    if (trace.stream_count == trace.stream_cap) {
        trace_stream_t *grown = trace_grow(trace.streams, &trace.stream_cap, sizeof *grown);
        if (grown == NULL)
            return 0;
        trace.streams = grown;
    }
    trace_stream_t *stream = &trace.streams[trace.stream_count++];
    stream->key = key;
    stream->device = device;
    stream->tid = TRACE_STREAM_TID_BASE + (int32_t)trace.stream_count;
    return stream->tid;
}

/* Append one event. tid 0 = the calling host thread; stream_key non-NULL =
 * that stream's track. */
static void trace_record(trace_event_t *event, const void *stream_key)
{
    int32_t host_tid = stream_key == NULL && event->tid == 0 ? trace_thread_id() : 0;
    pthread_mutex_lock(&trace_lock);
    if (trace.events == NULL) {
        pthread_mutex_unlock(&trace_lock);
        return;
    }
    if (host_tid != 0) {
        trace_announce_thread_locked(host_tid);
        event->tid = host_tid;
    } else if (stream_key != NULL) {
        event->tid = trace_stream_track_locked(stream_key, event->device);
    }
    if (trace.count < trace.capacity && event->tid != 0)
        trace.events[trace.count++] = *event;
    else
        trace.dropped++;
    pthread_mutex_unlock(&trace_lock);
}

static void trace_set_name(trace_event_t *event, const char *name)
{
    snprintf(event->name, sizeof event->name, "%s", name ? name : "");
}

/* ---------------------------------------------------------------- hooks */

void accel_trace_range_push(const char *msg)
{
    trace_event_t event = {
        .ts_ns = accel_trace_now_ns(), .device = -1, .phase = 'B', .category = TRACE_CAT_RANGE};
    trace_set_name(&event, msg);
    trace_record(&event, NULL);
}

void accel_trace_range_pop(void)
{
    trace_event_t event = {
        .ts_ns = accel_trace_now_ns(), .device = -1, .phase = 'E', .category = TRACE_CAT_RANGE};
    trace_record(&event, NULL);
}

void accel_trace_op(uint64_t begin_ns, const char *name, size_t bytes, int device)
{
    uint64_t end_ns = accel_trace_now_ns();
    trace_event_t event = {.ts_ns = begin_ns,
                           .dur_ns = end_ns - begin_ns,
                           .value = bytes,
                           .device = (int16_t)device,
                           .phase = 'X',
                           .category = TRACE_CAT_API};
    trace_set_name(&event, name);
    trace_record(&event, NULL);
}

void accel_trace_memory(accel_t *acc, int device, const char *what, size_t bytes)
{
    accel_memory_stats_t stats = {.struct_size = sizeof stats};
    trace_event_t event = {.ts_ns = accel_trace_now_ns(),
                           .value = bytes,
                           .device = (int16_t)device,
                           .phase = 'i',
                           .category = TRACE_CAT_MEMORY};
    trace_set_name(&event, what);
    trace_record(&event, NULL);
    accel_allocator_stats(acc->devices[device].allocator, &stats);
    event = (trace_event_t){.ts_ns = accel_trace_now_ns(),
                            .value = stats.allocated_bytes,
                            .value2 = stats.reserved_bytes,
                            .device = (int16_t)device,
                            .phase = 'C',
                            .category = TRACE_CAT_MEMORY};
    snprintf(event.name, sizeof event.name, "memory (device %d)", device);
    trace_record(&event, NULL);
}

bool accel_trace_enabled(void)
{
    return accel_trace_active();
}

void accel_trace_stream_work(const void *stream_key, int device, const char *name,
                             uint64_t begin_ns, uint64_t end_ns)
{
    if (!accel_trace_active())
        return;
    trace_event_t event = {.ts_ns = begin_ns,
                           .dur_ns = end_ns > begin_ns ? end_ns - begin_ns : 0,
                           .device = (int16_t)device,
                           .phase = 'X',
                           .category = TRACE_CAT_STREAM};
    trace_set_name(&event, name);
    trace_record(&event, stream_key);
}

void accel_trace_stream_destroyed(const void *stream_key)
{
    if (stream_key == NULL || !accel_trace_active())
        return;
    pthread_mutex_lock(&trace_lock);
    for (size_t i = 0; i < trace.stream_count; i++)
        if (trace.streams[i].key == stream_key)
            trace.streams[i].key = NULL;
    pthread_mutex_unlock(&trace_lock);
}

/* ---------------------------------------------------------------- writing */

static double trace_us(uint64_t ts_ns)
{
    return ts_ns > trace.start_ns ? (double)(ts_ns - trace.start_ns) / 1e3 : 0.0;
}

static void trace_write_metadata(FILE *out, const char *what, int32_t tid, const char *name)
{
    fprintf(out, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", what,
            trace.pid, (int)tid);
    accel_json_write_string(out, name);
    fputs("}},\n", out);
}

static void trace_write_event(FILE *out, const trace_event_t *e)
{
    fprintf(out, "{\"ph\":\"%c\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f", e->phase, trace.pid,
            (int)e->tid, trace_us(e->ts_ns));
    if (e->phase != 'E') {
        fputs(",\"name\":", out);
        accel_json_write_string(out, e->name);
        fprintf(out, ",\"cat\":\"%s\"", trace_category_names[e->category]);
    }
    switch (e->phase) {
    case 'X':
        fprintf(out, ",\"dur\":%.3f", (double)e->dur_ns / 1e3);
        if (e->category == TRACE_CAT_API)
            fprintf(out, ",\"args\":{\"bytes\":%llu,\"device\":%d}", (unsigned long long)e->value,
                    e->device);
        break;
    case 'i':
        fprintf(out, ",\"s\":\"t\",\"args\":{\"bytes\":%llu,\"device\":%d}",
                (unsigned long long)e->value, e->device);
        break;
    case 'C':
        fprintf(out, ",\"args\":{\"allocated\":%llu,\"reserved\":%llu}",
                (unsigned long long)e->value, (unsigned long long)e->value2);
        break;
    default: break;
    }
    fputs("},\n", out);
}

typedef struct trace_order {
    uint64_t ts_ns;
    size_t index;
} trace_order_t;

static int trace_order_compare(const void *a, const void *b)
{
    const trace_order_t *x = a, *y = b;
    if (x->ts_ns != y->ts_ns)
        return x->ts_ns < y->ts_ns ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Open-range depth per track while writing (a few tracks: a linear list). */
typedef struct trace_depth {
    int32_t tid;
    int depth;
} trace_depth_t;

static int *trace_depth_of(trace_depth_t *depths, size_t *count, int32_t tid)
{
    for (size_t i = 0; i < *count; i++)
        if (depths[i].tid == tid)
            return &depths[i].depth;
    depths[*count] = (trace_depth_t){.tid = tid, .depth = 0};
    return &depths[(*count)++].depth;
}

/* Write every event in time order. E events with no open B on their track
 * (the range opened before tracing started) are left out; ranges still open
 * get an E at `now_ns`. Returns false when out of memory. */
static bool trace_write_events(FILE *out, uint64_t now_ns)
{
    size_t n = trace.count, depth_count = 0;
    trace_order_t *order = malloc((n ? n : 1) * sizeof *order);
    trace_depth_t *depths = malloc((n + 1) * sizeof *depths); /* at most one per event */
    if (order == NULL || depths == NULL) {
        free(order);
        free(depths);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = (trace_order_t){.ts_ns = trace.events[i].ts_ns, .index = i};
    qsort(order, n, sizeof *order, trace_order_compare);
    for (size_t i = 0; i < n; i++) {
        const trace_event_t *e = &trace.events[order[i].index];
        if (e->phase == 'B' || e->phase == 'E') {
            int *depth = trace_depth_of(depths, &depth_count, e->tid);
            if (e->phase == 'E' && *depth == 0)
                continue;
            *depth += e->phase == 'B' ? 1 : -1;
        }
        trace_write_event(out, e);
    }
    for (size_t i = 0; i < depth_count; i++) {
        trace_event_t close = {.ts_ns = now_ns, .tid = depths[i].tid, .phase = 'E'};
        for (int k = 0; k < depths[i].depth; k++)
            trace_write_event(out, &close);
    }
    free(order);
    free(depths);
    return true;
}

/* Called with trace_lock held and recording on: rewrite the whole file. */
static accel_status_t trace_flush_locked(void)
{
    FILE *out = trace.file;
    uint64_t now_ns = accel_trace_now_ns();
    char name[64];
    rewind(out);
    fputs("{\"traceEvents\":[\n", out);
    snprintf(name, sizeof name, "accel (%s)", program_invocation_short_name);
    trace_write_metadata(out, "process_name", 0, name);
    for (size_t i = 0; i < trace.thread_count; i++)
        trace_write_metadata(out, "thread_name", trace.threads[i].tid, trace.threads[i].name);
    for (size_t i = 0; i < trace.stream_count; i++) {
        snprintf(name, sizeof name, "stream %zu (device %d)", i + 1, trace.streams[i].device);
        trace_write_metadata(out, "thread_name", trace.streams[i].tid, name);
        fprintf(out,
                "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                "\"args\":{\"sort_index\":%zu}},\n",
                trace.pid, (int)trace.streams[i].tid, 1000 + i);
    }
    bool complete = trace_write_events(out, now_ns);
    /* Last: the drop count, as metadata (no trailing comma after it). */
    fprintf(out,
            "{\"name\":\"accel_trace_dropped\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
            "\"args\":{\"dropped_events\":%llu,\"buffer_events\":%zu}}\n",
            trace.pid, (unsigned long long)trace.dropped, trace.capacity);
    fprintf(out,
            "],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"dropped_events\":%llu,"
            "\"buffer_events\":%zu,\"accel_version\":\"%s\"}}\n",
            (unsigned long long)trace.dropped, trace.capacity, accel_version());
    fflush(out);
    if (!complete)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "trace: out of host memory sorting %zu events for %s", trace.count,
                           trace.path);
    if (ferror(out) || ftruncate(fileno(out), ftell(out)) != 0) {
        clearerr(out);
        return accel_error(ACCEL_ERROR_UNAVAILABLE, "trace: writing %s failed: %s", trace.path,
                           strerror(errno));
    }
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- lifetime */

static void trace_atexit(void)
{
    if (atomic_load(&accel_trace_state) == ACCEL_TRACE_STATE_ON)
        accel_trace_stop();
}

static size_t trace_capacity_from_env(void)
{
    const char *text = accel_env_get("ACCEL_TRACE_BUFFER");
    long value;
    if (text == NULL)
        return TRACE_DEFAULT_CAPACITY;
    if (!accel_env_parse_int(text, &value) || value < TRACE_MIN_CAPACITY ||
        value > TRACE_MAX_CAPACITY) {
        accel_log(ACCEL_LOG_WARN,
                  "ACCEL_TRACE_BUFFER=%s is not an event count in [%ld, %ld]; using %u", text,
                  TRACE_MIN_CAPACITY, TRACE_MAX_CAPACITY, TRACE_DEFAULT_CAPACITY);
        return TRACE_DEFAULT_CAPACITY;
    }
    return (size_t)value;
}

/* Called with trace_lock held. */
static accel_status_t trace_start_locked(const char *path)
{
    size_t capacity = trace_capacity_from_env();
    if (trace.events != NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "trace: already recording to %s (call accel_trace_stop first)",
                           trace.path);
    if (strlen(path) >= sizeof trace.path)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "trace: path is too long");
    trace.events = calloc(capacity, sizeof *trace.events);
    if (trace.events == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "trace: out of host memory for a buffer of %zu events", capacity);
    trace.file = fopen(path, "w");
    if (trace.file == NULL) {
        int saved = errno;
        free(trace.events);
        trace.events = NULL;
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "trace: cannot open %s for writing: %s",
                           path, strerror(saved));
    }
    snprintf(trace.path, sizeof trace.path, "%s", path);
    trace.capacity = capacity;
    trace.count = 0;
    trace.dropped = 0;
    trace.thread_count = trace.stream_count = 0;
    trace.generation++;
    trace.pid = (int)getpid();
    trace.start_ns = accel_trace_now_ns();
    if (!trace.atexit_registered)
        trace.atexit_registered = atexit(trace_atexit) == 0;
    atomic_store(&accel_trace_state, ACCEL_TRACE_STATE_ON);
    return ACCEL_OK;
}

static void trace_read_env(void)
{
    const char *path = accel_env_get("ACCEL_TRACE");
    accel_status_t status = ACCEL_ERROR_NOT_FOUND;
    pthread_mutex_lock(&trace_lock);
    if (path != NULL)
        status = trace_start_locked(path);
    if (status != ACCEL_OK) {
        int expected = ACCEL_TRACE_STATE_UNKNOWN;
        atomic_compare_exchange_strong(&accel_trace_state, &expected, ACCEL_TRACE_STATE_OFF);
    }
    pthread_mutex_unlock(&trace_lock);
    if (path != NULL && status != ACCEL_OK)
        accel_log(ACCEL_LOG_WARN, "ACCEL_TRACE: %s; not tracing", accel_last_error());
}

bool accel_trace_resolve(void)
{
    pthread_once(&trace_env_once, trace_read_env);
    return atomic_load_explicit(&accel_trace_state, memory_order_relaxed) == ACCEL_TRACE_STATE_ON;
}

accel_status_t accel_trace_start(const char *path)
{
    accel_status_t status;
    if (path == NULL || *path == '\0')
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "trace: path is NULL or empty");
    pthread_once(&trace_env_once, trace_read_env); /* ACCEL_TRACE first, so it cannot start later */
    pthread_mutex_lock(&trace_lock);
    status = trace_start_locked(path);
    pthread_mutex_unlock(&trace_lock);
    return status;
}

accel_status_t accel_trace_flush(void)
{
    accel_status_t status;
    pthread_once(&trace_env_once, trace_read_env);
    pthread_mutex_lock(&trace_lock);
    if (trace.events == NULL)
        status = accel_error(ACCEL_ERROR_NOT_FOUND,
                             "trace: nothing is being recorded (set ACCEL_TRACE or call "
                             "accel_trace_start)");
    else
        status = trace_flush_locked();
    pthread_mutex_unlock(&trace_lock);
    return status;
}

accel_status_t accel_trace_stop(void)
{
    accel_status_t status;
    pthread_once(&trace_env_once, trace_read_env);
    pthread_mutex_lock(&trace_lock);
    if (trace.events == NULL) {
        pthread_mutex_unlock(&trace_lock);
        return accel_error(ACCEL_ERROR_NOT_FOUND,
                           "trace: nothing is being recorded (set ACCEL_TRACE or call "
                           "accel_trace_start)");
    }
    atomic_store(&accel_trace_state, ACCEL_TRACE_STATE_OFF);
    status = trace_flush_locked();
    if (fclose(trace.file) != 0 && status == ACCEL_OK)
        status = accel_error(ACCEL_ERROR_UNAVAILABLE, "trace: closing %s failed: %s", trace.path,
                             strerror(errno));
    trace.file = NULL;
    free(trace.events);
    trace.events = NULL;
    free(trace.threads);
    trace.threads = NULL;
    trace.thread_cap = trace.thread_count = 0;
    free(trace.streams);
    trace.streams = NULL;
    trace.stream_cap = trace.stream_count = 0;
    pthread_mutex_unlock(&trace_lock);
    return status;
}

void accel_trace_fork_lock(void)
{
    pthread_mutex_lock(&trace_lock);
}

void accel_trace_fork_unlock(void)
{
    pthread_mutex_unlock(&trace_lock);
}
