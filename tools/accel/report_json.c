/* report_json.c: `accel report --json`, the same facts as the text report as
 * one JSON object. A value that cannot be read is null ("n/a": the backend
 * lacks it) or {"error": "..."} (the query failed). */
#include <stdlib.h>

#include "json.h"
#include "report_print.h"

/* Write null or an error object in place of a value; true if it did. */
static bool json_query_failed(json_writer_t *w, const report_query_t *q)
{
    if (q->status == ACCEL_OK)
        return false;
    if (q->status == ACCEL_ERROR_UNSUPPORTED) {
        json_null(w);
        return true;
    }
    json_object_begin(w);
    json_key(w, "status");
    json_string(w, accel_status_name(q->status));
    json_key(w, "error");
    json_string(w, q->error);
    json_object_end(w);
    return true;
}

static void json_optional_string(json_writer_t *w, const char *text)
{
    json_string(w, text && *text ? text : NULL);
}

static void json_optional_int(json_writer_t *w, int value)
{
    if (value < 0)
        json_null(w);
    else
        json_int(w, value);
}

static void json_string_list(json_writer_t *w, const char *const *items, size_t count)
{
    json_array_begin(w);
    for (size_t i = 0; i < count; i++)
        json_string(w, items[i]);
    json_array_end(w);
}

static void json_cascade(const report_t *r, json_writer_t *w)
{
    json_key(w, "cascade");
    if (json_query_failed(w, &r->detect_query))
        return;
    json_array_begin(w);
    for (size_t i = 0; i < r->candidate_count; i++) {
        const accel_candidate_t *c = &r->candidates[i];
        char summary[400];
        json_object_begin(w);
        json_key(w, "name");
        json_string(w, c->name);
        json_key(w, "built");
        json_bool(w, c->built);
        json_key(w, "available");
        json_bool(w, c->available);
        json_key(w, "chosen");
        json_bool(w, c->chosen);
        json_key(w, "device_count");
        json_optional_int(w, c->device_count);
        json_key(w, "reason");
        json_string(w, c->reason);
        json_key(w, "summary");
        json_string(w, report_candidate_reason(r, c, summary, sizeof summary));
        json_object_end(w);
    }
    json_array_end(w);
}

static void json_properties(const accel_device_properties_t *p, json_writer_t *w)
{
    json_object_begin(w);
    json_key(w, "name");
    json_optional_string(w, p->name);
    json_key(w, "vendor");
    json_optional_string(w, p->vendor);
    json_key(w, "total_memory");
    json_uint(w, p->total_memory);
    json_key(w, "compute_capability");
    if (p->compute_major >= 0) {
        char cc[32];
        snprintf(cc, sizeof cc, "%d.%d", p->compute_major,
                 p->compute_minor >= 0 ? p->compute_minor : 0);
        json_string(w, cc);
    } else {
        json_null(w);
    }
    json_key(w, "multiprocessor_count");
    json_optional_int(w, p->multiprocessor_count);
    json_key(w, "pci_bus_id");
    json_optional_string(w, p->pci_bus_id);
    json_key(w, "uuid");
    json_optional_string(w, p->uuid);
    json_key(w, "driver_version");
    json_optional_string(w, p->driver_version);
    json_object_end(w);
}

static void json_devices(const report_t *r, json_writer_t *w)
{
    json_key(w, "device_count");
    if (!json_query_failed(w, &r->device_count_query))
        json_int(w, r->device_count);
    json_key(w, "devices");
    json_array_begin(w);
    for (int i = 0; i < r->device_count && r->devices; i++) {
        const report_device_t *d = &r->devices[i];
        json_object_begin(w);
        json_key(w, "index");
        json_int(w, d->index);
        json_key(w, "device_name");
        if (!json_query_failed(w, &d->device_name_query))
            json_string(w, d->device_name);
        json_key(w, "properties");
        if (!json_query_failed(w, &d->properties_query))
            json_properties(&d->properties, w);
        json_key(w, "available_memory");
        if (!json_query_failed(w, &d->available_memory_query))
            json_uint(w, d->available_memory);
        json_object_end(w);
    }
    json_array_end(w);
}

static void json_memory(const report_t *r, json_writer_t *w)
{
    json_key(w, "memory");
    if (json_query_failed(w, &r->current_device_query))
        return;
    json_object_begin(w);
    json_key(w, "device");
    json_int(w, r->current_device);
    json_key(w, "allocated");
    if (!json_query_failed(w, &r->memory_allocated_query))
        json_uint(w, r->memory_allocated);
    json_key(w, "reserved");
    if (!json_query_failed(w, &r->memory_reserved_query))
        json_uint(w, r->memory_reserved);
    json_object_end(w);
}

static void json_capabilities(const report_t *r, json_writer_t *w)
{
    json_key(w, "dtypes");
    if (!json_query_failed(w, &r->dtypes_query)) {
        json_array_begin(w);
        for (size_t i = 0; i < r->dtype_count; i++)
            json_string(w, accel_dtype_name(r->dtypes[i]));
        json_array_end(w);
    }
    json_key(w, "flags");
    json_object_begin(w);
    for (int f = 0; f < ACCEL_FLAG_COUNT_; f++) {
        const char *name = accel_flag_name((accel_flag_t)f);
        char fallback[32];
        if (!name) {
            snprintf(fallback, sizeof fallback, "flag_%d", f);
            name = fallback;
        }
        json_key(w, name);
        if (!json_query_failed(w, &r->flag_queries[f]))
            json_bool(w, r->flags[f]);
    }
    json_object_end(w);
}

static void json_environment_names(const report_t *r, json_writer_t *w)
{
    json_key(w, "communication_backend");
    if (!json_query_failed(w, &r->communication_backend_query))
        json_string(w, r->communication_backend);
    json_key(w, "communication_backend_version");
    if (!json_query_failed(w, &r->communication_backend_version_query))
        json_string(w, r->communication_backend_version);
    json_key(w, "communication_engine");
    if (!json_query_failed(w, &r->comm_engine_query)) {
        json_object_begin(w);
        json_key(w, "engine");
        json_string(w, r->comm_engine.engine);
        json_key(w, "available");
        json_bool(w, r->comm_engine.available);
        json_key(w, "detail");
        json_string(w, r->comm_engine.detail);
        json_object_end(w);
    }
    json_key(w, "compile_backend");
    if (!json_query_failed(w, &r->compile_backend_query))
        json_string(w, r->compile_backend);
    json_key(w, "visible_devices_envs");
    if (!json_query_failed(w, &r->visible_devices_envs_query)) {
        json_object_begin(w); /* name -> current value (null when unset) */
        for (size_t i = 0; i < r->visible_devices_env_count; i++) {
            json_key(w, r->visible_devices_envs[i]);
            json_string(w, getenv(r->visible_devices_envs[i]));
        }
        json_object_end(w);
    }
    json_key(w, "export_prefixes");
    if (!json_query_failed(w, &r->export_prefixes_query))
        json_string_list(w, r->export_prefixes, r->export_prefix_count);
}

static void json_ops(const report_t *r, json_writer_t *w)
{
    json_key(w, "op_builders");
    if (json_query_failed(w, &r->op_count_query))
        return;
    json_array_begin(w);
    for (size_t i = 0; i < r->op_count; i++) {
        const report_op_t *op = &r->ops[i];
        json_object_begin(w);
        json_key(w, "class_name");
        json_string(w, op->class_name);
        json_key(w, "op_name");
        json_string(w, op->op_name);
        json_key(w, "installed");
        if (!json_query_failed(w, &op->query))
            json_bool(w, op->installed);
        json_key(w, "compatible");
        if (!json_query_failed(w, &op->query))
            json_bool(w, op->compatible);
        json_key(w, "implementation");
        json_optional_string(w, op->implementation[0] ? op->implementation : NULL);
        json_key(w, "reason");
        json_optional_string(w,
                             op->query.status == ACCEL_OK && !op->compatible ? op->reason : NULL);
        /* how a compatible builder runs, when it says (async_io's I/O path) */
        json_key(w, "note");
        json_optional_string(
            w, op->query.status == ACCEL_OK && op->compatible && op->reason[0] ? op->reason : NULL);
        json_object_end(w);
    }
    json_array_end(w);
}

static void json_shm(const report_t *r, json_writer_t *w)
{
    json_key(w, "environment");
    json_object_begin(w);
    json_key(w, "shm_path");
    json_string(w, "/dev/shm");
    json_key(w, "shm_size");
    if (r->shm_known)
        json_uint(w, r->shm_bytes);
    else
        json_null(w);
    json_key(w, "shm_too_small");
    json_bool(w, r->shm_known && r->shm_too_small);
    json_object_end(w);
}

static void json_selection(const report_t *r, json_writer_t *w)
{
    json_key(w, "version");
    json_string(w, r->version);
    json_key(w, "accelerator");
    if (r->acc) {
        json_object_begin(w);
        json_key(w, "name");
        json_string(w, r->name);
        json_key(w, "selection_method");
        json_string(w, r->selection_method);
        json_object_end(w);
    } else {
        json_null(w);
    }
    json_key(w, "error");
    if (r->acc)
        json_null(w);
    else
        json_string(w, r->get_query.error[0] ? r->get_query.error
                                             : accel_status_name(r->get_query.status));
    json_key(w, "ACCEL_ACCELERATOR");
    json_optional_string(w, r->accel_accelerator_env);
    json_key(w, "DS_ACCELERATOR");
    json_optional_string(w, r->ds_accelerator_env);
    json_key(w, "supported_names");
    json_string(w, r->supported_names);
}

void report_print_json(const report_t *r, FILE *out)
{
    json_writer_t w;
    json_init(&w, out);
    json_object_begin(&w);
    json_selection(r, &w);
    json_cascade(r, &w);
    if (r->acc) {
        json_devices(r, &w);
        json_memory(r, &w);
        json_capabilities(r, &w);
        json_environment_names(r, &w);
        json_ops(r, &w);
    }
    json_shm(r, &w);
    json_object_end(&w);
    json_finish(&w);
}
