/* selection.c: which backend a program gets. accel_get (process-wide, cached),
 * accel_set, accel_open/accel_close, accel_detect and the override + cascade
 * rules of docs/architecture.md, Selection behind them.
 * Threads: selection_lock serialises choosing and replacing the process-wide
 * accelerator; readers take the cached pointer with an acquire load.
 * Lifetime: a process-wide accelerator is never destroyed. One replaced by
 * accel_set is kept on a list (reachable, so leak checkers stay quiet) because
 * other threads may still hold its pointer. */
#include "selection.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "env.h"
#include "error.h"
#include "fork.h"
#include "plugins.h"
#include "registry.h"

#define SELECTION_OVERRIDE "override"
#define SELECTION_AUTO     "auto detect"
#define SELECTION_MODEL    "model specified"
#define SELECTION_EXPLICIT "explicit"

/* One cascade slot as examined by a walk. */
typedef struct cascade_slot {
    const char *name;
    const accel_backend_ops_t *ops; /* NULL: not built and not registered */
    bool probed;
    accel_probe_result_t probe;
    bool chosen;
    char reason[256];
} cascade_slot_t;

typedef struct cascade {
    cascade_slot_t *slots;
    size_t count;
    size_t chosen;         /* index of the winner, == count when none */
    bool auto_detect_only; /* accel_get's walk: probes may stop at cheap evidence */
} cascade_t;

typedef struct retired_accel {
    accel_t *acc;
    struct retired_accel *next;
} retired_accel_t;

static pthread_mutex_t selection_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(accel_t *) selection_current;
static retired_accel_t *selection_retired; /* guarded by selection_lock */
/* DeepSpeed's "Setting accelerator to CPU" warning is still to be printed:
 * cleared by the first auto-detect that reaches cpu (so once per process,
 * as DeepSpeed's cached get_accelerator() prints it) and by accel_detect,
 * whose caller receives every candidate's reason instead (`accel report`).
 * A forked child inherits the parent's value, as DeepSpeed's child inherits
 * its chosen accelerator. */
static atomic_bool selection_cpu_warning_due = true;

/* snprintf for reason texts, where cutting a long sentence short is fine. */
static void selection_format(char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void selection_format(char *out, size_t cap, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(out, cap, fmt, args);
    va_end(args);
}

/* ------------------------------------------------------------ probing */

/* Auto-detect uses a backend when its probe found the runtime and at least
 * one device. Naming one needs only the runtime: with 0 devices it opens,
 * and device work fails with a sentence (accel_check_has_devices), as
 * DeepSpeed's get_accelerator() accepts DS_ACCELERATOR=cuda in a container
 * without a GPU. */
static bool selection_probe_usable(const accel_probe_result_t *probe)
{
    return probe->available && probe->device_count > 0;
}

/* Auto-detect also skips backends that only serve when named. */
static bool selection_probe_auto(const accel_probe_result_t *probe)
{
    return selection_probe_usable(probe) && !probe->explicit_only;
}

static void selection_probe(const accel_backend_ops_t *ops, bool auto_detect_only,
                            accel_probe_result_t *out)
{
    *out = (accel_probe_result_t){
        .struct_size = sizeof *out, .device_count = -1, .auto_detect_only = auto_detect_only};
    ops->probe(out);
    out->reason[sizeof out->reason - 1] = '\0';
}

/* A name accel knows or has built: naming it never gets "unknown". */
static bool selection_is_builtin_name(const char *name)
{
    if (accel_registry_known(name) != NULL)
        return true;
    for (size_t i = 0; i < accel_builtin_backend_count; i++) {
        if (strcmp(accel_builtin_backends[i].name, name) == 0)
            return true;
    }
    return false;
}

/* "NPU" and "ACCEL_NPU_LIBRARY" style spellings of a backend name. */
static void selection_upper_name(const char *name, bool for_variable, char *out, size_t cap)
{
    size_t i = 0;
    for (; name[i] != '\0' && i + 1 < cap; i++) {
        char c = name[i];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        else if (for_variable && (c == '.' || c == '-'))
            c = '_';
        out[i] = c;
    }
    out[i] = '\0';
}

static accel_status_t selection_not_built(const char *name)
{
    char upper[48];
    const accel_known_backend_t *known = accel_registry_known(name);
    selection_upper_name(name, true, upper, sizeof upper);
    if (known != NULL && known->unavailable_here != NULL)
        return accel_error(ACCEL_ERROR_UNAVAILABLE, "%s backend: %s", name,
                           known->unavailable_here);
    return accel_error(ACCEL_ERROR_UNAVAILABLE,
                       "%s backend (which drives %s, %s) is not built into this accel (version "
                       "%s): it is not implemented in this version yet, or it was configured off "
                       "(-DACCEL_BACKEND_%s=OFF)",
                       name, known != NULL ? known->runtime_library : "its vendor runtime",
                       known != NULL ? known->vendor_stack : "its vendor stack", accel_version(),
                       upper);
}

/* The probe of `ops` said no: explain what is missing and how to point at it. */
static accel_status_t selection_unavailable(const accel_backend_ops_t *ops,
                                            const accel_probe_result_t *probe)
{
    char upper[48], variable[48];
    const char *library = ops->info->runtime_library;
    const char *stack = ops->info->vendor_stack;
    const char *reason = probe->reason[0] != '\0' ? probe->reason : "no reason given";
    selection_upper_name(ops->name, false, upper, sizeof upper);
    selection_upper_name(ops->name, true, variable, sizeof variable);
    return accel_error(ACCEL_ERROR_UNAVAILABLE,
                       "%s backend requires %s%s%s%s, which is not installed on this system: "
                       "%s; set ACCEL_%s_LIBRARY to point at it",
                       upper, library != NULL ? library : "its vendor runtime",
                       stack != NULL ? " (" : "", stack != NULL ? stack : "",
                       stack != NULL ? ")" : "", reason, variable);
}

/* Resolve a user-given name to a usable backend. `unknown` is the status for
 * a name nobody knows (INVALID_ARGUMENT for env overrides, NOT_FOUND for
 * accel_open) and `what` names where it came from. */
static accel_status_t selection_by_name(const char *name, accel_status_t unknown, const char *what,
                                        const accel_backend_ops_t **out)
{
    accel_probe_result_t probe;
    const accel_backend_ops_t *ops = accel_registry_find(name);
    if (ops == NULL && selection_is_builtin_name(name))
        return selection_not_built(name);
    if (ops == NULL && unknown == ACCEL_ERROR_NOT_FOUND)
        return accel_error(unknown, "no backend named \"%s\"; %s must be one of %s", name, what,
                           accel_supported_names());
    if (ops == NULL)
        return accel_error(unknown, "%s must be one of %s. Value \"%s\" is not supported", what,
                           accel_supported_names(), name);
    selection_probe(ops, false, &probe);
    if (!probe.available)
        return selection_unavailable(ops, &probe);
    if (probe.device_count == 0)
        accel_log(ACCEL_LOG_INFO, "%s has no devices (%s): only what needs no device will work",
                  ops->name, probe.reason[0] != '\0' ? probe.reason : "its probe counted 0");
    *out = ops;
    return ACCEL_OK;
}

/* ------------------------------------------------------------ the cascade */

/* A test's cascade order (accel_selection_set_cascade_order), NULL: the real one. */
static const char *const *_Atomic selection_test_order;

void accel_selection_set_cascade_order(const char *const *order)
{
    atomic_store(&selection_test_order, order);
}

static accel_status_t cascade_open(cascade_t *cascade)
{
    const char *const *order = atomic_load(&selection_test_order);
    size_t count = 0;
    if (order == NULL)
        order = accel_cascade_order;
    while (order[count] != NULL)
        count++;
    cascade->slots = calloc(count, sizeof *cascade->slots);
    if (cascade->slots == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory running the cascade");
    for (size_t i = 0; i < count; i++) {
        cascade->slots[i].name = order[i];
        cascade->slots[i].ops = accel_registry_find(order[i]);
    }
    cascade->count = count;
    cascade->chosen = count;
    return ACCEL_OK;
}

static void cascade_close(cascade_t *cascade)
{
    free(cascade->slots);
    cascade->slots = NULL;
}

/* Probe a slot once; later calls reuse the result. */
static void cascade_probe_slot(const cascade_t *cascade, cascade_slot_t *slot)
{
    if (slot->ops == NULL || slot->probed)
        return;
    selection_probe(slot->ops, cascade->auto_detect_only, &slot->probe);
    slot->probed = true;
}

static cascade_slot_t *cascade_find(cascade_t *cascade, const char *name)
{
    for (size_t i = 0; i < cascade->count; i++) {
        if (strcmp(cascade->slots[i].name, name) == 0)
            return &cascade->slots[i];
    }
    return NULL;
}

/* The "xpu only when no CUDA device" rule: true when xpu must be skipped.
 * Either way `note` says what the cuda probe found, as a fact about xpu's
 * turn; the caller shows it only when it explains the outcome (a skip, or
 * an xpu that is taken), never after xpu's own reason for being unusable. */
static bool cascade_cuda_blocks_xpu(cascade_t *cascade, char *note, size_t cap)
{
    cascade_slot_t *cuda = cascade_find(cascade, "cuda");
    if (cuda == NULL || cuda->ops == NULL) {
        selection_format(note, cap, "considered: cuda is not built, so no CUDA device comes first");
        return false;
    }
    cascade_probe_slot(cascade, cuda);
    if (selection_probe_usable(&cuda->probe)) {
        selection_format(note, cap, "%d CUDA device(s) present", cuda->probe.device_count);
        return true;
    }
    selection_format(note, cap, "considered: no CUDA device is present");
    return false;
}

/* Examine one slot: probe it and write its reason. True when it may win. */
static bool cascade_examine(cascade_t *cascade, cascade_slot_t *slot)
{
    char note[96] = "";
    const char *said;
    if (slot->ops == NULL) {
        const accel_known_backend_t *known = accel_registry_known(slot->name);
        if (known == NULL)
            selection_format(slot->reason, sizeof slot->reason,
                             "no plugin (ACCEL_PLUGIN_PATH) or registered backend is named %s",
                             slot->name);
        else
            selection_format(slot->reason, sizeof slot->reason, "%s",
                             known->unavailable_here != NULL ? known->unavailable_here
                                                             : "not built into this library");
        return false;
    }
    if (strcmp(slot->name, "xpu") == 0 && cascade_cuda_blocks_xpu(cascade, note, sizeof note)) {
        cascade_probe_slot(cascade, slot);
        selection_format(slot->reason, sizeof slot->reason,
                         "skipped: xpu is considered only when no CUDA device is present (%s)",
                         note);
        return false;
    }
    cascade_probe_slot(cascade, slot);
    said = slot->probe.reason[0] != '\0' ? slot->probe.reason : NULL;
    if (selection_probe_auto(&slot->probe))
        selection_format(slot->reason, sizeof slot->reason, "%d device(s)%s%s%s%s",
                         slot->probe.device_count, said ? ": " : "", said ? said : "",
                         note[0] ? "; " : "", note);
    else /* the CUDA note is no reason for xpu's own failure: left out */
        selection_format(slot->reason, sizeof slot->reason, "%s",
                         said ? said : (slot->probe.available ? "no device" : "unavailable"));
    return selection_probe_auto(&slot->probe);
}

/* Walk the cascade in order. With `examine_all` false the walk stops at the
 * winner (what accel_get needs); true probes every slot (accel_detect). */
static void cascade_walk(cascade_t *cascade, bool examine_all)
{
    for (size_t i = 0; i < cascade->count; i++) {
        cascade_slot_t *slot = &cascade->slots[i];
        bool usable = cascade_examine(cascade, slot);
        if (usable && cascade->chosen == cascade->count) {
            cascade->chosen = i;
            slot->chosen = true;
            if (!examine_all)
                return;
        } else if (usable) {
            char earlier[sizeof slot->reason];
            memcpy(earlier, slot->reason, sizeof earlier);
            selection_format(slot->reason, sizeof slot->reason,
                             "available (%s), but %s comes first", earlier,
                             cascade->slots[cascade->chosen].name);
        }
    }
}

/* No slot is usable: one sentence with every slot's reason. */
static accel_status_t cascade_nothing_found(const cascade_t *cascade)
{
    char summary[900] = "";
    size_t used = 0;
    for (size_t i = 0; i < cascade->count && used < sizeof summary; i++) {
        int n = snprintf(summary + used, sizeof summary - used, "%s%s: %s", i > 0 ? "; " : "",
                         cascade->slots[i].name, cascade->slots[i].reason);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return accel_error(ACCEL_ERROR_UNAVAILABLE, "no usable backend found (%s)", summary);
}

static accel_status_t selection_auto_detect(const accel_backend_ops_t **out)
{
    cascade_t cascade = {0};
    accel_status_t status = cascade_open(&cascade);
    if (status != ACCEL_OK)
        return status;
    /* Only the winner matters here (accel_detect asks every probe for the
     * full answer): backends may rule themselves out without loading. */
    cascade.auto_detect_only = true;
    cascade_walk(&cascade, false);
    if (cascade.chosen == cascade.count) {
        status = cascade_nothing_found(&cascade);
    } else {
        const cascade_slot_t *winner = &cascade.slots[cascade.chosen];
        if (strcmp(winner->name, "cpu") == 0 && atomic_exchange(&selection_cpu_warning_due, false))
            accel_log(ACCEL_LOG_WARN, "Setting accelerator to CPU. If you have GPU or other "
                                      "accelerator, we were unable to detect it.");
        *out = winner->ops;
    }
    cascade_close(&cascade);
    return status;
}

/* The override variable in force, if any. ACCEL_ACCELERATOR follows env.h's
 * rule (an empty value counts as unset, so "VAR=" can clear it in ctest and
 * launchers that cannot unset). DS_ACCELERATOR is DeepSpeed's and follows
 * DeepSpeed: set at all, even to "", it is the override, and "" is then
 * refused with DeepSpeed's message. */
static const char *selection_override_variable(const char **out_value)
{
    const char *value = accel_env_get("ACCEL_ACCELERATOR");
    if (value != NULL) {
        *out_value = value;
        return "ACCEL_ACCELERATOR";
    }
    value = getenv("DS_ACCELERATOR");
    if (value != NULL) {
        *out_value = value;
        return "DS_ACCELERATOR";
    }
    return NULL;
}

accel_status_t accel_selection_choose(const accel_backend_ops_t **out_ops, const char **out_method)
{
    const accel_backend_ops_t *ops = NULL;
    const char *value = NULL;
    const char *variable;
    const char *method;
    accel_status_t status;
    if (out_ops == NULL || out_method == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "accel_selection_choose: NULL output");
    variable = selection_override_variable(&value);
    if (variable != NULL) {
        status = selection_by_name(value, ACCEL_ERROR_INVALID_ARGUMENT, variable, &ops);
        method = SELECTION_OVERRIDE;
    } else {
        status = selection_auto_detect(&ops);
        method = SELECTION_AUTO;
    }
    if (status != ACCEL_OK)
        return status;
    *out_ops = ops;
    *out_method = method;
    return ACCEL_OK;
}

/* ------------------------------------------------------------ the process-wide accelerator */

/* Caller holds selection_lock. */
static accel_status_t selection_make_current_locked(accel_t **out)
{
    const accel_backend_ops_t *ops;
    const char *method;
    accel_t *acc = atomic_load_explicit(&selection_current, memory_order_relaxed);
    accel_status_t status;
    if (acc != NULL) {
        *out = acc; /* another thread chose while this one waited */
        return ACCEL_OK;
    }
    status = accel_selection_choose(&ops, &method);
    if (status != ACCEL_OK)
        return status;
    status = accel_instance_create(ops, method, &acc);
    if (status != ACCEL_OK)
        return status;
    acc->process_wide = true;
    atomic_store_explicit(&selection_current, acc, memory_order_release);
    accel_log(ACCEL_LOG_INFO, "Setting accelerator to %s (%s)", ops->name, method);
    *out = acc;
    return ACCEL_OK;
}

accel_status_t accel_get(accel_t **out)
{
    accel_t *acc;
    accel_status_t status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "accel_get: out is NULL");
    status = accel_plugins_refuse_reentry("accel_get");
    if (status != ACCEL_OK)
        return status;
    acc = atomic_load_explicit(&selection_current, memory_order_acquire);
    if (acc != NULL) {
        *out = acc;
        return ACCEL_OK;
    }
    /* Scan plugins before taking selection_lock: plugin code run by the scan
     * may call accel_set or accel_close, which take it. */
    accel_registry_load_plugins();
    /* A failure is not cached: the next call chooses again. */
    pthread_mutex_lock(&selection_lock);
    status = selection_make_current_locked(&acc);
    pthread_mutex_unlock(&selection_lock);
    if (status == ACCEL_OK)
        *out = acc;
    return status;
}

accel_status_t accel_set(accel_t *acc)
{
    accel_t *old;
    retired_accel_t *node = NULL;
    if (accel_check_handle(acc) != ACCEL_OK) {
        accel_error_prefix("accelerator is not a valid accel_t: ");
        return ACCEL_ERROR_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&selection_lock);
    old = atomic_load_explicit(&selection_current, memory_order_relaxed);
    if (old != NULL && old != acc) {
        node = malloc(sizeof *node);
        if (node == NULL) {
            pthread_mutex_unlock(&selection_lock);
            return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "accel_set: out of host memory");
        }
        *node = (retired_accel_t){.acc = old, .next = selection_retired};
        selection_retired = node;
    }
    acc->selection_method = SELECTION_MODEL;
    acc->process_wide = true;
    atomic_store_explicit(&selection_current, acc, memory_order_release);
    pthread_mutex_unlock(&selection_lock);
    accel_log(ACCEL_LOG_INFO, "Setting accelerator to %s (%s)", acc->ops->name, SELECTION_MODEL);
    return ACCEL_OK;
}

accel_status_t accel_open(const char *name, accel_t **out)
{
    const accel_backend_ops_t *ops = NULL;
    accel_status_t status;
    if (name == NULL || out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "accel_open: %s is NULL",
                           name == NULL ? "name" : "out");
    status = selection_by_name(name, ACCEL_ERROR_NOT_FOUND, "the name", &ops);
    if (status != ACCEL_OK)
        return status;
    return accel_instance_create(ops, SELECTION_EXPLICIT, out);
}

/* Refused while user streams, events or graphs of `acc` are alive: closing
 * would free them under their owners (and a worker may still be running a
 * stream's work), so the caller destroys them first. */
static accel_status_t selection_check_no_live_handles(accel_t *acc)
{
    static const char *const names[ACCEL_HANDLE_KINDS] = {"stream", "event", "graph"};
    char alive[128] = "";
    size_t used = 0;
    for (int kind = 0; kind < ACCEL_HANDLE_KINDS; kind++) {
        size_t count = accel_handles_live(&acc->handles, (accel_handle_kind_t)kind);
        if (count > 0 && used < sizeof alive)
            used += (size_t)snprintf(alive + used, sizeof alive - used, "%s%zu %s(s)",
                                     used > 0 ? ", " : "", count, names[kind]);
    }
    if (used == 0)
        return ACCEL_OK;
    return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                       "accel_close: %s still has %s alive; destroy them first", acc->ops->name,
                       alive);
}

accel_status_t accel_close(accel_t *acc)
{
    bool process_wide;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    status = selection_check_no_live_handles(acc);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&selection_lock);
    process_wide = acc->process_wide;
    pthread_mutex_unlock(&selection_lock);
    if (process_wide)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "accel_close: %s is the process-wide accelerator (from accel_get or "
                           "accel_set); the library owns it and it cannot be closed",
                           acc->ops->name);
    accel_instance_destroy(acc);
    return ACCEL_OK;
}

const char *accel_selection_method(const accel_t *acc)
{
    if (accel_check_handle(acc) != ACCEL_OK)
        return NULL;
    return acc->selection_method;
}

/* ------------------------------------------------------------ accel_detect */

static void detect_fill(const cascade_slot_t *slot, accel_candidate_t *out)
{
    selection_format(out->name, sizeof out->name, "%s", slot->name);
    out->built = slot->ops != NULL;
    out->available = slot->probed && selection_probe_auto(&slot->probe);
    out->chosen = slot->chosen;
    out->device_count = slot->probed ? slot->probe.device_count : -1;
    selection_format(out->reason, sizeof out->reason, "%s", slot->reason);
}

/* Entries are laid out with the caller's struct_size as the stride, so a
 * caller built against a longer accel_candidate_t still gets every entry. */
static accel_status_t detect_check_entries(accel_candidate_t *candidates, size_t n)
{
    size_t stride = n > 0 ? candidates[0].struct_size : 0;
    for (size_t i = 0; i < n; i++) {
        const accel_candidate_t *entry =
            (const accel_candidate_t *)((const char *)candidates + i * stride);
        if (entry->struct_size < sizeof *entry || entry->struct_size != stride)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "accel_detect: candidates[%zu].struct_size is %zu; set every "
                               "entry to sizeof(accel_candidate_t) = %zu (ACCEL_STRUCT_INIT)",
                               i, entry->struct_size, sizeof *entry);
    }
    return ACCEL_OK;
}

accel_status_t accel_detect(accel_candidate_t *candidates, size_t cap, size_t *out_count)
{
    cascade_t cascade = {0};
    size_t n;
    accel_status_t status;
    if (out_count == NULL || (candidates == NULL && cap > 0))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "accel_detect: %s is NULL",
                           out_count == NULL ? "out_count" : "candidates");
    status = cascade_open(&cascade);
    if (status != ACCEL_OK)
        return status;
    atomic_store(&selection_cpu_warning_due, false); /* the caller gets the reasons */
    n = cap < cascade.count ? cap : cascade.count;
    status = detect_check_entries(candidates, n);
    if (status == ACCEL_OK) {
        size_t stride = n > 0 ? candidates[0].struct_size : 0;
        cascade_walk(&cascade, true);
        for (size_t i = 0; i < n; i++)
            detect_fill(&cascade.slots[i], (accel_candidate_t *)((char *)candidates + i * stride));
        *out_count = cascade.count;
    }
    cascade_close(&cascade);
    return status;
}

/* ------------------------------------------------------------ DeepSpeed's list */

/* A name of DeepSpeed's SUPPORTED_ACCELERATOR_LIST. "xpu.external" counts:
 * DeepSpeed's external XPU accelerator answers device_name() with "xpu". */
static bool selection_is_deepspeed_name(const char *name)
{
    const accel_known_backend_t *known;
    if (strcmp(name, "xpu.external") == 0)
        name = "xpu";
    known = accel_registry_known(name);
    return known != NULL && known->deepspeed;
}

accel_status_t accel_is_current_accelerator_supported(bool *out)
{
    accel_t *acc = NULL;
    accel_status_t status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "accel_is_current_accelerator_supported: out is NULL");
    status = accel_get(&acc);
    if (status != ACCEL_OK)
        return status;
    *out = selection_is_deepspeed_name(acc->ops->name);
    return ACCEL_OK;
}

void accel_selection_fork_lock(void)
{
    pthread_mutex_lock(&selection_lock);
}

void accel_selection_fork_unlock(void)
{
    pthread_mutex_unlock(&selection_lock);
}
