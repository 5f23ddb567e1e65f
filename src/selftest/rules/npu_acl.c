/* npu_acl.c: the npu probes' direct ACL access and helpers (npu_acl.h). */
#include "rules/npu_acl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accel/accel_backend_utils.h"
#include "check.h"
#include "rules/rule_library.h"

static probe_acl_t probe_acl;

static const accel_symbol_t probe_acl_symbols[] = {
#define PROBE_ACL_ENTRY(required, ret, name, params)                                               \
    ACCEL_SYMBOL_ENTRY(probe_acl, required, name, NULL),
    PROBE_ACL_FUNCTIONS(PROBE_ACL_ENTRY)
#undef PROBE_ACL_ENTRY
};

/* Where the npu backend looks (src/backends/npu/backend.c), so that the
 * probes talk to the runtime the backend uses. */
static const char *const probe_acl_homes[] = {"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", NULL};
static const char *const probe_acl_names[] = {"libascendcl.so", NULL};
static char probe_acl_path[512];

static accel_vendor_library_t probe_acl_library = {
    RULE_LIBRARY("npu", probe_acl_names, probe_acl_symbols,
                 "no Huawei Ascend runtime (libascendcl.so) found",
                 "the libascendcl.so that loaded"),
    .backend = "npu selftest",
    .home_vars = probe_acl_homes,
    .home_file = "lib64/libascendcl.so",
    .home_unset = "; ASCEND_HOME_PATH and ASCEND_TOOLKIT_HOME are unset",
    .path_from = "aclInit",
    .path = probe_acl_path,
    .path_cap = sizeof probe_acl_path,
};

const probe_acl_t *probe_acl_open(int device)
{
    probe_acl_error_t code;
    rule_library_require(&probe_acl_library, "the ACL runtime");
    code = probe_acl.aclInit(NULL);
    if (code != PROBE_ACL_SUCCESS && code != PROBE_ACL_ERROR_REPEAT_INITIALIZE)
        probe_acl_expect(&probe_acl, "aclInit(NULL)", code, PROBE_ACL_SUCCESS);
    if (device >= probe_acl_device_count(&probe_acl))
        conf_skip("the probe needs %d devices; ACL shows %d", device + 1,
                  probe_acl_device_count(&probe_acl));
    probe_acl_ok(&probe_acl, probe_acl.aclrtSetDevice(device));
    return &probe_acl;
}

int probe_acl_device_count(const probe_acl_t *acl)
{
    uint32_t count = 0;
    probe_acl_ok(acl, acl->aclrtGetDeviceCount(&count));
    return (int)count;
}

void probe_acl_expect_at(const char *file, int line, const probe_acl_t *acl, const char *what,
                         probe_acl_error_t got, probe_acl_error_t want)
{
    const char *detail;
    if (got == want)
        return;
    detail = got != PROBE_ACL_SUCCESS ? acl->aclGetRecentErrMsg() : NULL;
    check_fail_at(file, line, "%s returned aclError %d, expected %d%s%s", what, got, want,
                  detail != NULL && detail[0] != '\0' ? ": " : "", detail != NULL ? detail : "");
}

probe_acl_stream_t probe_acl_stream(const probe_acl_t *acl)
{
    probe_acl_stream_t stream = NULL;
    probe_acl_ok(acl, acl->aclrtCreateStream(&stream));
    assert_non_null(stream);
    return stream;
}

bool probe_wait_flag(atomic_bool *flag, int ms)
{
    struct timespec pause = {0, 1000000}; /* 1 ms */
    for (int waited = 0; waited < ms && !atomic_load(flag); waited++)
        nanosleep(&pause, NULL);
    return atomic_load(flag);
}

/* ---------------------------------------------------------------- report threads */

static void *probe_reporter_main(void *arg)
{
    probe_reporter_t *reporter = arg;
    atomic_store(&reporter->id, (uint64_t)pthread_self());
    if (reporter->set_device &&
        reporter->acl->aclrtSetDevice(reporter->device) != PROBE_ACL_SUCCESS) {
        atomic_store(&reporter->last_code, -1);
        return NULL;
    }
    while (!atomic_load(&reporter->stop)) {
        probe_acl_error_t code = reporter->acl->aclrtProcessReport(reporter->timeout_ms);
        atomic_store(&reporter->last_code, code);
        if (code == PROBE_ACL_SUCCESS) {
            atomic_fetch_add(&reporter->reports_run, 1);
        } else if (code != PROBE_ACL_ERROR_RT_REPORT_TIMEOUT) {
            /* not subscribed yet, or a refusal: do not spin */
            struct timespec pause = {0, 5000000};
            nanosleep(&pause, NULL);
        }
    }
    return NULL;
}

void probe_reporter_start(probe_reporter_t *reporter, const probe_acl_t *acl, int device)
{
    int error;
    reporter->acl = acl;
    reporter->device = device;
    if (reporter->timeout_ms == 0)
        reporter->timeout_ms = 20;
    atomic_store(&reporter->stop, false);
    atomic_store(&reporter->id, 0);
    atomic_store(&reporter->last_code, 0);
    atomic_store(&reporter->reports_run, 0);
    error = pthread_create(&reporter->thread, NULL, probe_reporter_main, reporter);
    if (error != 0)
        fail_msg("cannot start a report thread (error %d)", error);
    while (atomic_load(&reporter->id) == 0) {
        struct timespec pause = {0, 100000};
        nanosleep(&pause, NULL);
    }
}

void probe_reporter_stop(probe_reporter_t *reporter)
{
    atomic_store(&reporter->stop, true);
    pthread_join(reporter->thread, NULL);
}

/* ---------------------------------------------------------------- held streams */

static void probe_hold_task(void *arg)
{
    probe_hold_t *hold = arg;
    pthread_mutex_lock(&hold->lock);
    hold->entered = true;
    while (!hold->released)
        pthread_cond_wait(&hold->cond, &hold->lock);
    pthread_mutex_unlock(&hold->lock);
}

static bool probe_hold_entered(probe_hold_t *hold)
{
    bool entered;
    pthread_mutex_lock(&hold->lock);
    entered = hold->entered;
    pthread_mutex_unlock(&hold->lock);
    return entered;
}

void probe_hold_start(probe_hold_t *hold, const probe_acl_t *acl, probe_acl_stream_t stream,
                      int device)
{
    memset(hold, 0, sizeof *hold);
    hold->acl = acl;
    hold->stream = stream;
    pthread_mutex_init(&hold->lock, NULL);
    pthread_cond_init(&hold->cond, NULL);
    if (acl->aclrtLaunchHostFunc != NULL) {
        probe_acl_ok(acl, acl->aclrtLaunchHostFunc(stream, probe_hold_task, hold));
    } else {
        hold->via_callback = true;
        hold->reporter.set_device = true;
        probe_reporter_start(&hold->reporter, acl, device);
        probe_acl_ok(acl, acl->aclrtSubscribeReport(atomic_load(&hold->reporter.id), stream));
        probe_acl_ok(
            acl, acl->aclrtLaunchCallback(probe_hold_task, hold, PROBE_ACL_CALLBACK_BLOCK, stream));
    }
    /* The probe's own assumption, not its rule: a stream that never starts
     * the holding task would keep the probe waiting for ever. */
    for (int waited = 0; !probe_hold_entered(hold); waited++) {
        struct timespec pause = {0, 1000000};
        if (waited == 3000)
            fail_msg("the task holding the stream never ran within 3 s: the runtime does not "
                     "deliver %s (rules C1, C10)",
                     hold->via_callback ? "callbacks" : "host functions");
        nanosleep(&pause, NULL);
    }
}

void probe_hold_release(probe_hold_t *hold)
{
    pthread_mutex_lock(&hold->lock);
    hold->released = true;
    pthread_cond_broadcast(&hold->cond);
    pthread_mutex_unlock(&hold->lock);
}

void probe_hold_finish(probe_hold_t *hold)
{
    (void)hold->acl->aclrtSynchronizeStream(hold->stream);
    if (hold->via_callback) {
        (void)hold->acl->aclrtUnSubscribeReport(atomic_load(&hold->reporter.id), hold->stream);
        probe_reporter_stop(&hold->reporter);
    }
}
