/* bench.h: the harness and suites behind `accel bench` (docs/architecture.md, Performance figures).
 * Every figure is measured next to its baseline in the same process and run:
 * the two are timed in alternating repetitions after a warm-up, and each
 * keeps its median and spread. A ratio is printed only when both spreads are
 * under the noise threshold.
 *
 * Ratio direction, everywhere: accel's performance divided by the baseline's
 * (baseline time / accel time, or accel GB/s / baseline GB/s), so > 1 means
 * accel is faster and 1.0 means "as fast as the raw call".
 * Threads: a bench_ctx_t belongs to the thread running the suites; suites may
 * start their own threads internally. Uses only the public API, except
 * suite_comm_nccl.c, which reads accel's private stream layout to get the
 * CUstream its direct NCCL baseline must share (see that file). */
#ifndef ACCEL_BENCH_BENCH_H
#define ACCEL_BENCH_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <accel/accel.h>

#define BENCH_MAX_REPS        15
#define BENCH_NOISE_THRESHOLD 0.25 /* (p90 - p10) / median above this: "noisy" */
#define BENCH_MAX_FIGURES     160  /* a full run makes 74 */

/* The hidden subcommand a startup figure runs: `accel __bench-startup
 * [BACKEND]` picks the accelerator and exits. */
#define BENCH_STARTUP_COMMAND "__bench-startup"

/* Repetitions of one side of a figure, in seconds per operation. */
typedef struct bench_series {
    double samples[BENCH_MAX_REPS];
    int reps;
    double median, p10, p90, min, max;
    double spread; /* (p90 - p10) / median */
} bench_series_t;

typedef enum bench_kind {
    BENCH_TIME = 0, /* value is time per operation; lower is better */
    BENCH_RATE = 1, /* value is `bytes` per second / 1e9 (GB/s; the optim suite counts
                       params instead, unit "Gpar/s"); higher is better */
} bench_kind_t;

typedef enum bench_ratio_status {
    BENCH_RATIO_OK = 0,
    BENCH_RATIO_NOISY = 1, /* a spread is over BENCH_NOISE_THRESHOLD */
    BENCH_RATIO_NONE = 2,  /* no baseline (see baseline_note) or the figure failed */
} bench_ratio_status_t;

/* One line of the report. Strings are owned by the figure. */
typedef struct bench_figure {
    char suite[16];
    char name[64];
    bench_kind_t kind;
    char unit[8];      /* "ns", "us", "ms", "GB/s", "Gpar/s" */
    double unit_scale; /* seconds -> unit (BENCH_TIME) */
    double bytes;      /* per operation (BENCH_RATE): bytes, or params for Gpar/s */
    bench_series_t measured;
    bool has_baseline;
    bench_series_t baseline;
    char baseline_name[48]; /* "memcpy", "malloc/free", ... */
    char baseline_note[96]; /* why there is none, when has_baseline is false */
    bench_ratio_status_t ratio_status;
    double ratio; /* valid when ratio_status is OK */
    bool has_goal;
    double goal; /* the ratio this figure should reach */
    char note[128];
    bool failed; /* an accel call failed; note holds why */
} bench_figure_t;

typedef struct bench_ctx {
    accel_t *acc;
    const char *backend;   /* accel_name(acc) */
    const char *requested; /* --backend NAME, or NULL */
    bool is_cpu;           /* raw libc baselines are the cpu backend's own calls */
    bool quick;
    bool large;          /* --large: the optim suite adds 2^28 parameters */
    int reps;            /* per side */
    double target_s;     /* minimum wall time of one repetition */
    char self_exe[4096]; /* this program, for the startup figures */
    bench_figure_t figures[BENCH_MAX_FIGURES];
    int figure_count;
    int figures_dropped; /* bench_figure_add calls refused: the table was full */
} bench_ctx_t;

/* Runs the operation `iters` times; false when an accel call failed (the
 * last error says why). */
typedef bool (*bench_fn_t)(void *arg, size_t iters);

/* The display value of a series' median (unit of the figure). */
double bench_value(const bench_figure_t *figure, const bench_series_t *series);

/* A new figure (NULL when the table is full; counted in figures_dropped). */
bench_figure_t *bench_figure_add(bench_ctx_t *ctx, const char *suite, const char *name,
                                 bench_kind_t kind, const char *unit, double unit_scale,
                                 double bytes);

/* Measure `measured` and, when `baseline` is not NULL, `baseline` in
 * alternating repetitions, then compute spreads and the ratio. Without a
 * baseline, `baseline_note` says why. */
void bench_measure(bench_ctx_t *ctx, bench_figure_t *figure, bench_fn_t measured,
                   bench_fn_t baseline, void *arg, const char *baseline_name,
                   const char *baseline_note);

/* For suites that time their own repetitions (comm: every rank must run the
 * same iterations, so the harness's per-process calibration cannot be used):
 * with `reps` samples of seconds per operation filled in (and baseline ones
 * when has_baseline), compute the spreads and the ratio as bench_measure does. */
void bench_figure_finish(bench_figure_t *figure, int reps);

/* Mark a figure failed, with the library's last error (or `why`). */
void bench_figure_fail(bench_figure_t *figure, const char *why);

/* After the suites: fail every figure that was added but neither measured
 * nor failed (a suite that stopped early), so no row reads as a measured 0.
 * Returns how many it failed. */
int bench_figures_close(bench_ctx_t *ctx);

/* "n/a (no raw baseline for opencl)" for backends other than cpu. */
const char *bench_no_raw_baseline(const bench_ctx_t *ctx, char *buf, size_t cap);

/* The child a baseline runs now through bench_run_capture (0: none), for a
 * suite's signal handler to stop before it cleans up. Main thread only
 * writes it. */
extern volatile pid_t bench_child;

/* Monotonic seconds (CLOCK_MONOTONIC). */
double bench_now(void);

/* The vector set accel's CPU kernels use here (machine.c): "avx512", "avx2"
 * or "scalar", the best this CPU and OS run, capped by ACCEL_CPU_ISA as
 * accel caps it. */
const char *bench_cpu_isa(void);

/* The suites, in report order; each adds its figures to ctx. */
typedef struct bench_suite {
    const char *name;
    const char *summary;
    void (*run)(bench_ctx_t *ctx);
} bench_suite_t;

extern const bench_suite_t bench_suites[];
extern const size_t bench_suite_count;

/* Whether a plain `accel bench` (no suite named) runs `suite`: every suite
 * but comm, which starts MPI ranks and runs only when named. */
bool bench_suite_runs_by_default(const bench_suite_t *suite);

void bench_suite_startup(bench_ctx_t *ctx);
void bench_suite_dispatch(bench_ctx_t *ctx);
void bench_suite_alloc(bench_ctx_t *ctx);
void bench_suite_copy(bench_ctx_t *ctx);
void bench_suite_rng(bench_ctx_t *ctx);
void bench_suite_stream(bench_ctx_t *ctx);
void bench_suite_optim(bench_ctx_t *ctx);
void bench_suite_aio(bench_ctx_t *ctx);
void bench_suite_comm(bench_ctx_t *ctx);

/* The child side of the startup figures: pick the accelerator, exit code. */
int bench_startup_child(int argc, char **argv);

/* `accel bench ...` and the hidden `accel __bench-startup` (argv[0] is the
 * subcommand): the CLI entry, in tools/accel/bench_cmd.c. */
int accel_cli_bench(int argc, char **argv);

/* Write the ratios of every figure as an SVG bar chart (log scale, a goal
 * line at 1.0 and each figure's own goal). False on a write error. */
bool bench_write_svg(const bench_ctx_t *ctx, FILE *out);

#endif /* ACCEL_BENCH_BENCH_H */
