/* sim_fault_check.h: what every <backend>.faults test does with its
 * simulated runtime, written once: bind the sim's control functions from
 * the library the backend loaded, fail every call of a named function with a
 * code, clear faults, and check that a call failed with the status, the
 * function's name and the vendor code (SIM_CODE_FORMAT, defined by the test
 * before including this, is how the backend writes a code, e.g.
 * "aclError %d"), and the memory and random-fill checks every runtime
 * shares, given its function names. Header-only for test programs (cmocka); not thread-safe:
 * the fault tests run single-threaded. */
#ifndef ACCEL_SIM_FAULT_CHECK_H
#define ACCEL_SIM_FAULT_CHECK_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel.h>

#ifndef SIM_CODE_FORMAT
#error "define SIM_CODE_FORMAT (how the backend writes a vendor code) before this header"
#endif

static int (*sim_fault_set)(const char *spec);
static unsigned long (*sim_calls)(const char *function);

/* `name` from the already loaded library the environment variable `env`
 * names (RTLD_NOLOAD: the backend's own reference keeps it loaded). */
static void *sim_symbol(const char *env, const char *name)
{
    const char *path = getenv(env);
    void *library, *symbol;
    assert_non_null(path);
    library = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(library);
    symbol = dlsym(library, name);
    assert_non_null(symbol);
    dlclose(library);
    return symbol;
}

/* Bind the sim's accel_sim_fault_set and accel_sim_calls once. */
static void sim_bind(const char *env)
{
    if (sim_fault_set != NULL)
        return;
    *(void **)&sim_fault_set = sim_symbol(env, "accel_sim_fault_set");
    *(void **)&sim_calls = sim_symbol(env, "accel_sim_calls");
}

static void fail_every(const char *function, int code)
{
    char spec[128];
    snprintf(spec, sizeof spec, "%s:*:%d", function, code);
    assert_int_equal(sim_fault_set(spec), 0);
}

/* A host callback that counts its runs: a refused callback must not run. */
static int callback_runs;
__attribute__((unused)) static void count_callback(void *user_data)
{
    (void)user_data;
    __atomic_add_fetch(&callback_runs, 1, __ATOMIC_SEQ_CST);
}

/* Only the next call of `function` fails (a retry then succeeds). */
__attribute__((unused)) static void fail_once(const char *function, int code)
{
    char spec[128];
    snprintf(spec, sizeof spec, "%s:1:%d", function, code);
    assert_int_equal(sim_fault_set(spec), 0);
}

static void clear_faults(void)
{
    assert_int_equal(sim_fault_set(NULL), 0);
}

/* The thread's last error names `function` and `code`. */
static bool sim_names_failure(const char *function, int code)
{
    char code_text[64];
    const char *message = accel_last_error();
    snprintf(code_text, sizeof code_text, SIM_CODE_FORMAT, code);
    return strstr(message, function) != NULL && strstr(message, code_text) != NULL;
}

/* `status` is `want` and the last error names `function` and `code`. */
static void expect_failure_text(accel_status_t status, accel_status_t want, const char *function,
                                int code)
{
    char code_text[64];
    const char *message = accel_last_error();
    snprintf(code_text, sizeof code_text, SIM_CODE_FORMAT, code);
    if (status != want || !sim_names_failure(function, code))
        fail_msg("%s: status %s (want %s), last error \"%s\" (want %s and \"%s\")", function,
                 accel_status_name(status), accel_status_name(want), message, function, code_text);
}

/* As expect_failure_text, and the vendor code is kept. */
static void expect_failure(accel_status_t status, accel_status_t want, const char *function,
                           int code)
{
    expect_failure_text(status, want, function, code);
    assert_int_equal(accel_last_vendor_error(), code);
}

/* Run `call` with `function` failing, check, clear, run it again: the call
 * site was reached and the backend works after the fault. */
#define CHECK_SITE(function, code, want, call)                                                     \
    do {                                                                                           \
        unsigned long before_ = sim_calls(function);                                               \
        fail_every(function, code);                                                                \
        expect_failure((call), want, function, code);                                              \
        clear_faults();                                                                            \
        assert_true(sim_calls(function) > before_);                                                \
        assert_int_equal((call), ACCEL_OK);                                                        \
    } while (0)

/* Run `call` with `function` failing with `code`: the call still succeeds
 * (a cleanup path, where the failure is logged, not reported), and the site
 * was reached. */
#define CHECK_SURVIVES(function, code, call)                                                       \
    do {                                                                                           \
        unsigned long before_ = sim_calls(function);                                               \
        fail_every(function, code);                                                                \
        assert_int_equal((call), ACCEL_OK);                                                        \
        clear_faults();                                                                            \
        assert_true(sim_calls(function) > before_);                                                \
    } while (0)

/* accel_host_free keeps the block in the pinned host cache (accel.h,
 * accel_host_alloc); the vendor's free runs when the cache releases it, once
 * every device was synchronized after the free. Both, as one call. */
__attribute__((unused)) static accel_status_t host_free_and_release(accel_t *acc, void *ptr)
{
    int count = 0;
    accel_status_t status = accel_host_free(acc, ptr);
    if (status == ACCEL_OK)
        status = accel_device_count(acc, &count);
    for (int d = 0; status == ACCEL_OK && d < count; d++)
        status = accel_synchronize(acc, d);
    return status == ACCEL_OK ? accel_empty_host_cache(acc) : status;
}

/* The memory call sites every runtime has, in the order the checks use
 * them. registered[0] NULL: the runtime has no registration, so core
 * refuses accel_host_register with UNSUPPORTED. */
typedef struct sim_memory_sites {
    int codes[2];          /* an ordinary failure (DEVICE_ERROR); out of memory (OUT_OF_MEMORY) */
    const char *device[2]; /* allocation; free (fails inside empty_cache: survived) */
    const char *pinned[2]; /* pinned allocation; its free (survived) */
    const char *registered[2]; /* pinning a host range; undoing it (survived) */
    const char *h2d_fns[3];    /* each call of a host-to-device copy (NULL-terminated) */
    const char *memset_fn;     /* a fill */
} sim_memory_sites_t;

/* Every memory site fails once and works again after; out of memory keeps
 * its meaning (the allocator frees its cache and retries first). */
__attribute__((unused)) static void check_memory_sites(accel_t *acc, const sim_memory_sites_t *s)
{
    static char host[4096];
    void *device = NULL, *pinned = NULL;
    fail_every(s->device[0], s->codes[1]);
    expect_failure_text(accel_malloc(acc, 3 << 20, &device), ACCEL_ERROR_OUT_OF_MEMORY,
                        s->device[0], s->codes[1]);
    CHECK_SITE(s->device[0], s->codes[0], ACCEL_ERROR_DEVICE_ERROR,
               accel_malloc(acc, 5 << 20, &device));
    for (const char *const *fn = s->h2d_fns; *fn != NULL; fn++)
        CHECK_SITE(*fn, s->codes[0], ACCEL_ERROR_DEVICE_ERROR,
                   accel_memcpy(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE));
    CHECK_SITE(s->memset_fn, s->codes[0], ACCEL_ERROR_DEVICE_ERROR,
               accel_memset(acc, device, 7, sizeof host));
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    CHECK_SURVIVES(s->device[1], s->codes[0], accel_empty_cache(acc));
    assert_int_equal(accel_malloc(acc, 1 << 20, &device), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);

    CHECK_SITE(s->pinned[0], s->codes[0], ACCEL_ERROR_DEVICE_ERROR,
               accel_host_alloc(acc, 4096, &pinned));
    CHECK_SURVIVES(s->pinned[1], s->codes[0], host_free_and_release(acc, pinned));
    if (s->registered[0] == NULL) {
        assert_int_equal(accel_host_register(acc, host, sizeof host), ACCEL_ERROR_UNSUPPORTED);
        return;
    }
    CHECK_SITE(s->registered[0], s->codes[0], ACCEL_ERROR_DEVICE_ERROR,
               accel_host_register(acc, host, sizeof host));
    CHECK_SURVIVES(s->registered[1], s->codes[0], accel_host_unregister(acc, host));
}

/* A 64-value random fill fails at each of `functions` (NULL-terminated) in
 * turn with `code`, and the fill after each fault works. Failed fills use
 * no random numbers: replaying the successful ones from the state saved
 * first gives the same data. */
static void check_rng_fill_sites(accel_t *acc, const char *const *functions, int code)
{
    uint32_t *device = NULL, host[64], again[64];
    uint8_t rng_state[ACCEL_RNG_STATE_SIZE];
    int fills = 0;
    assert_int_equal(accel_malloc(acc, sizeof host, (void **)&device), ACCEL_OK);
    assert_int_equal(accel_get_rng_state(acc, ACCEL_CURRENT_DEVICE, rng_state, sizeof rng_state),
                     ACCEL_OK);
    for (const char *const *fn = functions; *fn != NULL; fn++, fills++)
        CHECK_SITE(*fn, code, ACCEL_ERROR_DEVICE_ERROR, accel_rng_u32(acc, device, 64, NULL));
    assert_int_equal(accel_memcpy(acc, host, device, sizeof host, ACCEL_COPY_DEVICE_TO_HOST),
                     ACCEL_OK);
    assert_int_equal(accel_set_rng_state(acc, ACCEL_CURRENT_DEVICE, rng_state, sizeof rng_state),
                     ACCEL_OK);
    for (int i = 0; i < fills; i++)
        assert_int_equal(accel_rng_u32(acc, device, 64, NULL), ACCEL_OK);
    assert_int_equal(accel_memcpy(acc, again, device, sizeof again, ACCEL_COPY_DEVICE_TO_HOST),
                     ACCEL_OK);
    assert_memory_equal(host, again, sizeof host);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
}

/* A random fill still in flight at close, whose wait there (`wait_fn`)
 * fails: close still succeeds, and the fill's staging buffer outlives its
 * copy (the backend waits for the whole device instead, or keeps the
 * buffer). In the <backend>.faults_slow_streams tests the sim starts every
 * task late, so the copy really is in flight and ASan sees a read of a freed
 * buffer. Closes `acc`. */
static void check_close_with_fill_in_flight(accel_t *acc, const char *wait_fn, int code)
{
    void *device = NULL;
    assert_int_equal(accel_malloc(acc, 4096, &device), ACCEL_OK);
    assert_int_equal(accel_rng_u32(acc, device, 1024, NULL), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    CHECK_SURVIVES(wait_fn, code, accel_close(acc));
}

#endif /* ACCEL_SIM_FAULT_CHECK_H */
