/* report.h: the facts `accel report` shows, gathered once (report_collect.c)
 * and then printed either as ds_report-style text or as one JSON object
 * (report_print.h), so both forms always carry the same content. The bottom
 * of the report: the printers and the command (report.c) include it, it
 * includes neither. */
#ifndef ACCEL_TOOLS_REPORT_H
#define ACCEL_TOOLS_REPORT_H

#include <accel/accel_comm.h>

#include "cli.h"

#define REPORT_MAX_CANDIDATES 64

/* The outcome of one query: ACCEL_OK, ACCEL_ERROR_UNSUPPORTED (shown as
 * "n/a" / null) or a failure whose sentence is kept. */
typedef struct report_query {
    accel_status_t status;
    char error[512];
} report_query_t;

typedef struct report_device {
    int index;
    char device_name[64];
    report_query_t device_name_query;
    accel_device_properties_t properties;
    report_query_t properties_query;
    uint64_t available_memory;
    report_query_t available_memory_query;
} report_device_t;

typedef struct report_op {
    const char *class_name;
    const char *op_name;
    bool installed; /* prebuilt in the library (ds_report's "installed") */
    bool compatible;
    char reason[256];
    char implementation[128]; /* what it runs ("avx2, 8 threads"), "" if unknown */
    report_query_t query;
} report_op_t;

typedef struct report {
    const char *version;
    const char *supported_names;
    const char *accel_accelerator_env; /* ACCEL_ACCELERATOR, NULL if unset */
    const char *ds_accelerator_env;    /* DS_ACCELERATOR, NULL if unset */

    accel_candidate_t candidates[REPORT_MAX_CANDIDATES];
    size_t candidate_count; /* entries filled (the total may be larger) */
    size_t candidate_total;
    report_query_t detect_query;

    accel_t *acc;   /* NULL when selection failed: only the above is valid */
    bool acc_owned; /* opened by name (--backend): closed by report_release */
    report_query_t get_query;
    const char *name;
    const char *selection_method;

    int device_count;
    report_query_t device_count_query;
    report_device_t *devices; /* device_count entries */
    int current_device;
    report_query_t current_device_query;

    uint64_t memory_allocated;
    report_query_t memory_allocated_query;
    uint64_t memory_reserved;
    report_query_t memory_reserved_query;

    accel_dtype_t dtypes[ACCEL_DTYPE_COUNT_];
    size_t dtype_count;
    report_query_t dtypes_query;

    bool flags[ACCEL_FLAG_COUNT_];
    report_query_t flag_queries[ACCEL_FLAG_COUNT_];

    const char *communication_backend;
    report_query_t communication_backend_query;
    char communication_backend_version[48]; /* "2.21.5" or "unknown" */
    report_query_t communication_backend_version_query;
    /* The collectives engine the communication backend maps to here and
     * whether its library loads (accel_comm_engine_info). */
    accel_comm_engine_info_t comm_engine;
    report_query_t comm_engine_query;
    const char *compile_backend;
    report_query_t compile_backend_query;

    const char *const *visible_devices_envs;
    size_t visible_devices_env_count;
    report_query_t visible_devices_envs_query;
    const char *const *export_prefixes;
    size_t export_prefix_count;
    report_query_t export_prefixes_query;

    report_op_t *ops; /* op_count entries */
    size_t op_count;
    report_query_t op_count_query;

    bool shm_known;
    uint64_t shm_bytes;
    bool shm_too_small; /* below 512 MiB, as ds_report warns */

    int failures; /* queries that failed with something other than UNSUPPORTED */
    char first_failure[512];
} report_t;

/* ds_report's threshold for the /dev/shm warning. */
#define REPORT_SHM_MIN_BYTES (512ull << 20)

/* Gather everything; selection failure leaves r->acc NULL. */
void report_collect(report_t *r, const char *backend);
/* Release what report_collect allocated (and the accelerator if opened). */
void report_release(report_t *r);

/* "[YES]"-style reason text for a candidate, shared by both printers. */
const char *report_candidate_reason(const report_t *r, const accel_candidate_t *c, char *buf,
                                    size_t cap);

#endif
