/* check.c: the assertion runtime of check.h. A failing assertion formats
 * its sentence and ends the check: with longjmp on the check's own thread
 * (check_run), by writing the result and exiting the child process on any
 * other thread. */
#include "check_run.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

/* Set by check_run for the duration of one check; the child runs one check
 * only, so these are written once before the check starts. */
static jmp_buf check_jump;
static pthread_t check_thread;
static bool check_running;
static check_outcome_t *check_outcome;
static check_exit_fn_t check_exit;
/* Serialises the end of a check among threads: the first ending wins. */
static pthread_mutex_t check_end_lock = PTHREAD_MUTEX_INITIALIZER;

static void check_end(check_result_t result, const char *file, int line, const char *format,
                      va_list args) __attribute__((noreturn));

static void check_end(check_result_t result, const char *file, int line, const char *format,
                      va_list args)
{
    char sentence[CHECK_SENTENCE_MAX];
    int used = vsnprintf(sentence, sizeof sentence, format, args);
    if (used < 0)
        sentence[0] = '\0';
    pthread_mutex_lock(&check_end_lock);
    if (!check_running) {
        /* Outside a check (a helper of the runner itself): nothing to unwind to. */
        fprintf(stderr, "selftest: %s:%d: %s\n", file, line, sentence);
        _exit(1);
    }
    check_outcome->result = result;
    snprintf(check_outcome->sentence, sizeof check_outcome->sentence, "%s", sentence);
    if (result == CHECK_FAIL) {
        const char *base = strrchr(file, '/');
        snprintf(check_outcome->where, sizeof check_outcome->where, "%s:%d",
                 base != NULL ? base + 1 : file, line);
    }
    check_running = false;
    if (pthread_equal(pthread_self(), check_thread)) {
        pthread_mutex_unlock(&check_end_lock);
        longjmp(check_jump, 1);
    }
    /* Another thread: the check's thread may be blocked on this one, so the
     * result goes out now and the process ends (the lock stays held: no
     * second ending may overwrite this one). */
    check_exit(check_outcome);
    _exit(1);
}

void check_fail_at(const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    check_end(CHECK_FAIL, file, line, format, args);
}

void check_skip_at(const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    check_end(CHECK_SKIP, file, line, format, args);
}

void check_print(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    fflush(stdout);
}

void check_int_equal_at(const char *file, int line, const char *a_text, const char *b_text,
                        uintmax_t a, uintmax_t b, bool want_equal)
{
    if ((a == b) == want_equal)
        return;
    if (want_equal)
        check_fail_at(file, line, "%s == %s: %jd (0x%jx) != %jd (0x%jx)", a_text, b_text,
                      (intmax_t)a, a, (intmax_t)b, b);
    check_fail_at(file, line, "%s != %s: both are %jd (0x%jx)", a_text, b_text, (intmax_t)a, a);
}

void check_string_equal_at(const char *file, int line, const char *a_text, const char *b_text,
                           const char *a, const char *b, bool want_equal)
{
    bool equal = (a == NULL || b == NULL) ? a == b : strcmp(a, b) == 0;
    if (equal == want_equal)
        return;
    if (want_equal)
        check_fail_at(file, line, "%s == %s: \"%s\" != \"%s\"", a_text, b_text,
                      a != NULL ? a : "(null)", b != NULL ? b : "(null)");
    check_fail_at(file, line, "%s != %s: both are \"%s\"", a_text, b_text,
                  a != NULL ? a : "(null)");
}

void check_memory_equal_at(const char *file, int line, const char *a_text, const char *b_text,
                           const void *a, const void *b, size_t size, bool want_equal)
{
    const unsigned char *x = a, *y = b;
    size_t first = size;
    if (a == NULL || b == NULL)
        check_fail_at(file, line, "%s or %s is NULL", a_text, b_text);
    for (size_t i = 0; i < size; i++) {
        if (x[i] != y[i]) {
            first = i;
            break;
        }
    }
    if ((first == size) == want_equal)
        return;
    if (want_equal)
        check_fail_at(file, line, "%s and %s differ at byte %zu of %zu: 0x%02x != 0x%02x", a_text,
                      b_text, first, size, x[first], y[first]);
    check_fail_at(file, line, "%s and %s are equal (%zu bytes)", a_text, b_text, size);
}

void check_run(check_fn_t fn, check_outcome_t *outcome, check_exit_fn_t exit_fn)
{
    void *state = NULL;
    check_outcome = outcome;
    check_exit = exit_fn;
    check_thread = pthread_self();
    outcome->result = CHECK_PASS;
    outcome->sentence[0] = '\0';
    outcome->where[0] = '\0';
    if (setjmp(check_jump) == 0) {
        pthread_mutex_lock(&check_end_lock);
        check_running = true;
        pthread_mutex_unlock(&check_end_lock);
        fn(&state);
        pthread_mutex_lock(&check_end_lock);
        check_running = false;
        pthread_mutex_unlock(&check_end_lock);
    }
}
