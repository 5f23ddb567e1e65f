/* python_baseline.h: run a baseline that lives in Python (numpy's Philox,
 * DeepSpeed's AsyncIOBuilder op) from a suite, as a child process that
 * prints one "sample SECONDS" line per repetition. The Python code is
 * passed with -c, so a built or installed `accel` needs no script beside it.
 * Threads: the calling thread waits for the child; no shared state. */
#ifndef ACCEL_BENCH_PYTHON_BASELINE_H
#define ACCEL_BENCH_PYTHON_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"

/* Exit status a helper uses for "a module it needs is missing": the suite
 * then shows the baseline as skipped with the helper's "reason" line. */
#define BENCH_PYTHON_SKIP 3

/* Run argv (argv[0] looked up on PATH) with stdout into `out`
 * (NUL-terminated, cut at cap - 1), stdin and stderr on /dev/null. The exit
 * status; -1 when it could not run or was killed; 127 when not found. */
int bench_run_capture(char *const argv[], char *out, size_t cap);

/* The first Python that imports every module of `modules` (space-separated):
 * $ACCEL_BENCH_PYTHON, python3, then the DeepSpeed test venv
 * ($ACCEL_DS_VENV, default ~/.cache/accel/venv-ds, see
 * scripts/test-deepspeed.sh). False, with `why` set, when none does. */
bool bench_python_find(const char *modules, char *out, size_t cap, char *why, size_t why_cap);

/* Run `python -c code args...` (args NULL-terminated; stdin /dev/null,
 * stderr discarded) and read its samples: lines "sample SECONDS" (up to
 * BENCH_MAX_REPS, into series->samples, series->reps set) and the first line
 * "reason TEXT" (a skip's or failure's why, into `reason`); other output is
 * ignored. Returns the child's exit status, or -1 when it could not run. */
int bench_python_samples(const char *python, const char *code, char *const args[],
                         bench_series_t *series, char *reason, size_t cap);

/* Give a figure measured alone (bench_measure with no baseline) the samples
 * of a baseline timed in another process right after it: same reps, then
 * spreads and ratio as bench_measure computes them. */
void bench_figure_add_baseline(bench_figure_t *figure, const bench_series_t *baseline,
                               const char *baseline_name);

#endif /* ACCEL_BENCH_PYTHON_BASELINE_H */
