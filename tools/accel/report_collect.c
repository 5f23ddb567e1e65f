/* report_collect.c: gathers the facts `accel report` shows into a report_t
 * (report.h), and the candidate reason text both printers use. Knows nothing
 * of the command or the printers. One report per call; single-threaded. */
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "report.h"

/* Record a query's outcome; true when it succeeded. */
static bool report_check(report_t *r, report_query_t *q, accel_status_t status)
{
    q->status = status;
    q->error[0] = '\0';
    if (status == ACCEL_OK || status == ACCEL_ERROR_UNSUPPORTED)
        return status == ACCEL_OK;
    snprintf(q->error, sizeof q->error, "%s", accel_last_error());
    if (r->failures++ == 0)
        snprintf(r->first_failure, sizeof r->first_failure, "%s", q->error);
    return false;
}

static void report_collect_cascade(report_t *r)
{
    for (size_t i = 0; i < REPORT_MAX_CANDIDATES; i++)
        r->candidates[i].struct_size = sizeof r->candidates[i];
    size_t total = 0;
    if (report_check(r, &r->detect_query,
                     accel_detect(r->candidates, REPORT_MAX_CANDIDATES, &total))) {
        r->candidate_total = total;
        r->candidate_count = total < REPORT_MAX_CANDIDATES ? total : REPORT_MAX_CANDIDATES;
    }
}

static void report_collect_devices(report_t *r)
{
    if (!report_check(r, &r->device_count_query, accel_device_count(r->acc, &r->device_count)) ||
        r->device_count <= 0)
        return;
    r->devices = calloc((size_t)r->device_count, sizeof *r->devices);
    if (!r->devices) {
        r->device_count = 0;
        return;
    }
    for (int i = 0; i < r->device_count; i++) {
        report_device_t *d = &r->devices[i];
        d->index = i;
        report_check(r, &d->device_name_query,
                     accel_device_name(r->acc, i, d->device_name, sizeof d->device_name));
        d->properties.struct_size = sizeof d->properties;
        report_check(r, &d->properties_query, accel_device_properties(r->acc, i, &d->properties));
        report_check(r, &d->available_memory_query,
                     accel_available_memory(r->acc, i, &d->available_memory));
    }
}

static void report_collect_memory(report_t *r)
{
    /* A backend named without a device has no current device: "n/a". */
    if (r->device_count_query.status == ACCEL_OK && r->device_count == 0) {
        report_check(r, &r->current_device_query, ACCEL_ERROR_UNSUPPORTED);
        return;
    }
    if (!report_check(r, &r->current_device_query,
                      accel_current_device(r->acc, &r->current_device)))
        return;
    report_check(r, &r->memory_allocated_query,
                 accel_memory_allocated(r->acc, r->current_device, &r->memory_allocated));
    report_check(r, &r->memory_reserved_query,
                 accel_memory_reserved(r->acc, r->current_device, &r->memory_reserved));
}

static void report_collect_identity(report_t *r)
{
    size_t total = 0;
    if (report_check(r, &r->dtypes_query,
                     accel_supported_dtypes(r->acc, r->dtypes, ACCEL_DTYPE_COUNT_, &total)))
        r->dtype_count = total < ACCEL_DTYPE_COUNT_ ? total : ACCEL_DTYPE_COUNT_;
    for (int f = 0; f < ACCEL_FLAG_COUNT_; f++)
        report_check(r, &r->flag_queries[f],
                     accel_query_flag(r->acc, (accel_flag_t)f, &r->flags[f]));
    report_check(r, &r->communication_backend_query,
                 accel_communication_backend_name(r->acc, &r->communication_backend));
    report_check(r, &r->communication_backend_version_query,
                 accel_communication_backend_version(r->acc, r->communication_backend_version,
                                                     sizeof r->communication_backend_version));
    r->comm_engine.struct_size = sizeof r->comm_engine;
    report_check(r, &r->comm_engine_query, accel_comm_engine_info(r->acc, &r->comm_engine));
    report_check(r, &r->compile_backend_query,
                 accel_get_compile_backend(r->acc, &r->compile_backend));
    report_check(r, &r->visible_devices_envs_query,
                 accel_visible_devices_envs(r->acc, &r->visible_devices_envs,
                                            &r->visible_devices_env_count));
    report_check(r, &r->export_prefixes_query,
                 accel_export_envs(r->acc, &r->export_prefixes, &r->export_prefix_count));
}

static void report_collect_ops(report_t *r)
{
    size_t count = 0;
    if (!report_check(r, &r->op_count_query, accel_op_builder_count(r->acc, &count)) || count == 0)
        return;
    r->ops = calloc(count, sizeof *r->ops);
    if (!r->ops)
        return;
    r->op_count = count;
    for (size_t i = 0; i < count; i++) {
        report_op_t *op = &r->ops[i];
        accel_op_builder_t *builder = NULL;
        if (!report_check(r, &op->query, accel_op_builder_at(r->acc, i, &builder)))
            continue;
        op->class_name = accel_op_builder_class_name(builder);
        op->op_name = accel_op_builder_op_name(builder);
        if (!report_check(r, &op->query, accel_op_builder_is_installed(builder, &op->installed)) ||
            !report_check(r, &op->query,
                          accel_op_builder_is_compatible(builder, &op->compatible, op->reason,
                                                         sizeof op->reason)))
            continue;
        if (accel_op_builder_implementation(builder, op->implementation,
                                            sizeof op->implementation) != ACCEL_OK)
            op->implementation[0] = '\0';
    }
}

static void report_collect_shm(report_t *r)
{
    struct statvfs fs;
    if (statvfs("/dev/shm", &fs) != 0)
        return;
    r->shm_known = true;
    r->shm_bytes = (uint64_t)fs.f_frsize * (uint64_t)fs.f_blocks;
    r->shm_too_small = r->shm_bytes < REPORT_SHM_MIN_BYTES;
}

void report_collect(report_t *r, const char *backend)
{
    memset(r, 0, sizeof *r);
    r->version = accel_version();
    r->supported_names = accel_supported_names();
    r->accel_accelerator_env = getenv("ACCEL_ACCELERATOR");
    r->ds_accelerator_env = getenv("DS_ACCELERATOR");
    report_collect_shm(r);
    report_collect_cascade(r);

    accel_t *acc = NULL;
    accel_status_t status = backend ? accel_open(backend, &acc) : accel_get(&acc);
    r->get_query.status = status;
    if (status != ACCEL_OK) {
        snprintf(r->get_query.error, sizeof r->get_query.error, "%s", accel_last_error());
        return;
    }
    r->acc = acc;
    r->acc_owned = backend != NULL;
    r->name = accel_name(acc);
    r->selection_method = accel_selection_method(acc);
    report_collect_devices(r);
    report_collect_memory(r);
    report_collect_identity(r);
    report_collect_ops(r);
}

void report_release(report_t *r)
{
    free(r->devices);
    free(r->ops);
    r->devices = NULL;
    r->ops = NULL;
    if (r->acc)
        accel_cli_close(r->acc, r->acc_owned);
    r->acc = NULL;
}

const char *report_candidate_reason(const report_t *r, const accel_candidate_t *c, char *buf,
                                    size_t cap)
{
    bool selected = r->name && strcmp(r->name, c->name) == 0;
    if (c->chosen && selected)
        snprintf(buf, cap, "chosen%s%s", c->reason[0] ? ": " : "", c->reason);
    else if (c->chosen)
        snprintf(buf, cap, "auto detect would choose this (overridden)%s%s",
                 c->reason[0] ? ": " : "", c->reason);
    else if (c->reason[0])
        snprintf(buf, cap, "%s%s", selected ? "selected by override; " : "", c->reason);
    else if (!c->built)
        snprintf(buf, cap, "not built into this library");
    else if (c->available && c->device_count >= 0)
        snprintf(buf, cap, "available (%d device%s)%s", c->device_count,
                 c->device_count == 1 ? "" : "s", selected ? ", selected by override" : "");
    else
        snprintf(buf, cap, "%s", c->available ? "available" : "not available");
    return buf;
}
