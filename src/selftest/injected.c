/* injected.c: checks that go wrong on purpose, for the tests of the runner
 * itself (tools/accel/CMakeLists.txt, cli.selftest_injected). They are
 * listed only when ACCEL_SELFTEST_INJECT names them (registry.c), and each
 * says so in its sentence and output. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "selftest.h"
#include "selftest_internal.h"

void selftest_check_crash_injected(void **state)
{
    (void)state;
    print_message("crashing on purpose: ACCEL_SELFTEST_INJECT=crash enabled this check\n");
    raise(SIGSEGV);
}

/* A failed assertion on the check's own thread: unwinds to the runner. */
void selftest_check_fail_injected(void **state)
{
    int count = 0;
    (void)state;
    print_message("failing on purpose: ACCEL_SELFTEST_INJECT=fail enabled this check\n");
    assert_ok(accel_device_count(conformance_acc, &count));
    assert_int_equal(count, -1);
}

static void injected_fail_on_thread(int index, void *arg)
{
    (void)arg;
    if (index == 1)
        fail_msg("thread %d fails on purpose", index);
}

/* A failure on a helper thread: reported from there, then the process ends. */
void selftest_check_thread_fail_injected(void **state)
{
    (void)state;
    print_message("failing on purpose: ACCEL_SELFTEST_INJECT=thread_fail enabled this check\n");
    conf_run_threads(2, injected_fail_on_thread, NULL);
    fail_msg("the helper thread's failure did not end the check");
}

/* Never returns: the stream it runs on stays busy for good. */
static void injected_block_forever(void *user_data)
{
    (void)user_data;
    for (;;)
        pause();
}

/* Fails after queueing work that never completes, as a failing probe can
 * leave a vendor stream stuck: its FAIL must be reported, though cleaning
 * up after it (accel_close waits for the stream) never ends. */
void selftest_check_stuck_fail_injected(void **state)
{
    accel_stream_t *stream = NULL;
    (void)state;
    print_message("failing on purpose with a stream stuck: ACCEL_SELFTEST_INJECT=stuck_fail\n");
    assert_ok(accel_default_stream(conformance_acc, 0, &stream));
    assert_ok(accel_stream_add_callback(stream, injected_block_forever, NULL));
    fail_msg("failing on purpose, with a callback that never returns queued");
}

/* Under `accel launch`: fails on every rank, at once on all but rank 0 and
 * a second later on rank 0, as a collective that fails everywhere ends the
 * other ranks first. Rank 0's report must still be written (selftest_cmd.c:
 * the ranks but 0 exit 0). */
void selftest_check_rank_fail_injected(void **state)
{
    int rank = 0, size = 1;
    (void)state;
    selftest_launcher_rank(&rank, &size);
    print_message("rank %d of %d: ACCEL_SELFTEST_INJECT=rank_fail enabled this check\n", rank,
                  size);
    if (rank == 0)
        sleep(1);
    fail_msg("rank %d fails on purpose", rank);
}

/* Under `accel launch`: fails on the last rank only (rank 1 of 2) and
 * passes on rank 0, so only comm.ranks_agree can tell rank 0's report. */
void selftest_check_other_rank_fail_injected(void **state)
{
    int rank = 0, size = 1;
    (void)state;
    selftest_launcher_rank(&rank, &size);
    print_message("rank %d of %d: ACCEL_SELFTEST_INJECT=other_rank_fail enabled this check\n", rank,
                  size);
    if (rank == size - 1 && rank != 0)
        fail_msg("rank %d fails on purpose", rank);
}

static void injected_exit_failure(void)
{
    fprintf(stderr, "exiting with status 3 on purpose (ACCEL_SELFTEST_INJECT=exit_failure)\n");
    _exit(3);
}

/* Passes, then its process fails on the way out, as a LeakSanitizer report
 * at exit makes it: the runner must not take the pass. */
void selftest_check_exit_failure_injected(void **state)
{
    (void)state;
    assert_int_equal(atexit(injected_exit_failure), 0);
}
