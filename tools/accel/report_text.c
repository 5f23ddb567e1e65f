/* report_text.c: `accel report` as text, laid out like ds_report: a rule
 * between sections, "name ...... value" rows, and coloured [YES]/[NO]/[OKAY]
 * tags (colour only on a terminal without NO_COLOR). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report_print.h"

#define TEXT_RULE               "--------------------------------------------------"
#define TEXT_WIDTH              34 /* name column of "name .... value" rows */
#define TEXT_CASCADE_WIDTH      20 /* name column of the cascade */
#define TEXT_OP_WIDTH           25 /* name column of the op-builder table */
#define TEXT_OP_INSTALLED_WIDTH 13 /* its "installed" header and dots */

static void text_section(FILE *out, const char *title)
{
    fprintf(out, "%s\n%s\n%s\n", TEXT_RULE, title, TEXT_RULE);
}

__attribute__((format(printf, 4, 5))) static void text_row(FILE *out, int indent, const char *name,
                                                           const char *fmt, ...)
{
    accel_cli_print_dotted(out, indent, name, TEXT_WIDTH);
    va_list args;
    va_start(args, fmt);
    vfprintf(out, fmt, args);
    va_end(args);
    fputc('\n', out);
}

static void text_tag(FILE *out, const char *tag, accel_cli_color_t color)
{
    fprintf(out, "%s%s%s", accel_cli_color(out, color), tag, accel_cli_color(out, ACCEL_CLI_RESET));
}

/* A row whose value could not be read: "n/a" or the error. */
static bool text_query_failed(FILE *out, int indent, const char *name, const report_query_t *q)
{
    if (q->status == ACCEL_OK)
        return false;
    if (q->status == ACCEL_ERROR_UNSUPPORTED) {
        text_row(out, indent, name, "n/a");
    } else {
        accel_cli_print_dotted(out, indent, name, TEXT_WIDTH);
        text_tag(out, "[FAIL]", ACCEL_CLI_RED);
        fprintf(out, " %s\n", q->error);
    }
    return true;
}

static void text_bytes_row(FILE *out, int indent, const char *name, uint64_t bytes,
                           const report_query_t *q)
{
    if (text_query_failed(out, indent, name, q))
        return;
    char human[32];
    accel_cli_format_bytes(bytes, human, sizeof human);
    text_row(out, indent, name, "%s (%llu bytes)", human, (unsigned long long)bytes);
}

static const char *text_or(const char *text, const char *fallback)
{
    return text && *text ? text : fallback;
}

static void text_header(const report_t *r, FILE *out)
{
    text_section(out, "accel report");
    text_row(out, 0, "accel version", "%s", r->version);
    if (r->acc) {
        text_row(out, 0, "accelerator", "%s (%s)", r->name, r->selection_method);
    } else {
        accel_cli_print_dotted(out, 0, "accelerator", TEXT_WIDTH);
        text_tag(out, "[FAIL]", ACCEL_CLI_RED);
        fputs(" none could be selected (reason below)\n", out);
    }
    text_row(out, 0, "ACCEL_ACCELERATOR", "%s", text_or(r->accel_accelerator_env, "(unset)"));
    text_row(out, 0, "DS_ACCELERATOR", "%s", text_or(r->ds_accelerator_env, "(unset)"));
    text_row(out, 0, "supported names", "%s", text_or(r->supported_names, "(unknown)"));
}

static void text_cascade(const report_t *r, FILE *out)
{
    text_section(out, "auto-detect cascade (first match wins)");
    if (text_query_failed(out, 0, "cascade", &r->detect_query))
        return;
    for (size_t i = 0; i < r->candidate_count; i++) {
        const accel_candidate_t *c = &r->candidates[i];
        char reason[400];
        accel_cli_print_dotted(out, 0, c->name, TEXT_CASCADE_WIDTH);
        if (c->available)
            text_tag(out, "[YES]", ACCEL_CLI_GREEN);
        else
            text_tag(out, "[NO]", ACCEL_CLI_YELLOW);
        fprintf(out, " %s\n", report_candidate_reason(r, c, reason, sizeof reason));
    }
    if (r->candidate_total > r->candidate_count)
        fprintf(out, "(%zu more not shown)\n", r->candidate_total - r->candidate_count);
}

static void text_device(const report_device_t *d, FILE *out)
{
    char label[32];
    snprintf(label, sizeof label, "device %d", d->index);
    if (!text_query_failed(out, 0, label, &d->device_name_query))
        text_row(out, 0, label, "%s", d->device_name);
    const accel_device_properties_t *p = &d->properties;
    if (!text_query_failed(out, 2, "properties", &d->properties_query)) {
        text_row(out, 2, "name", "%s", text_or(p->name, "unknown"));
        text_row(out, 2, "vendor", "%s", text_or(p->vendor, "unknown"));
        char human[32];
        accel_cli_format_bytes(p->total_memory, human, sizeof human);
        text_row(out, 2, "total memory", "%s", human);
        if (p->compute_major >= 0)
            text_row(out, 2, "compute capability", "%d.%d", p->compute_major,
                     p->compute_minor >= 0 ? p->compute_minor : 0);
        else
            text_row(out, 2, "compute capability", "unknown");
        if (p->multiprocessor_count >= 0)
            text_row(out, 2, "multiprocessors", "%d", p->multiprocessor_count);
        else
            text_row(out, 2, "multiprocessors", "unknown");
        text_row(out, 2, "pci bus id", "%s", text_or(p->pci_bus_id, "none"));
        text_row(out, 2, "uuid", "%s", text_or(p->uuid, "none"));
        text_row(out, 2, "driver version", "%s", text_or(p->driver_version, "unknown"));
    }
    text_bytes_row(out, 2, "available memory", d->available_memory, &d->available_memory_query);
}

static void text_devices(const report_t *r, FILE *out)
{
    text_section(out, "devices");
    if (text_query_failed(out, 0, "device count", &r->device_count_query))
        return;
    text_row(out, 0, "device count", "%d", r->device_count);
    for (int i = 0; i < r->device_count && r->devices; i++)
        text_device(&r->devices[i], out);
}

static void text_memory(const report_t *r, FILE *out)
{
    text_section(out, "memory (current device)");
    if (text_query_failed(out, 0, "current device", &r->current_device_query))
        return;
    text_row(out, 0, "current device", "%d", r->current_device);
    text_bytes_row(out, 0, "allocated", r->memory_allocated, &r->memory_allocated_query);
    text_bytes_row(out, 0, "reserved", r->memory_reserved, &r->memory_reserved_query);
}

static void text_capabilities(const report_t *r, FILE *out)
{
    text_section(out, "dtypes and flags");
    if (!text_query_failed(out, 0, "dtypes", &r->dtypes_query)) {
        accel_cli_print_dotted(out, 0, "dtypes", TEXT_WIDTH);
        for (size_t i = 0; i < r->dtype_count; i++) {
            const char *name = accel_dtype_name(r->dtypes[i]);
            fprintf(out, "%s%s", i ? ", " : "", name ? name : "unknown");
        }
        fputc('\n', out);
    }
    for (int f = 0; f < ACCEL_FLAG_COUNT_; f++) {
        const char *name = accel_flag_name((accel_flag_t)f);
        char fallback[32];
        if (!name) {
            snprintf(fallback, sizeof fallback, "flag %d", f);
            name = fallback;
        }
        if (text_query_failed(out, 0, name, &r->flag_queries[f]))
            continue;
        accel_cli_print_dotted(out, 0, name, TEXT_WIDTH);
        if (r->flags[f])
            text_tag(out, "[YES]", ACCEL_CLI_GREEN);
        else
            text_tag(out, "[NO]", ACCEL_CLI_YELLOW);
        fputc('\n', out);
    }
}

static void text_list_row(FILE *out, const char *name, const char *const *items, size_t count)
{
    accel_cli_print_dotted(out, 0, name, TEXT_WIDTH);
    if (count == 0)
        fputs("(none)", out);
    for (size_t i = 0; i < count; i++)
        fprintf(out, "%s%s", i ? ", " : "", items[i]);
    fputc('\n', out);
}

static void text_environment_names(const report_t *r, FILE *out)
{
    text_section(out, "backends and launcher environment");
    if (!text_query_failed(out, 0, "communication backend", &r->communication_backend_query))
        text_row(out, 0, "communication backend", "%s", text_or(r->communication_backend, "n/a"));
    if (!text_query_failed(out, 0, "communication backend version",
                           &r->communication_backend_version_query))
        text_row(out, 0, "communication backend version", "%s", r->communication_backend_version);
    /* "communication engine ..... mpi [YES] libmpi loaded: Open MPI v4.1.4" */
    if (!text_query_failed(out, 0, "communication engine", &r->comm_engine_query)) {
        const accel_comm_engine_info_t *e = &r->comm_engine;
        if (e->engine == NULL)
            text_row(out, 0, "communication engine", "none (%s)", e->detail);
        else
            text_row(out, 0, "communication engine", "%s %s%s%s %s", e->engine,
                     accel_cli_color(out, e->available ? ACCEL_CLI_GREEN : ACCEL_CLI_RED),
                     e->available ? "[YES]" : "[NO]", accel_cli_color(out, ACCEL_CLI_RESET),
                     e->detail);
    }
    if (!text_query_failed(out, 0, "compile backend", &r->compile_backend_query))
        text_row(out, 0, "compile backend", "%s", text_or(r->compile_backend, "n/a"));
    if (!text_query_failed(out, 0, "visible devices variables", &r->visible_devices_envs_query)) {
        text_list_row(out, "visible devices variables", r->visible_devices_envs,
                      r->visible_devices_env_count);
        for (size_t i = 0; i < r->visible_devices_env_count; i++) {
            const char *value = getenv(r->visible_devices_envs[i]);
            text_row(out, 2, r->visible_devices_envs[i], "%s", value ? value : "(unset)");
        }
    }
    if (!text_query_failed(out, 0, "export prefixes", &r->export_prefixes_query))
        text_list_row(out, "export prefixes", r->export_prefixes, r->export_prefix_count);
}

/* ds_report's table: name, installed (prebuilt here), compatible, then what
 * the op runs (or, when not compatible, why). */
static void text_ops(const report_t *r, FILE *out)
{
    text_section(out, "op builders (installed = prebuilt in this library, compatible = can "
                      "build and run here)");
    if (text_query_failed(out, 0, "op builders", &r->op_count_query))
        return;
    if (r->op_count == 0) {
        fputs("no op builders in this backend yet\n", out);
        return;
    }
    accel_cli_print_dotted(out, 0, "op name", TEXT_OP_WIDTH);
    accel_cli_print_dotted(out, 0, "installed", TEXT_OP_INSTALLED_WIDTH);
    fputs("compatible .. implementation\n" TEXT_RULE "\n", out);
    for (size_t i = 0; i < r->op_count; i++) {
        const report_op_t *op = &r->ops[i];
        const char *name = text_or(op->op_name, text_or(op->class_name, "(unnamed)"));
        accel_cli_print_dotted(out, 0, name, TEXT_OP_WIDTH);
        if (op->query.status != ACCEL_OK) {
            text_tag(out, "[FAIL]", ACCEL_CLI_RED);
            fprintf(out, " %s\n",
                    op->query.status == ACCEL_ERROR_UNSUPPORTED ? "n/a" : op->query.error);
            continue;
        }
        if (op->installed)
            text_tag(out, "[YES]", ACCEL_CLI_GREEN);
        else
            text_tag(out, "[NO]", ACCEL_CLI_YELLOW);
        fprintf(out, " %.*s ", op->installed ? 6 : 7, ".......");
        if (op->compatible) {
            text_tag(out, "[OKAY]", ACCEL_CLI_GREEN);
            /* what it runs, then how (async_io's I/O path) when it says */
            fprintf(out, "%s%s", op->implementation[0] ? " " : "", op->implementation);
            fprintf(out, "%s%s\n", op->reason[0] ? (op->implementation[0] ? "; " : " ") : "",
                    op->reason);
        } else {
            text_tag(out, "[NO]", ACCEL_CLI_YELLOW);
            fprintf(out, "%s%s\n", op->reason[0] ? " " : "", op->reason);
        }
    }
}

static void text_shm(const report_t *r, FILE *out)
{
    text_section(out, "environment");
    const char *name = "shared memory (/dev/shm) size";
    if (!r->shm_known) {
        text_row(out, 0, name, "UNKNOWN");
        return;
    }
    char human[32];
    accel_cli_format_bytes(r->shm_bytes, human, sizeof human);
    accel_cli_print_dotted(out, 0, name, TEXT_WIDTH);
    fputs(human, out);
    if (r->shm_too_small) {
        fputc(' ', out);
        text_tag(out, "[WARNING]", ACCEL_CLI_YELLOW);
        fputs(" /dev/shm is under 512 MB; multi-process runs may fail "
              "(in docker, start the container with --shm-size=1gb or more)",
              out);
        if (r->communication_backend && strcmp(r->communication_backend, "nccl") == 0)
            fputs("; NCCL uses /dev/shm for intra-node transport", out);
    }
    fputc('\n', out);
}

void report_print_text(const report_t *r, FILE *out)
{
    text_header(r, out);
    text_cascade(r, out);
    if (r->acc) {
        text_devices(r, out);
        text_memory(r, out);
        text_capabilities(r, out);
        text_environment_names(r, out);
        text_ops(r, out);
    }
    text_shm(r, out);
    fputs(TEXT_RULE "\n", out);
}
