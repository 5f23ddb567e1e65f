/* fuzz.h: helpers shared by the libFuzzer harnesses in this folder: the input
 * as a NUL-terminated string, a byte reader, and one cpu accelerator per
 * process. A harness reports a broken property with FUZZ_CHECK, which aborts
 * so libFuzzer saves the input. Single-threaded, as libFuzzer calls them. */
#ifndef ACCEL_FUZZ_H
#define ACCEL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #cond);            \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The input as a string (malloc'ed; the caller frees). Bytes after a NUL are
 * dropped, as C callers would. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

/* Reads the input front to back; past the end every read gives zeros. */
typedef struct fuzz_reader {
    const uint8_t *data;
    size_t size;
} fuzz_reader_t;

static inline uint8_t fuzz_u8(fuzz_reader_t *r)
{
    uint8_t value = 0;
    if (r->size > 0) {
        value = r->data[0];
        r->data++;
        r->size--;
    }
    return value;
}

static inline uint64_t fuzz_u64(fuzz_reader_t *r)
{
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value |= (uint64_t)fuzz_u8(r) << (8 * i);
    return value;
}

/* Quiet logs (bad input is expected on every run) and no plugin scan. */
static inline void fuzz_quiet(void)
{
    setenv("ACCEL_LOG", "error", 1);
    unsetenv("ACCEL_PLUGIN_PATH");
    unsetenv("ACCEL_ACCELERATOR");
    unsetenv("DS_ACCELERATOR");
}

/* One cpu accelerator for the whole run (opened on first use). */
static inline accel_t *fuzz_cpu(void)
{
    static accel_t *acc;
    if (acc == NULL && accel_open("cpu", &acc) != ACCEL_OK) {
        fprintf(stderr, "fuzz: cannot open cpu: %s\n", accel_last_error());
        abort();
    }
    return acc;
}

#endif
