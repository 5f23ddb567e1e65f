/* test_aio.c: async_io (AsyncIOBuilder) on the cpu backend: round trips of
 * awkward sizes and offsets (checked against the file's bytes read back with
 * plain pread), in place and through the bounce buffers, with and without
 * O_DIRECT and for each handle setting; O_DIRECT alignment errors; a full
 * disk (/dev/full), a file size limit (RLIMIT_FSIZE in a child) and a read
 * past the end, none reporting bytes that did not move; a file removed
 * mid-way; many handles from several threads; bad input. ctest runs it once
 * per engine (ACCEL_AIO_ENGINE) and once as if liburing were not installed
 * (ACCEL_AIO_LIBURING naming a missing file). Files live in a fresh folder under the
 * working directory (a disk file system, where O_DIRECT works). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "accel/accel.h"
#include "accel/accel_ops.h"

static accel_t *test_acc;
static const accel_aio_op_t *aio;
static char folder[64];

/* ================================================================ helpers */

static void path_of(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", folder, name);
}

static void fill(uint8_t *buf, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (uint8_t)x;
    }
}

/* A 1-D uint8 host tensor over `data`. */
static DLTensor bytes_tensor(void *data, int64_t *shape, size_t n)
{
    *shape = (int64_t)n;
    return (DLTensor){.data = data,
                      .device = {.device_type = kDLCPU, .device_id = 0},
                      .ndim = 1,
                      .dtype = {.code = kDLUInt, .bits = 8, .lanes = 1},
                      .shape = shape};
}

/* Aligned memory, then `skew` bytes in (to make a misaligned buffer). */
static uint8_t *buffer_make(size_t n, size_t skew, void **base)
{
    assert_int_equal(posix_memalign(base, 4096, n + skew + 1), 0);
    return (uint8_t *)*base + skew;
}

static accel_aio_handle_t *handle_make(size_t block, unsigned depth, bool single, bool overlap,
                                       unsigned threads, bool direct)
{
    accel_aio_config_t c = ACCEL_AIO_CONFIG_DEFAULT;
    accel_aio_handle_t *h = NULL;
    c.block_size = block;
    c.queue_depth = depth;
    c.single_submit = single;
    c.overlap_events = overlap;
    c.intra_op_parallelism = threads;
    c.direct = direct;
    if (aio->handle_create(test_acc, &c, &h) != ACCEL_OK)
        fail_msg("handle_create: %s", accel_last_error());
    return h;
}

/* The file's bytes [offset, offset + n), read with plain pread. */
static void file_bytes(const char *path, uint64_t offset, uint8_t *out, size_t n)
{
    int fd = open(path, O_RDONLY);
    size_t done = 0;
    assert_true(fd >= 0);
    while (done < n) {
        ssize_t r = pread(fd, out + done, n - done, (off_t)(offset + done));
        assert_true(r > 0);
        done += (size_t)r;
    }
    close(fd);
}

static off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

static void expect_error(accel_status_t got, accel_status_t want, const char *words)
{
    if (got != want)
        fail_msg("status %s, expected %s (%s)", accel_status_name(got), accel_status_name(want),
                 accel_last_error());
    if (strstr(accel_last_error(), words) == NULL)
        fail_msg("error \"%s\" does not say \"%s\"", accel_last_error(), words);
}

/* ================================================================ round trips */

typedef struct round_trip_case {
    size_t block;
    unsigned depth;
    bool single, overlap;
    unsigned threads;
    bool direct;
} round_trip_case_t;

static void round_trip(accel_aio_handle_t *h, const char *path, size_t n, uint64_t offset,
                       size_t skew, bool async, uint64_t seed)
{
    void *wbase, *rbase;
    uint8_t *src = buffer_make(n, skew, &wbase);
    uint8_t *dst = buffer_make(n, (skew * 7) % 4096, &rbase);
    uint8_t *check = malloc(n + 1);
    int64_t shape_w, shape_r;
    size_t completed = 0;
    assert_non_null(check);
    fill(src, n, seed);
    memset(dst, 0xA5, n);
    DLTensor tw = bytes_tensor(src, &shape_w, n), tr = bytes_tensor(dst, &shape_r, n);
    if (aio->pwrite(h, &tw, path, offset, async) != ACCEL_OK)
        fail_msg("pwrite %zu bytes at %llu: %s", n, (unsigned long long)offset, accel_last_error());
    if (async) {
        assert_int_equal(aio->wait(h, &completed), ACCEL_OK);
        assert_int_equal(completed, 1);
    }
    assert_true(file_size(path) >= (off_t)(offset + n));
    file_bytes(path, offset, check, n);
    if (memcmp(check, src, n) != 0)
        fail_msg("file bytes differ after writing %zu bytes at %llu", n,
                 (unsigned long long)offset);
    if (aio->pread(h, &tr, path, offset, async) != ACCEL_OK)
        fail_msg("pread %zu bytes at %llu: %s", n, (unsigned long long)offset, accel_last_error());
    if (async)
        assert_int_equal(aio->wait(h, NULL), ACCEL_OK);
    if (memcmp(dst, src, n) != 0)
        fail_msg("read back differs: %zu bytes at %llu, skew %zu", n, (unsigned long long)offset,
                 skew);
    free(check);
    free(wbase);
    free(rbase);
}

static void test_round_trips(void **state)
{
    static const round_trip_case_t cases[] = {
        {1 << 20, 128, false, false, 1, true}, /* DeepSpeed's defaults */
        {16384, 2, false, false, 3, true},     /* blocks spread over threads, shallow queue */
        {8192, 4, true, true, 2, true},        /* single submit, overlapped events */
        {4096, 1, false, true, 1, true},
        {5000, 3, false, false, 2, false}, /* page cache, odd block size */
    };
    static const size_t sizes[] = {
        1, 4095, 4096, 4097, 3 * 4096 + 123, (1 << 20) + 7, 5 * (1 << 20) + 3 * 4096};
    static const uint64_t direct_offsets[] = {0, 4096, 3 * 4096};
    static const uint64_t buffered_offsets[] = {0, 1, 4097, 12345};
    char path[128];
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const round_trip_case_t *k = &cases[c];
        accel_aio_handle_t *h =
            handle_make(k->block, k->depth, k->single, k->overlap, k->threads, k->direct);
        const uint64_t *offsets = k->direct ? direct_offsets : buffered_offsets;
        size_t offset_count = k->direct ? 3 : 4;
        snprintf(path, sizeof path, "%s/round-trip-%zu", folder, c);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t o = 0; o < offset_count; o++)
                for (size_t skew = 0; skew <= 1; skew++) /* in place, then bounced */
                    round_trip(h, path, sizes[s], offsets[o], skew * 3, (s + o) % 2 == 1,
                               c * 1000 + s * 10 + o);
        aio->handle_destroy(h);
        unlink(path);
    }
}

/* An empty tensor is a request that moves nothing and succeeds. */
static void test_empty_tensor(void **state)
{
    accel_aio_handle_t *h = handle_make(1 << 20, 8, false, false, 2, true);
    uint8_t byte = 0;
    int64_t shape;
    DLTensor t = bytes_tensor(&byte, &shape, 0);
    char path[128];
    size_t completed = 0;
    (void)state;
    path_of(path, sizeof path, "empty");
    assert_int_equal(aio->pwrite(h, &t, path, 0, true), ACCEL_OK);
    assert_int_equal(aio->pread(h, &t, path, 0, true), ACCEL_OK);
    assert_int_equal(aio->wait(h, &completed), ACCEL_OK);
    assert_int_equal(completed, 2);
    assert_int_equal(file_size(path), 0);
    aio->handle_destroy(h);
    unlink(path);
}

/* pinned_alloc memory is aligned for O_DIRECT (read and written in place)
 * and pinned where the backend pins. */
static void test_pinned_buffers(void **state)
{
    accel_aio_handle_t *h = handle_make(1 << 16, 8, false, false, 2, true);
    const size_t n = 3 * 4096 + 100;
    void *src = NULL, *dst = NULL;
    int64_t shape_w, shape_r;
    bool pinned = false, supported = false;
    char path[128];
    (void)state;
    assert_int_equal(aio->pinned_alloc(h, n, &src), ACCEL_OK);
    assert_int_equal(aio->pinned_alloc(h, n, &dst), ACCEL_OK);
    assert_int_equal((uintptr_t)src % aio->alignment, 0);
    assert_int_equal(accel_query_flag(test_acc, ACCEL_FLAG_HOST_REGISTER_SUPPORTED, &supported),
                     ACCEL_OK);
    assert_int_equal(accel_is_pinned(test_acc, (uint8_t *)src + n - 1, &pinned), ACCEL_OK);
    assert_int_equal(pinned, supported);
    fill(src, n, 8);
    DLTensor tw = bytes_tensor(src, &shape_w, n), tr = bytes_tensor(dst, &shape_r, n);
    path_of(path, sizeof path, "pinned");
    assert_int_equal(aio->pwrite(h, &tw, path, 8192, false), ACCEL_OK);
    assert_int_equal(aio->pread(h, &tr, path, 8192, false), ACCEL_OK);
    assert_memory_equal(src, dst, n);
    assert_int_equal(aio->pinned_free(h, src), ACCEL_OK);
    assert_int_equal(accel_is_pinned(test_acc, src, &pinned), ACCEL_OK);
    assert_false(pinned);
    assert_int_equal(aio->pinned_free(h, dst), ACCEL_OK);
    assert_int_equal(aio->pinned_alloc(h, 0, &src), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(aio->pinned_free(h, (uint8_t *)dst + 1), ACCEL_ERROR_INVALID_ARGUMENT);
    aio->handle_destroy(h);
    unlink(path);
}

/* ================================================================ errors */

static void test_direct_alignment_errors(void **state)
{
    accel_aio_config_t c = ACCEL_AIO_CONFIG_DEFAULT;
    accel_aio_handle_t *h = NULL;
    uint8_t *buf;
    void *base;
    int64_t shape;
    char path[128];
    (void)state;
    c.block_size = 1000;
    expect_error(aio->handle_create(test_acc, &c, &h), ACCEL_ERROR_INVALID_ARGUMENT,
                 "not a multiple of 4096");
    assert_null(h);
    h = handle_make(1 << 16, 8, false, false, 1, true);
    buf = buffer_make(8192, 0, &base);
    fill(buf, 8192, 1);
    DLTensor t = bytes_tensor(buf, &shape, 8192);
    path_of(path, sizeof path, "unaligned");
    expect_error(aio->pwrite(h, &t, path, 100, false), ACCEL_ERROR_INVALID_ARGUMENT,
                 "file_offset 100 is not a multiple of 4096");
    assert_int_equal(file_size(path), -1); /* refused before the file was created */
    expect_error(aio->pread(h, &t, path, 4097, true), ACCEL_ERROR_INVALID_ARGUMENT,
                 "O_DIRECT needs");
    size_t completed = 5;
    assert_int_equal(aio->wait(h, &completed), ACCEL_OK); /* nothing was queued */
    assert_int_equal(completed, 0);
    aio->handle_destroy(h);
    free(base);
}

static void test_bad_input(void **state)
{
    accel_aio_config_t c = ACCEL_AIO_CONFIG_DEFAULT;
    accel_aio_handle_t *h = NULL;
    uint8_t buf[64];
    int64_t shape, strides[1] = {2};
    char path[128];
    (void)state;
    c.queue_depth = 0;
    expect_error(aio->handle_create(test_acc, &c, &h), ACCEL_ERROR_INVALID_ARGUMENT, "queue_depth");
    c = (accel_aio_config_t)ACCEL_AIO_CONFIG_DEFAULT;
    c.intra_op_parallelism = 0;
    expect_error(aio->handle_create(test_acc, &c, &h), ACCEL_ERROR_INVALID_ARGUMENT,
                 "intra_op_parallelism");
    c = (accel_aio_config_t)ACCEL_AIO_CONFIG_DEFAULT;
    c.struct_size = 8;
    expect_error(aio->handle_create(test_acc, &c, &h), ACCEL_ERROR_INVALID_ARGUMENT, "struct_size");
    assert_int_equal(aio->handle_create(NULL, NULL, &h), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_null(h);

    h = handle_make(1 << 20, 8, false, false, 1, false);
    path_of(path, sizeof path, "bad-input");
    DLTensor t = bytes_tensor(buf, &shape, sizeof buf);
    expect_error(aio->pwrite(h, NULL, path, 0, false), ACCEL_ERROR_INVALID_ARGUMENT, "NULL");
    expect_error(aio->pwrite(h, &t, NULL, 0, false), ACCEL_ERROR_INVALID_ARGUMENT, "path");
    expect_error(aio->pwrite(NULL, &t, path, 0, false), ACCEL_ERROR_INVALID_ARGUMENT, "handle");
    t.strides = strides;
    shape = 32;
    expect_error(aio->pwrite(h, &t, path, 0, false), ACCEL_ERROR_INVALID_ARGUMENT,
                 "not contiguous");
    t.strides = NULL;
    t.device.device_type = kDLCUDA;
    expect_error(aio->pwrite(h, &t, path, 0, false), ACCEL_ERROR_INVALID_ARGUMENT,
                 "neither host memory");
    t.device.device_type = kDLCPU;
    t.dtype.bits = 4;
    expect_error(aio->pwrite(h, &t, path, 0, false), ACCEL_ERROR_INVALID_ARGUMENT, "whole bytes");
    assert_int_equal(file_size(path), -1);
    t.dtype.bits = 8;
    path_of(path, sizeof path, "no-such-folder/file");
    expect_error(aio->pwrite(h, &t, path, 0, false), ACCEL_ERROR_NOT_FOUND, "cannot open");
    expect_error(aio->pread(h, &t, path, 0, false), ACCEL_ERROR_NOT_FOUND, "cannot open");
    accel_aio_config_t got;
    assert_int_equal(aio->get_config(h, &got), ACCEL_OK);
    assert_int_equal(got.block_size, 1 << 20);
    assert_int_equal(got.queue_depth, 8);
    assert_false(got.direct);
    aio->handle_destroy(h);
}

/* A read past the end fails, says how much was there, and a good request
 * queued beside it still completes. */
static void test_read_past_end(void **state)
{
    accel_aio_handle_t *h = handle_make(4096, 4, false, false, 2, true);
    void *base;
    uint8_t *buf = buffer_make(3 * 4096, 0, &base);
    int64_t shape, shape_small;
    char path[128];
    size_t completed = 0;
    int fd;
    (void)state;
    path_of(path, sizeof path, "short-file");
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    fill(buf, 5000, 3);
    assert_int_equal(write(fd, buf, 5000), 5000);
    close(fd);
    DLTensor t = bytes_tensor(buf, &shape, 3 * 4096);
    DLTensor small = bytes_tensor(buf, &shape_small, 4096);
    assert_int_equal(aio->pread(h, &small, path, 0, true), ACCEL_OK);
    assert_int_equal(aio->pread(h, &t, path, 0, true), ACCEL_OK);
    expect_error(aio->wait(h, &completed), ACCEL_ERROR_INVALID_ARGUMENT, "the file ends");
    assert_int_equal(completed, 2);
    expect_error(aio->pread(h, &t, path, 0, false), ACCEL_ERROR_INVALID_ARGUMENT,
                 "4096 bytes read in whole blocks");
    aio->handle_destroy(h);
    unlink(path);
    free(base);
}

/* /dev/full: every write fails with ENOSPC; nothing is reported written. */
static void test_full_disk(void **state)
{
    accel_aio_handle_t *h = handle_make(4096, 4, false, false, 1, false);
    uint8_t buf[3 * 4096];
    int64_t shape;
    (void)state;
    fill(buf, sizeof buf, 4);
    DLTensor t = bytes_tensor(buf, &shape, sizeof buf);
    expect_error(aio->pwrite(h, &t, "/dev/full", 0, false), ACCEL_ERROR_DEVICE_ERROR,
                 "No space left on device (0 bytes written");
    aio->handle_destroy(h);
}

/* A file size limit cuts a write short: the error reports only the whole
 * blocks that went out, and the file really holds at least those. Runs in
 * a child (the limit is process-wide); SIGXFSZ is ignored so the write
 * returns EFBIG. Exit code 0 = all checks passed. */
static int fsize_child(void)
{
    accel_aio_handle_t *h = handle_make(4096, 8, false, false, 1, false);
    static uint8_t buf[16 * 4096];
    struct rlimit limit = {10000, 10000};
    int64_t shape;
    char path[128];
    unsigned long long written = 0;
    const char *text, *at;
    path_of(path, sizeof path, "fsize-limited");
    unlink(path);
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
        return 10;
    DLTensor t = bytes_tensor(buf, &shape, sizeof buf);
    if (aio->pwrite(h, &t, path, 0, false) != ACCEL_ERROR_DEVICE_ERROR)
        return 11;
    text = accel_last_error();
    at = strstr(text, "File too large (");
    if (at == NULL || sscanf(at, "File too large (%llu bytes written", &written) != 1)
        return 12;
    if (written != 8192 || file_size(path) < (off_t)written) /* blocks 0 and 1 fit */
        return 13;
    aio->handle_destroy(h);
    unlink(path);
    return 0;
}

static void test_file_size_limit(void **state)
{
    int status = 0;
    pid_t pid;
    (void)state;
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fsize_child());
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0)
        fail_msg("the file-size-limit child failed check %d", WEXITSTATUS(status));
}

/* Removing the file while a write is queued: the write lands in the
 * unlinked file (POSIX keeps it until closed) and reports success; the name
 * is gone, so a later read says so. */
static void test_file_removed_midway(void **state)
{
    accel_aio_handle_t *h = handle_make(1 << 16, 4, false, false, 2, true);
    void *base;
    size_t n = 8 << 20;
    uint8_t *buf = buffer_make(n, 0, &base);
    int64_t shape;
    char path[128];
    (void)state;
    path_of(path, sizeof path, "removed");
    fill(buf, n, 5);
    DLTensor t = bytes_tensor(buf, &shape, n);
    assert_int_equal(aio->pwrite(h, &t, path, 0, true), ACCEL_OK);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(aio->wait(h, NULL), ACCEL_OK);
    assert_int_equal(file_size(path), -1);
    expect_error(aio->pread(h, &t, path, 0, false), ACCEL_ERROR_NOT_FOUND, "No such file");
    aio->handle_destroy(h);
    free(base);
}

/* A handle whose ring cannot be made (no file descriptor left, as a
 * locked-memory or ring limit would) falls back to pread/pwrite per thread
 * instead of failing. In a child: the descriptor limit is process-wide. */
static int no_ring_child(void)
{
    struct rlimit saved, none;
    accel_aio_handle_t *h = NULL;
    accel_aio_config_t c = ACCEL_AIO_CONFIG_DEFAULT;
    int lowest = dup(0);
    if (lowest < 0 || getrlimit(RLIMIT_NOFILE, &saved) != 0)
        return 10;
    close(lowest);
    none = saved;
    none.rlim_cur = (rlim_t)lowest; /* no new descriptor can be made */
    c.intra_op_parallelism = 2;
    c.block_size = 4096;
    if (setrlimit(RLIMIT_NOFILE, &none) != 0)
        return 11;
    accel_status_t status = aio->handle_create(test_acc, &c, &h);
    setrlimit(RLIMIT_NOFILE, &saved);
    if (status != ACCEL_OK)
        return 12;
    char path[128];
    path_of(path, sizeof path, "no-ring");
    round_trip(h, path, 3 * 4096 + 5, 4096, 0, true, 77);
    aio->handle_destroy(h);
    unlink(path);
    return 0;
}

static void test_handle_without_ring(void **state)
{
    int status = 0;
    pid_t pid;
    (void)state;
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(no_ring_child());
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0)
        fail_msg("the no-ring child failed check %d", WEXITSTATUS(status));
}

/* ================================================================ threads */

typedef struct thread_job {
    int index;
    bool ok;
    char error[256];
} thread_job_t;

static void *thread_main(void *arg)
{
    thread_job_t *job = arg;
    accel_aio_handle_t *h = NULL;
    accel_aio_config_t c = ACCEL_AIO_CONFIG_DEFAULT;
    enum { FILES = 3 };
    size_t n = (1 << 20) + 4096 * (size_t)job->index + 77;
    void *bases[FILES], *rbases[FILES];
    uint8_t *src[FILES], *dst[FILES];
    int64_t shapes[2 * FILES];
    DLTensor tw[FILES], tr[FILES];
    char paths[FILES][128];
    size_t completed = 0;
    c.block_size = 1 << 16;
    c.intra_op_parallelism = 2;
    c.queue_depth = 8;
    job->ok = false;
    if (aio->handle_create(test_acc, &c, &h) != ACCEL_OK) {
        snprintf(job->error, sizeof job->error, "create: %s", accel_last_error());
        return NULL;
    }
    for (int f = 0; f < FILES; f++) {
        src[f] = buffer_make(n, 0, &bases[f]);
        dst[f] = buffer_make(n, 0, &rbases[f]);
        fill(src[f], n, (uint64_t)(job->index * 10 + f));
        tw[f] = bytes_tensor(src[f], &shapes[f], n);
        tr[f] = bytes_tensor(dst[f], &shapes[FILES + f], n);
        snprintf(paths[f], sizeof paths[f], "%s/thread-%d-%d", folder, job->index, f);
        if (aio->pwrite(h, &tw[f], paths[f], 0, true) != ACCEL_OK)
            snprintf(job->error, sizeof job->error, "pwrite: %s", accel_last_error());
    }
    if (aio->wait(h, &completed) != ACCEL_OK || completed != FILES)
        snprintf(job->error, sizeof job->error, "wait after writes: %s", accel_last_error());
    for (int f = 0; f < FILES; f++)
        if (aio->pread(h, &tr[f], paths[f], 0, true) != ACCEL_OK)
            snprintf(job->error, sizeof job->error, "pread: %s", accel_last_error());
    if (aio->wait(h, &completed) != ACCEL_OK || completed != FILES)
        snprintf(job->error, sizeof job->error, "wait after reads: %s", accel_last_error());
    job->ok = job->error[0] == '\0';
    for (int f = 0; f < FILES; f++) {
        if (memcmp(src[f], dst[f], n) != 0 && job->ok) {
            job->ok = false;
            snprintf(job->error, sizeof job->error, "file %d read back differs", f);
        }
        unlink(paths[f]);
        free(bases[f]);
        free(rbases[f]);
    }
    aio->handle_destroy(h);
    return NULL;
}

static void test_many_handles_many_threads(void **state)
{
    enum { THREADS = 6 };
    pthread_t threads[THREADS];
    thread_job_t jobs[THREADS];
    (void)state;
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (thread_job_t){.index = i};
        assert_int_equal(pthread_create(&threads[i], NULL, thread_main, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    for (int i = 0; i < THREADS; i++)
        if (!jobs[i].ok)
            fail_msg("thread %d: %s", i, jobs[i].error);
}

/* ================================================================ table */

static void test_table(void **state)
{
    const char *engine = getenv("ACCEL_AIO_ENGINE");
    (void)state;
    assert_true(aio->struct_size >= sizeof(accel_aio_op_t));
    assert_int_equal(aio->alignment, 4096);
    assert_non_null(aio->implementation);
    const char *liburing = getenv("ACCEL_AIO_LIBURING");
    accel_op_builder_t *builder = NULL;
    bool compatible = false;
    char reason[320] = "";
    assert_int_equal(accel_get_op_builder(test_acc, "AsyncIOBuilder", &builder), ACCEL_OK);
    assert_int_equal(accel_op_builder_is_compatible(builder, &compatible, reason, sizeof reason),
                     ACCEL_OK);
    assert_true(compatible); /* the threads path always works */
    print_message("note: async_io path: %s\n", reason);
    if (liburing != NULL && strstr(liburing, "missing") != NULL) {
        /* a machine without liburing: threads, and the report says why */
        assert_string_equal(aio->implementation, "threads");
        assert_non_null(strstr(reason, "cannot be loaded"));
    } else if (engine != NULL && strcmp(engine, "threads") == 0)
        assert_string_equal(aio->implementation, "threads");
    else
        assert_true(strcmp(aio->implementation, "io_uring") == 0 ||
                    strcmp(aio->implementation, "threads") == 0);
    print_message("note: async_io uses %s\n", aio->implementation);
}

/* ================================================================ main */

static int group_setup(void **state)
{
    accel_op_builder_t *builder = NULL;
    const void *table = NULL;
    (void)state;
    snprintf(folder, sizeof folder, "aio-test-XXXXXX");
    if (mkdtemp(folder) == NULL)
        return -1;
    if (accel_open("cpu", &test_acc) != ACCEL_OK ||
        accel_get_op_builder(test_acc, "AsyncIOBuilder", &builder) != ACCEL_OK ||
        accel_op_builder_load(builder, &table) != ACCEL_OK)
        return -1;
    aio = table;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    rmdir(folder);
    return accel_close(test_acc) == ACCEL_OK ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_empty_tensor),
        cmocka_unit_test(test_pinned_buffers),
        cmocka_unit_test(test_direct_alignment_errors),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_read_past_end),
        cmocka_unit_test(test_full_disk),
        cmocka_unit_test(test_file_size_limit),
        cmocka_unit_test(test_file_removed_midway),
        cmocka_unit_test(test_handle_without_ring),
        cmocka_unit_test(test_many_handles_many_threads),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
