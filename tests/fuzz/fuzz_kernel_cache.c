/* fuzz_kernel_cache.c: kernel-cache files as found on disk (src/core/
 * kernel_cache.c). A good entry is written, then damaged as the input says
 * (bytes flipped, the file cut short, or replaced by the input itself). The
 * property: a read gives either a miss (the caller rebuilds) or exactly the
 * bytes that were put, never a damaged binary. */
#include "fuzz.h"

#include <unistd.h>

#include "kernel_cache.h"

static const char key[] = "0123456789abcdef0123456789abcdef";
static char path[4096];
static unsigned char payload[200];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char folder[] = "/tmp/accel-fuzz-cache-XXXXXX";
    (void)argc;
    (void)argv;
    fuzz_quiet();
    if (mkdtemp(folder) == NULL)
        abort();
    setenv("ACCEL_CACHE_DIR", folder, 1);
    if (accel_kernel_cache_path(key, path, sizeof path) != ACCEL_OK)
        abort();
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (unsigned char)(i * 31 + 7);
    return 0;
}

static unsigned char *read_file(size_t *out_size)
{
    FILE *file = fopen(path, "rb");
    unsigned char *bytes = malloc(1 << 16);
    if (file == NULL || bytes == NULL)
        abort();
    *out_size = fread(bytes, 1, 1 << 16, file);
    fclose(file);
    return bytes;
}

static void write_file(const unsigned char *bytes, size_t size)
{
    FILE *file = fopen(path, "wb");
    if (file == NULL || fwrite(bytes, 1, size, file) != size)
        abort();
    fclose(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_reader_t r = {data, size};
    uint8_t mode = fuzz_u8(&r);
    size_t file_size, payload_size = 1 + fuzz_u8(&r) % sizeof payload;
    unsigned char *file;
    void *got = NULL;
    size_t got_size = 0;
    FUZZ_CHECK(accel_kernel_cache_put(key, payload, payload_size) == ACCEL_OK);
    file = read_file(&file_size);
    if (mode % 3 == 0) {
        /* flip bytes: (position, xor) pairs */
        while (r.size >= 3) {
            size_t at = (size_t)(fuzz_u8(&r) | fuzz_u8(&r) << 8) % file_size;
            uint8_t flip = fuzz_u8(&r);
            file[at] ^= flip;
        }
        write_file(file, file_size);
    } else if (mode % 3 == 1) {
        size_t cut = (size_t)(fuzz_u8(&r) | fuzz_u8(&r) << 8) % (file_size + 1);
        write_file(file, cut);
    } else {
        write_file(r.data, r.size); /* whatever the input is */
    }
    if (accel_kernel_cache_get(key, &got, &got_size) == ACCEL_OK) {
        /* only the entry exactly as put may be served */
        FUZZ_CHECK(got_size == payload_size && memcmp(got, payload, payload_size) == 0);
        free(got);
    }
    free(file);
    unlink(path);
    return 0;
}
