/* bench_cmd.c: `accel bench [SUITE...] [--suite SUITE] [--backend NAME]
 * [--json FILE] [--svg FILE] [--quick] [--large]`: runs the suites of bench/
 * (linked in as the accel_bench library) and prints each figure next to its
 * same-run baseline as an aligned table, optionally as JSON and as an SVG
 * chart. Also the hidden `accel __bench-startup` child that the startup
 * suite times. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "json.h"

static void bench_usage(FILE *out)
{
    fprintf(out,
            "usage: accel bench [SUITE...] [--suite SUITE] [--backend NAME] [--json FILE]\n"
            "                   [--svg FILE] [--quick] [--large]\n"
            "  Measure accel next to its baseline in the same run: median of repeated\n"
            "  runs after a warm-up, spread (p90-p10)/median, and the ratio\n"
            "  accel speed / baseline speed (> 1: accel faster). A ratio is withheld\n"
            "  (\"noisy\") when either spread is over %.0f%% and the two sides'\n"
            "  p10-p90 ranges overlap.\n"
            "  --suite SUITE run SUITE (same as naming it; may repeat)\n"
            "  --quick       fewer repetitions and smaller buffers (a few seconds)\n"
            "  --large       optim suite: also 2^28 parameters (4 GiB of buffers)\n"
            "  --json FILE   machine info and every figure as one JSON object\n"
            "  --svg FILE    a bar chart of the ratios with goal lines\n"
            "suites:\n",
            BENCH_NOISE_THRESHOLD * 100);
    for (size_t i = 0; i < bench_suite_count; i++)
        fprintf(out, "  %-10s %s%s\n", bench_suites[i].name, bench_suites[i].summary,
                bench_suite_runs_by_default(&bench_suites[i]) ? "" : " (only when named)");
}

/* ---------------------------------------------------------------- machine */

/* "model name" of /proc/cpuinfo, or "". */
static void bench_cpu_model(char *out, size_t cap)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    out[0] = '\0';
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(out, cap, "%s", colon + 2);
            out[strcspn(out, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
}

/* The 1, 5 and 15 minute load averages (/proc/loadavg); false without. */
static bool bench_load_average(double load[3])
{
    FILE *f = fopen("/proc/loadavg", "r");
    bool ok = f != NULL && fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) == 3;
    if (f != NULL)
        fclose(f);
    return ok;
}

/* "2026-11-27T18:00:00Z", now. */
static void bench_date_utc(char *out, size_t cap)
{
    time_t now = time(NULL);
    struct tm utc;
    if (gmtime_r(&now, &utc) == NULL || strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0)
        snprintf(out, cap, "unknown");
}

/* ---------------------------------------------------------------- table */

static void bench_format_ratio(const bench_figure_t *f, char *out, size_t cap)
{
    if (f->ratio_status == BENCH_RATIO_OK)
        snprintf(out, cap, "%.2fx", f->ratio);
    else if (f->ratio_status == BENCH_RATIO_NOISY)
        snprintf(out, cap, "noisy*");
    else
        snprintf(out, cap, "-");
}

static void bench_format_value(double value, char *out, size_t cap)
{
    if (value >= 100)
        snprintf(out, cap, "%.0f", value);
    else if (value >= 10)
        snprintf(out, cap, "%.1f", value);
    else
        snprintf(out, cap, "%.3g", value);
}

static void bench_print_table(const bench_ctx_t *ctx, FILE *out)
{
    bool any_noisy = false;
    fprintf(out, "%-9s %-30s %9s %-5s %7s  %-44s %-8s %s\n", "suite", "figure", "value", "unit",
            "spread", "baseline (same run)", "ratio", "goal / notes");
    for (int i = 0; i < ctx->figure_count; i++) {
        const bench_figure_t *f = &ctx->figures[i];
        char value[32] = "-", spread[16] = "-", baseline[96], ratio[16], notes[192] = "";
        if (!f->failed) {
            bench_format_value(bench_value(f, &f->measured), value, sizeof value);
            snprintf(spread, sizeof spread, "%.1f%%", f->measured.spread * 100);
        }
        if (f->has_baseline && !f->failed) {
            char b[32];
            bench_format_value(bench_value(f, &f->baseline), b, sizeof b);
            snprintf(baseline, sizeof baseline, "%s %s (%.1f%%)", b, f->baseline_name,
                     f->baseline.spread * 100);
        } else {
            snprintf(baseline, sizeof baseline, "%s", f->baseline_note[0] ? f->baseline_note : "-");
        }
        bench_format_ratio(f, ratio, sizeof ratio);
        any_noisy |= f->ratio_status == BENCH_RATIO_NOISY;
        if (f->has_goal)
            snprintf(notes, sizeof notes, "goal >= %.2fx%s%s", f->goal, f->note[0] ? "; " : "",
                     f->note);
        else
            snprintf(notes, sizeof notes, "%s", f->note);
        fprintf(out, "%-9s %-30s %9s %-5s %7s  %-44s %-8s %s\n", f->suite, f->name, value, f->unit,
                spread, baseline, ratio, notes);
    }
    {
        char cpu[256], date[32];
        double load[3] = {-1, -1, -1};
        bench_cpu_model(cpu, sizeof cpu);
        bench_date_utc(date, sizeof date);
        bench_load_average(load);
        fprintf(out, "\nmachine: %s, %ld CPUs, vector set %s; %s, load average %.2f %.2f %.2f\n",
                cpu[0] ? cpu : "unknown CPU", sysconf(_SC_NPROCESSORS_ONLN), bench_cpu_isa(), date,
                load[0], load[1], load[2]);
    }
    fprintf(out,
            "\nvalue and baseline: medians of %d repetitions each (after a warm-up), timed "
            "alternately in this run;\nspread = (p90 - p10) / median; ratio = accel speed / "
            "baseline speed (baseline time / accel time, or accel GB/s / baseline GB/s), > 1 = "
            "accel faster.\n",
            ctx->reps);
    if (any_noisy)
        fprintf(out,
                "* noisy: the spread of accel or of its baseline is over %.0f%% and their p10-p90 "
                "ranges overlap,\n  so the two medians are not comparable and no ratio is "
                "printed; rerun on a quieter machine\n  or without --quick. (Ranges apart "
                "decide the comparison: those ratios are printed.)\n",
                BENCH_NOISE_THRESHOLD * 100);
}

/* ---------------------------------------------------------------- JSON */

static void bench_json_series(json_writer_t *w, const bench_figure_t *f, const bench_series_t *s)
{
    json_object_begin(w);
    json_key(w, "median");
    json_double(w, bench_value(f, s));
    json_key(w, "median_seconds_per_op");
    json_double(w, s->median);
    json_key(w, "p10_seconds_per_op");
    json_double(w, s->p10);
    json_key(w, "p90_seconds_per_op");
    json_double(w, s->p90);
    json_key(w, "min_seconds_per_op");
    json_double(w, s->min);
    json_key(w, "max_seconds_per_op");
    json_double(w, s->max);
    json_key(w, "spread");
    json_double(w, s->spread);
    json_key(w, "reps");
    json_int(w, s->reps);
    json_object_end(w);
}

static void bench_json_figure(json_writer_t *w, const bench_figure_t *f)
{
    static const char *const ratio_status[] = {"ok", "noisy", "none"};
    json_object_begin(w);
    json_key(w, "suite");
    json_string(w, f->suite);
    json_key(w, "name");
    json_string(w, f->name);
    json_key(w, "unit");
    json_string(w, f->unit);
    json_key(w, "direction");
    json_string(w, f->kind == BENCH_RATE ? "higher is better" : "lower is better");
    json_key(w, "failed");
    json_bool(w, f->failed);
    json_key(w, "measured");
    if (f->failed)
        json_null(w);
    else
        bench_json_series(w, f, &f->measured);
    json_key(w, "median");
    if (f->failed)
        json_null(w);
    else
        json_double(w, bench_value(f, &f->measured));
    json_key(w, "spread");
    if (f->failed)
        json_null(w);
    else
        json_double(w, f->measured.spread);
    json_key(w, "reps");
    json_int(w, f->failed ? 0 : f->measured.reps);
    json_key(w, "baseline_name");
    json_string(w, f->has_baseline ? f->baseline_name : NULL);
    json_key(w, "baseline");
    if (f->has_baseline && !f->failed)
        bench_json_series(w, f, &f->baseline);
    else
        json_null(w);
    json_key(w, "baseline_note");
    json_string(w, f->baseline_note[0] ? f->baseline_note : NULL);
    json_key(w, "ratio");
    if (f->ratio_status == BENCH_RATIO_OK)
        json_double(w, f->ratio);
    else
        json_null(w);
    json_key(w, "ratio_status");
    json_string(w, ratio_status[f->ratio_status]);
    json_key(w, "ratio_direction");
    json_string(w, "accel speed / baseline speed; > 1 = accel faster");
    json_key(w, "goal");
    if (f->has_goal)
        json_double(w, f->goal);
    else
        json_null(w);
    json_key(w, "note");
    json_string(w, f->note);
    json_object_end(w);
}

static bool bench_write_json(const bench_ctx_t *ctx, FILE *out)
{
    json_writer_t w;
    struct utsname u;
    char host[256] = "", cpu[256], date[32];
    double load[3];
    accel_device_properties_t props = ACCEL_STRUCT_INIT(accel_device_properties_t);
    bool have_props = accel_device_properties(ctx->acc, ACCEL_CURRENT_DEVICE, &props) == ACCEL_OK;
    gethostname(host, sizeof host - 1);
    bench_cpu_model(cpu, sizeof cpu);
    bench_date_utc(date, sizeof date);
    json_init(&w, out);
    json_object_begin(&w);
    json_key(&w, "tool");
    json_string(&w, "accel bench");
    json_key(&w, "version");
    json_string(&w, accel_version());
    json_key(&w, "machine");
    json_object_begin(&w);
    json_key(&w, "hostname");
    json_string(&w, host);
    if (uname(&u) == 0) {
        json_key(&w, "os");
        json_string(&w, u.sysname);
        json_key(&w, "kernel");
        json_string(&w, u.release);
        json_key(&w, "arch");
        json_string(&w, u.machine);
    }
    json_key(&w, "cpu");
    json_string(&w, cpu);
    json_key(&w, "online_cpus");
    json_int(&w, sysconf(_SC_NPROCESSORS_ONLN));
    json_key(&w, "cpu_isa");
    json_string(&w, bench_cpu_isa());
    json_key(&w, "load_average_at_end");
    if (bench_load_average(load)) {
        json_array_begin(&w);
        for (int i = 0; i < 3; i++)
            json_double(&w, load[i]);
        json_array_end(&w);
    } else {
        json_null(&w);
    }
    json_object_end(&w);
    json_key(&w, "date_utc");
    json_string(&w, date);
    json_key(&w, "backend");
    json_string(&w, ctx->backend);
    json_key(&w, "selection_method");
    json_string(&w, accel_selection_method(ctx->acc));
    json_key(&w, "device");
    json_string(&w, have_props ? props.name : NULL);
    json_key(&w, "quick");
    json_bool(&w, ctx->quick);
    json_key(&w, "reps");
    json_int(&w, ctx->reps);
    json_key(&w, "noise_threshold");
    json_double(&w, BENCH_NOISE_THRESHOLD);
    json_key(&w, "ratio_direction");
    json_string(&w, "accel speed / baseline speed (baseline time / accel time); > 1 = accel "
                    "faster");
    json_key(&w, "figures");
    json_array_begin(&w);
    for (int i = 0; i < ctx->figure_count; i++)
        bench_json_figure(&w, &ctx->figures[i]);
    json_array_end(&w);
    json_object_end(&w);
    return json_finish(&w) && !ferror(out);
}

/* ---------------------------------------------------------------- command */

typedef bool (*bench_writer_t)(const bench_ctx_t *ctx, FILE *out);

static bool bench_write_file(const bench_ctx_t *ctx, const char *path, bench_writer_t writer)
{
    FILE *out = fopen(path, "w");
    if (out == NULL) {
        fprintf(stderr, "accel bench: cannot write %s\n", path);
        return false;
    }
    bool ok = writer(ctx, out);
    ok = fclose(out) == 0 && ok;
    if (!ok)
        fprintf(stderr, "accel bench: writing %s failed\n", path);
    return ok;
}

static const bench_suite_t *bench_find_suite(const char *name)
{
    for (size_t i = 0; i < bench_suite_count; i++)
        if (strcmp(bench_suites[i].name, name) == 0)
            return &bench_suites[i];
    return NULL;
}

int accel_cli_bench(int argc, char **argv)
{
    static bench_ctx_t ctx; /* large: the figure table */
    const char *json_path = NULL, *svg_path = NULL;
    bool selected[16] = {false}, any_selected = false, owned = false;

    if (strcmp(argv[0], BENCH_STARTUP_COMMAND) == 0)
        return bench_startup_child(argc, argv);
    memset(&ctx, 0, sizeof ctx);
    for (int i = 1; i < argc; i++) {
        const bench_suite_t *suite;
        if (strcmp(argv[i], "--quick") == 0) {
            ctx.quick = true;
        } else if (strcmp(argv[i], "--large") == 0) {
            ctx.large = true;
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            ctx.requested = argv[++i];
        } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            json_path = argv[++i];
        } else if (strcmp(argv[i], "--svg") == 0 && i + 1 < argc) {
            svg_path = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            bench_usage(stdout);
            return ACCEL_CLI_EXIT_OK;
        } else if ((suite = bench_find_suite(argv[i])) != NULL ||
                   (strcmp(argv[i], "--suite") == 0 && i + 1 < argc &&
                    (suite = bench_find_suite(argv[++i])) != NULL)) {
            selected[suite - bench_suites] = any_selected = true;
        } else {
            fprintf(stderr, "accel bench: unexpected argument '%s'\n", argv[i]);
            bench_usage(stderr);
            return ACCEL_CLI_EXIT_USAGE;
        }
    }
    ssize_t n = readlink("/proc/self/exe", ctx.self_exe, sizeof ctx.self_exe - 1);
    if (n <= 0) {
        fprintf(stderr, "accel bench: cannot find this program (/proc/self/exe)\n");
        return ACCEL_CLI_EXIT_FAILURE;
    }
    ctx.self_exe[n] = '\0';
    if (!accel_cli_open(ctx.requested, &ctx.acc, &owned))
        return ACCEL_CLI_EXIT_FAILURE;
    ctx.backend = accel_name(ctx.acc);
    ctx.is_cpu = strcmp(ctx.backend, "cpu") == 0;
    ctx.reps = ctx.quick ? 3 : 11;
    ctx.target_s = ctx.quick ? 0.002 : 0.02;

    printf("accel bench: backend %s (%s), %d repetitions per side%s\n\n", ctx.backend,
           accel_selection_method(ctx.acc), ctx.reps, ctx.quick ? " (--quick)" : "");
    fflush(stdout);
    for (size_t i = 0; i < bench_suite_count; i++)
        if (any_selected ? selected[i] : bench_suite_runs_by_default(&bench_suites[i]))
            bench_suites[i].run(&ctx);
    bench_figures_close(&ctx);
    bench_print_table(&ctx, stdout);

    bool ok = ctx.figures_dropped == 0;
    if (!ok)
        fprintf(stderr,
                "accel bench: %d figure(s) did not fit in the table of %d and are missing\n",
                ctx.figures_dropped, BENCH_MAX_FIGURES);
    if (json_path)
        ok = bench_write_file(&ctx, json_path, bench_write_json) && ok;
    if (svg_path)
        ok = bench_write_file(&ctx, svg_path, bench_write_svg) && ok;
    accel_cli_close(ctx.acc, owned);
    return ok ? ACCEL_CLI_EXIT_OK : ACCEL_CLI_EXIT_FAILURE;
}
