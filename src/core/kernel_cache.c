/* kernel_cache.c: the on-disk kernel binary cache of kernel_cache.h.
 * File layout: magic "ACCELKC1", the 32-digit key, payload size (u64 LE),
 * payload FNV-1a 64 checksum (u64 LE), payload. Stateless: every call opens,
 * reads or writes and closes; safe from any thread and any process. */
#include "kernel_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "error.h"

#define CACHE_MAGIC       "ACCELKC1"
#define CACHE_MAGIC_SIZE  8
#define CACHE_KEY_DIGITS  32
#define CACHE_HEADER_SIZE (CACHE_MAGIC_SIZE + CACHE_KEY_DIGITS + 8 + 8)
#define CACHE_MAX_ENTRY   ((uint64_t)1 << 31) /* refuse absurd sizes from a bad file */

/* ---------------------------------------------------------------- hashing */

#define FNV128_PRIME (((unsigned __int128)0x0000000001000000u << 64) | 0x000000000000013Bu)
#define FNV128_BASIS (((unsigned __int128)0x6c62272e07bb0142u << 64) | 0x62b821756295c58du)

/* The public struct holds the 128-bit state as two halves (no compiler
 * extension in the installed header); the arithmetic runs on __int128. */
static unsigned __int128 hash_load(const accel_kernel_hash_t *hash)
{
    return ((unsigned __int128)hash->high << 64) | hash->low;
}

static void hash_store(accel_kernel_hash_t *hash, unsigned __int128 state)
{
    hash->high = (uint64_t)(state >> 64);
    hash->low = (uint64_t)state;
}

static void hash_bytes(accel_kernel_hash_t *hash, const void *data, size_t size)
{
    const unsigned char *bytes = data;
    unsigned __int128 state = hash_load(hash);
    for (size_t i = 0; i < size; i++) {
        state ^= bytes[i];
        state *= FNV128_PRIME;
    }
    hash_store(hash, state);
}

void accel_kernel_hash_init(accel_kernel_hash_t *hash)
{
    hash_store(hash, FNV128_BASIS);
}

void accel_kernel_hash_add(accel_kernel_hash_t *hash, const void *data, size_t size)
{
    unsigned char length[8];
    for (int i = 0; i < 8; i++)
        length[i] = (unsigned char)((uint64_t)size >> (8 * i));
    hash_bytes(hash, length, sizeof length);
    hash_bytes(hash, data, size);
}

void accel_kernel_hash_add_string(accel_kernel_hash_t *hash, const char *text)
{
    accel_kernel_hash_add(hash, text, text != NULL ? strlen(text) : 0);
}

void accel_kernel_hash_key(const accel_kernel_hash_t *hash, char out[ACCEL_KERNEL_KEY_SIZE])
{
    snprintf(out, ACCEL_KERNEL_KEY_SIZE, "%016llx%016llx", (unsigned long long)hash->high,
             (unsigned long long)hash->low);
}

static uint64_t checksum64(const void *data, size_t size)
{
    const unsigned char *bytes = data;
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < size; i++) {
        h ^= bytes[i];
        h *= 0x100000001b3u;
    }
    return h;
}

static void put_u64(unsigned char *out, uint64_t value)
{
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)(value >> (8 * i));
}

static uint64_t get_u64(const unsigned char *in)
{
    uint64_t value = 0;
    for (int i = 7; i >= 0; i--)
        value = (value << 8) | in[i];
    return value;
}

/* ---------------------------------------------------------------- paths */

static bool key_is_valid(const char *key)
{
    if (key == NULL || strlen(key) != CACHE_KEY_DIGITS)
        return false;
    return strspn(key, "0123456789abcdef") == CACHE_KEY_DIGITS;
}

/* <cache>/kernels, without creating it. */
static accel_status_t cache_kernel_dir(char *out, size_t cap)
{
    const char *dir = accel_env_get("ACCEL_CACHE_DIR");
    const char *xdg = accel_env_get("XDG_CACHE_HOME");
    const char *home = accel_env_get("HOME");
    int n;
    if (dir != NULL)
        n = snprintf(out, cap, "%s/kernels", dir);
    else if (xdg != NULL)
        n = snprintf(out, cap, "%s/accel/kernels", xdg);
    else if (home != NULL)
        n = snprintf(out, cap, "%s/.cache/accel/kernels", home);
    else
        return accel_error(ACCEL_ERROR_UNAVAILABLE,
                           "kernel cache: no folder (set ACCEL_CACHE_DIR, XDG_CACHE_HOME or HOME)");
    if (n < 0 || (size_t)n >= cap)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "kernel cache: folder path is too long");
    return ACCEL_OK;
}

accel_status_t accel_kernel_cache_path(const char *key, char *out, size_t cap)
{
    char dir[4096];
    int n;
    accel_status_t status;
    if (!key_is_valid(key) || out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "kernel cache: a key is 32 lowercase hex digits");
    status = cache_kernel_dir(dir, sizeof dir);
    if (status != ACCEL_OK)
        return status;
    n = snprintf(out, cap, "%s/%s.bin", dir, key);
    if (n < 0 || (size_t)n >= cap)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "kernel cache: entry path is too long");
    return ACCEL_OK;
}

/* mkdir -p, user-only permissions for the folders it creates. */
static int make_dirs(char *path)
{
    for (char *p = path + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            *p = '/';
            return errno;
        }
        *p = '/';
    }
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return errno;
    return 0;
}

/* ---------------------------------------------------------------- get */

static bool read_all(int fd, void *buffer, size_t size)
{
    unsigned char *at = buffer;
    while (size > 0) {
        ssize_t n = read(fd, at, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        at += n;
        size -= (size_t)n;
    }
    return true;
}

/* Read and check one entry; NULL (with `why`) when unusable. */
static void *cache_read(int fd, const char *key, size_t *out_size, const char **why)
{
    unsigned char header[CACHE_HEADER_SIZE];
    struct stat info;
    uint64_t size;
    void *data;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        *why = "not a regular file";
        return NULL;
    }
    if (!read_all(fd, header, sizeof header)) {
        *why = "shorter than its header";
        return NULL;
    }
    size = get_u64(header + CACHE_MAGIC_SIZE + CACHE_KEY_DIGITS);
    if (memcmp(header, CACHE_MAGIC, CACHE_MAGIC_SIZE) != 0 ||
        memcmp(header + CACHE_MAGIC_SIZE, key, CACHE_KEY_DIGITS) != 0) {
        *why = "not an accel kernel cache entry for this key";
        return NULL;
    }
    if (size == 0 || size > CACHE_MAX_ENTRY || (uint64_t)info.st_size != CACHE_HEADER_SIZE + size) {
        *why = "size does not match its header (truncated?)";
        return NULL;
    }
    data = malloc((size_t)size);
    if (data == NULL || !read_all(fd, data, (size_t)size) ||
        checksum64(data, (size_t)size) != get_u64(header + CACHE_HEADER_SIZE - 8)) {
        free(data);
        *why = "checksum mismatch (corrupt)";
        return NULL;
    }
    *out_size = (size_t)size;
    return data;
}

accel_status_t accel_kernel_cache_get(const char *key, void **out, size_t *out_size)
{
    char path[4200];
    const char *why = NULL;
    void *data;
    size_t size = 0;
    int fd;
    accel_status_t status = accel_kernel_cache_path(key, path, sizeof path);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL || out_size == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "kernel cache: output pointer is NULL");
    /* O_NONBLOCK: a FIFO in the entry's place must not block the open (it is
     * then refused as not a regular file); reads of a regular file ignore it. */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return accel_error(ACCEL_ERROR_NOT_FOUND, "kernel cache: no entry %s", path);
    data = cache_read(fd, key, &size, &why);
    close(fd);
    if (data == NULL) {
        accel_log(ACCEL_LOG_DEBUG, "kernel cache: ignoring %s: %s", path, why);
        return accel_error(ACCEL_ERROR_NOT_FOUND, "kernel cache: unusable entry %s: %s", path, why);
    }
    *out = data;
    *out_size = size;
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- put */

static bool write_all(int fd, const void *buffer, size_t size)
{
    const unsigned char *at = buffer;
    while (size > 0) {
        ssize_t n = write(fd, at, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        at += n;
        size -= (size_t)n;
    }
    return true;
}

accel_status_t accel_kernel_cache_put(const char *key, const void *data, size_t size)
{
    char dir[4096], path[4200], temp[4200];
    unsigned char header[CACHE_HEADER_SIZE];
    int fd, err;
    bool written;
    accel_status_t status = accel_kernel_cache_path(key, path, sizeof path);
    if (status != ACCEL_OK)
        return status;
    if (data == NULL || size == 0 || size > CACHE_MAX_ENTRY)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "kernel cache: bad entry of %zu bytes",
                           size);
    cache_kernel_dir(dir, sizeof dir);
    err = make_dirs(dir);
    if (err != 0)
        return accel_error(ACCEL_ERROR_UNAVAILABLE, "kernel cache: cannot create %s: %s", dir,
                           strerror(err));
    snprintf(temp, sizeof temp, "%s/.%s.XXXXXX", dir, key);
    fd = mkostemp(temp, O_CLOEXEC);
    if (fd < 0)
        return accel_error(ACCEL_ERROR_UNAVAILABLE, "kernel cache: cannot create a file in %s: %s",
                           dir, strerror(errno));
    memcpy(header, CACHE_MAGIC, CACHE_MAGIC_SIZE);
    memcpy(header + CACHE_MAGIC_SIZE, key, CACHE_KEY_DIGITS);
    put_u64(header + CACHE_MAGIC_SIZE + CACHE_KEY_DIGITS, size);
    put_u64(header + CACHE_HEADER_SIZE - 8, checksum64(data, size));
    written = write_all(fd, header, sizeof header) && write_all(fd, data, size);
    err = errno;
    if (close(fd) != 0 && written) {
        written = false;
        err = errno;
    }
    if (written && rename(temp, path) != 0) {
        written = false;
        err = errno;
    }
    if (!written) {
        unlink(temp);
        return accel_error(ACCEL_ERROR_UNAVAILABLE, "kernel cache: cannot write %s: %s", path,
                           strerror(err));
    }
    return ACCEL_OK;
}
