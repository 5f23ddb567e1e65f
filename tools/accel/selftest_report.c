/* selftest_report.c: `accel selftest --json FILE` (selftest_report.h). The
 * system part is `accel report --json` for the same backend, run as a child
 * process so that this process never opens the backend. */
#include "selftest_report.h"

#include <stdlib.h>
#include <string.h>

#include <accel/accel.h>

#include "json.h"

extern char **environ;

#define SELFTEST_REPORT_SCHEMA "https://github.com/accel/accel/selftest-report/1"

#ifndef ACCEL_BUILD_TYPE
#define ACCEL_BUILD_TYPE ""
#endif

/* The variables accel and the vendor runtimes it drives read
 * (docs/env-vars.md), by exact name or by family prefix. */
static const char *const report_env_names[] = {
    "LOCAL_SIZE",     "LOCAL_RANK",
    "RANK",           "WORLD_SIZE",
    "MASTER_ADDR",    "MASTER_PORT",
    "NO_COLOR",       "LD_LIBRARY_PATH",
    "DS_ACCELERATOR", "DS_PIN_MEMORY_BACKEND",
};
static const char *const report_env_prefixes[] = {
    "ACCEL_", "CUDA_", "NCCL_", "HCCL_",   "ASCEND_", "NEUWARE_",         "CNCL_", "MLU_",  "SDAA_",
    "TCCL_",  "ZE_",   "CCL_",  "HABANA_", "PT_HPU_", "OMPI_COMM_WORLD_", "PMI_",  "SUPA_",
};

static bool report_env_wanted(const char *entry)
{
    size_t name_len = strcspn(entry, "=");
    for (size_t i = 0; i < sizeof report_env_names / sizeof report_env_names[0]; i++)
        if (strlen(report_env_names[i]) == name_len &&
            strncmp(entry, report_env_names[i], name_len) == 0)
            return true;
    for (size_t i = 0; i < sizeof report_env_prefixes / sizeof report_env_prefixes[0]; i++)
        if (strncmp(entry, report_env_prefixes[i], strlen(report_env_prefixes[i])) == 0)
            return true;
    return false;
}

static int report_env_compare(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void report_environment(json_writer_t *w)
{
    size_t count = 0, n = 0;
    while (environ[count] != NULL)
        count++;
    const char **wanted = calloc(count + 1, sizeof *wanted);
    json_object_begin(w);
    for (size_t i = 0; wanted != NULL && i < count; i++)
        if (report_env_wanted(environ[i]))
            wanted[n++] = environ[i];
    if (wanted != NULL)
        qsort(wanted, n, sizeof *wanted, report_env_compare);
    for (size_t i = 0; i < n; i++) {
        char name[256];
        size_t len = strcspn(wanted[i], "=");
        snprintf(name, sizeof name, "%.*s", (int)len, wanted[i]);
        json_key(w, name);
        json_string(w, wanted[i][len] == '=' ? wanted[i] + len + 1 : "");
    }
    json_object_end(w);
    free(wanted);
}

/* `accel report --json --backend B`, or null and the reason. */
static void report_system(json_writer_t *w, const selftest_options_t *options)
{
    const char *argv[] = {"accel", "report", "--json", "--backend", options->backend, NULL};
    char why[512];
    double timeout = options->timeout_s > 0 ? options->timeout_s : SELFTEST_DEFAULT_TIMEOUT_S;
    char *text = selftest_capture(argv, timeout, why, sizeof why);
    json_key(w, "system");
    if (text != NULL) {
        size_t len = strlen(text);
        while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
            text[--len] = '\0';
        json_raw(w, text);
    } else {
        json_null(w);
    }
    json_key(w, "system_error");
    json_string(w, text != NULL ? NULL : why);
    free(text);
}

static void report_checks(json_writer_t *w, const selftest_run_t *run)
{
    json_key(w, "checks");
    json_array_begin(w);
    for (size_t i = 0; i < run->count; i++) {
        const selftest_record_t *record = &run->records[i];
        char sentence[CHECK_SENTENCE_MAX + 160];
        selftest_record_sentence(record, sentence, sizeof sentence);
        json_object_begin(w);
        json_key(w, "name");
        json_string(w, record->check->name);
        json_key(w, "result");
        json_string(w, selftest_result_name(record->result));
        json_key(w, "sentence");
        json_string(w, sentence);
        json_key(w, "where");
        json_string(w, record->where[0] != '\0' ? record->where : NULL);
        json_key(w, "seconds");
        json_double(w, record->seconds);
        json_key(w, "output");
        json_string(w, record->output);
        json_object_end(w);
    }
    json_array_end(w);
}

static void report_summary(json_writer_t *w, const selftest_run_t *run)
{
    static const char *const keys[] = {"pass", "fail", "skip", "hang", "crash"};
    json_key(w, "summary");
    json_object_begin(w);
    json_key(w, "checks");
    json_uint(w, run->count);
    for (int r = CHECK_PASS; r <= CHECK_CRASH; r++) {
        json_key(w, keys[r]);
        json_uint(w, run->totals[r]);
    }
    json_key(w, "seconds");
    json_double(w, run->seconds);
    json_key(w, "ok");
    json_bool(w, run->totals[CHECK_FAIL] + run->totals[CHECK_HANG] + run->totals[CHECK_CRASH] == 0);
    json_object_end(w);
}

bool selftest_report_write(const char *path, const selftest_options_t *options,
                           const char *chosen_by, const selftest_run_t *run)
{
    bool to_stdout = strcmp(path, "-") == 0;
    FILE *out = to_stdout ? stdout : fopen(path, "w");
    json_writer_t w;
    char tool_version[32];
    if (out == NULL) {
        fprintf(stderr, "accel selftest: cannot write %s: %m\n", path);
        return false;
    }
    snprintf(tool_version, sizeof tool_version, "%d.%d.%d", ACCEL_VERSION_MAJOR,
             ACCEL_VERSION_MINOR, ACCEL_VERSION_PATCH);
    json_init(&w, out);
    json_object_begin(&w);
    json_key(&w, "schema");
    json_string(&w, SELFTEST_REPORT_SCHEMA);
    json_key(&w, "accel");
    json_object_begin(&w);
    json_key(&w, "library_version");
    json_string(&w, accel_version());
    json_key(&w, "tool_version");
    json_string(&w, tool_version);
    json_key(&w, "build_type");
    json_string(&w, ACCEL_BUILD_TYPE);
    json_key(&w, "compiler");
    json_string(&w, __VERSION__);
    json_object_end(&w);
    json_key(&w, "backend");
    json_string(&w, options->backend);
    json_key(&w, "chosen_by");
    json_string(&w, chosen_by);
    json_key(&w, "options");
    json_object_begin(&w);
    json_key(&w, "quick");
    json_bool(&w, options->quick);
    json_key(&w, "only");
    json_string(&w, options->only);
    json_key(&w, "timeout_seconds");
    json_double(&w, options->timeout_s > 0 ? options->timeout_s : SELFTEST_DEFAULT_TIMEOUT_S);
    json_object_end(&w);
    json_key(&w, "launcher");
    if (run->size > 1) {
        json_object_begin(&w);
        json_key(&w, "rank");
        json_int(&w, run->rank);
        json_key(&w, "size");
        json_int(&w, run->size);
        json_object_end(&w);
    } else {
        json_null(&w);
    }
    json_key(&w, "communication_engine");
    json_string(&w, run->comm_engine[0] != '\0' ? run->comm_engine : NULL);
    report_system(&w, options);
    report_summary(&w, run);
    report_checks(&w, run);
    json_key(&w, "environment");
    report_environment(&w);
    json_object_end(&w);
    bool ok = json_finish(&w);
    if (!to_stdout && fclose(out) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "accel selftest: writing %s failed\n", path);
    return ok;
}
