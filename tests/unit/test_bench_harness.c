/* test_bench_harness.c: the bench's figure table never reports a figure it
 * did not measure. A suite that runs out of table slots, or stops between
 * adding its figures and timing them, used to leave rows of 0 GB/s that
 * read as measured (the full aio suite did, past 64 figures); now the
 * table counts what it dropped and bench_figures_close fails every figure
 * left unmeasured, with a sentence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bench.h"

static bench_ctx_t ctx; /* large: the figure table */

static bool one_op(void *arg, size_t iters)
{
    volatile size_t *sink = arg;
    for (size_t i = 0; i < iters; i++)
        (*sink)++;
    return true;
}

static void test_full_table_counts_what_it_drops(void **state)
{
    (void)state;
    memset(&ctx, 0, sizeof ctx);
    for (int i = 0; i < BENCH_MAX_FIGURES; i++)
        assert_non_null(bench_figure_add(&ctx, "t", "f", BENCH_TIME, "ns", 1e9, 0));
    assert_null(bench_figure_add(&ctx, "t", "one too many", BENCH_TIME, "ns", 1e9, 0));
    assert_null(bench_figure_add(&ctx, "t", "two too many", BENCH_TIME, "ns", 1e9, 0));
    assert_int_equal(ctx.figure_count, BENCH_MAX_FIGURES);
    assert_int_equal(ctx.figures_dropped, 2);
}

static void test_unmeasured_figures_fail(void **state)
{
    size_t sink = 0;
    (void)state;
    memset(&ctx, 0, sizeof ctx);
    ctx.reps = 3;
    ctx.target_s = 0.0001;
    bench_figure_t *measured = bench_figure_add(&ctx, "t", "measured", BENCH_TIME, "ns", 1e9, 0);
    bench_figure_t *left = bench_figure_add(&ctx, "t", "left", BENCH_TIME, "ns", 1e9, 0);
    bench_figure_t *failed = bench_figure_add(&ctx, "t", "failed", BENCH_TIME, "ns", 1e9, 0);
    bench_measure(&ctx, measured, one_op, NULL, &sink, NULL, "none");
    bench_figure_fail(failed, "its own reason");
    assert_int_equal(bench_figures_close(&ctx), 1);
    assert_false(measured->failed);
    assert_true(left->failed);
    assert_string_equal(left->note, "failed: not measured: its suite stopped before timing it");
    assert_string_equal(failed->note, "failed: its own reason");
    /* Closing twice changes nothing. */
    assert_int_equal(bench_figures_close(&ctx), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_table_counts_what_it_drops),
        cmocka_unit_test(test_unmeasured_figures_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
