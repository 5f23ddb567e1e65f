/* test_bench_harness.c: the bench's figure table never reports a figure it
 * did not measure. A suite that runs out of table slots, or stops between
 * adding its figures and timing them, used to leave rows of 0 GB/s that
 * read as measured (the full aio suite did, past 64 figures); now the
 * table counts what it dropped and bench_figures_close fails every figure
 * left unmeasured, with a sentence. A ratio is withheld as noisy only
 * when a side's spread is over the threshold and the two sides' p10-p90
 * ranges overlap: ranges apart decide the comparison however wide. */
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

/* Seconds per op of one side: `reps` samples spread around `center`. */
static void fill_side(bench_series_t *s, double center, double spread, int reps)
{
    for (int i = 0; i < reps; i++)
        s->samples[i] = center * (1.0 - spread / 2 + spread * i / (reps - 1));
}

/* The ratio status of a figure whose sides spread around their centers. */
static bench_ratio_status_t status_of(double accel_s, double accel_spread, double base_s,
                                      double base_spread, bench_figure_t *f)
{
    memset(f, 0, sizeof *f);
    f->has_baseline = true;
    fill_side(&f->measured, accel_s, accel_spread, 11);
    fill_side(&f->baseline, base_s, base_spread, 11);
    bench_figure_finish(f, 11);
    return f->ratio_status;
}

static void test_noisy_only_when_ranges_overlap(void **state)
{
    bench_figure_t f;
    (void)state;
    /* Both quiet: a ratio. */
    assert_int_equal(status_of(1.0, 0.1, 2.0, 0.1, &f), BENCH_RATIO_OK);
    /* Wide but apart: accel's slowest beats the baseline's fastest. */
    assert_int_equal(status_of(1.0, 0.4, 2.0, 0.5, &f), BENCH_RATIO_OK);
    assert_true(f.measured.spread > BENCH_NOISE_THRESHOLD);
    assert_true(f.ratio > 1.9 && f.ratio < 2.1);
    /* The same the other way round (accel slower). */
    assert_int_equal(status_of(2.0, 0.5, 1.0, 0.4, &f), BENCH_RATIO_OK);
    /* Wide and overlapping: withheld. */
    assert_int_equal(status_of(1.0, 0.4, 1.3, 0.5, &f), BENCH_RATIO_NOISY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_table_counts_what_it_drops),
        cmocka_unit_test(test_unmeasured_figures_fail),
        cmocka_unit_test(test_noisy_only_when_ranges_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
