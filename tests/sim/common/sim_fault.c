/* sim_fault.c: the fault-injection state of one simulated runtime (see
 * sim_fault.h). One instance per sim library (it is linked statically into
 * each), guarded by one mutex: sims are for tests, so simplicity beats
 * speed. Call counts live in a fixed table of function names. */
#include "sim_fault.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#define SIM_MAX_FUNCTIONS 256
#define SIM_MAX_RULES     32

typedef struct sim_rule {
    char function[96];
    unsigned long from; /* the call number (1-based, since the rule was set) */
    bool every_after;   /* N+ or * */
    int code;
} sim_rule_t;

typedef struct sim_counter {
    char name[96];
    unsigned long total;       /* since load */
    unsigned long since_rules; /* since the rules were last set */
} sim_counter_t;

static pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
static bool sim_loaded;
static sim_rule_t sim_rules[SIM_MAX_RULES];
static int sim_rule_count;
static sim_counter_t sim_counters[SIM_MAX_FUNCTIONS];
static int sim_counter_count;
static bool sim_log;

/* Parse `spec` into `rules`; returns the count or -1. */
static int sim_parse(const char *spec, sim_rule_t *rules)
{
    int count = 0;
    const char *p = spec;
    while (p != NULL && *p != '\0') {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        char item[160], *colon1, *colon2, *tail;
        sim_rule_t rule = {0};
        long code;
        if (len == 0 || len >= sizeof item || count == SIM_MAX_RULES)
            return -1;
        memcpy(item, p, len);
        item[len] = '\0';
        colon1 = strchr(item, ':');
        colon2 = colon1 != NULL ? strchr(colon1 + 1, ':') : NULL;
        if (colon1 == NULL || colon2 == NULL || colon1 == item ||
            (size_t)(colon1 - item) >= sizeof rule.function)
            return -1;
        *colon1 = *colon2 = '\0';
        memcpy(rule.function, item, (size_t)(colon1 - item) + 1);
        if (strcmp(colon1 + 1, "*") == 0) {
            rule.from = 1;
            rule.every_after = true;
        } else {
            errno = 0;
            rule.from = strtoul(colon1 + 1, &tail, 10);
            if (errno != 0 || tail == colon1 + 1 || rule.from == 0)
                return -1;
            if (*tail == '+') {
                rule.every_after = true;
                tail++;
            }
            if (*tail != '\0')
                return -1;
        }
        errno = 0;
        code = strtol(colon2 + 1, &tail, 0);
        if (errno != 0 || tail == colon2 + 1 || *tail != '\0' || code == 0)
            return -1;
        rule.code = (int)code;
        rules[count++] = rule;
        p = end != NULL ? end + 1 : NULL;
    }
    return count;
}

/* Under sim_lock. */
static void sim_load_env(void)
{
    const char *spec, *log;
    if (sim_loaded)
        return;
    sim_loaded = true;
    log = getenv("ACCEL_SIM_FAULT_LOG");
    sim_log = log != NULL && strcmp(log, "1") == 0;
    spec = getenv("ACCEL_SIM_FAIL");
    if (spec != NULL && *spec != '\0') {
        int count = sim_parse(spec, sim_rules);
        if (count < 0) {
            fprintf(stderr,
                    "sim: ACCEL_SIM_FAIL=\"%s\" is malformed (want name:N:code, "
                    "name:N+:code or name:*:code, comma-separated); no fault set\n",
                    spec);
            count = 0;
        }
        sim_rule_count = count;
    }
}

/* Under sim_lock. */
static sim_counter_t *sim_counter(const char *function)
{
    for (int i = 0; i < sim_counter_count; i++)
        if (strcmp(sim_counters[i].name, function) == 0)
            return &sim_counters[i];
    if (sim_counter_count == SIM_MAX_FUNCTIONS || strlen(function) >= sizeof sim_counters[0].name)
        return NULL;
    snprintf(sim_counters[sim_counter_count].name, sizeof sim_counters[0].name, "%s", function);
    return &sim_counters[sim_counter_count++];
}

int sim_fault_hit(const char *function)
{
    int code = 0;
    sim_counter_t *counter;
    pthread_mutex_lock(&sim_lock);
    sim_load_env();
    counter = sim_counter(function);
    if (counter != NULL) {
        unsigned long n = ++counter->since_rules;
        counter->total++;
        for (int i = 0; i < sim_rule_count && code == 0; i++) {
            const sim_rule_t *rule = &sim_rules[i];
            if (strcmp(rule->function, function) == 0 &&
                (n == rule->from || (rule->every_after && n >= rule->from)))
                code = rule->code;
        }
    }
    pthread_mutex_unlock(&sim_lock);
    if (code != 0 && sim_log)
        fprintf(stderr, "sim: injected fault: %s returns %d\n", function, code);
    return code;
}

bool sim_fault_alloc_refused(size_t size)
{
    size_t limit = sim_fault_env_size("ACCEL_SIM_FAIL_ALLOC_ABOVE", 0);
    return limit != 0 && size > limit;
}

int sim_fault_device_count(int fallback, int max)
{
    const char *text = getenv("ACCEL_SIM_DEVICES");
    char *end;
    long value;
    if (text == NULL || *text == '\0')
        return fallback;
    errno = 0;
    value = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < 0 || value > max) {
        fprintf(stderr, "sim: ACCEL_SIM_DEVICES=\"%s\" is not a count in [0, %d]; using %d\n", text,
                max, fallback);
        return fallback;
    }
    return (int)value;
}

size_t sim_fault_env_size(const char *name, size_t fallback)
{
    const char *text = getenv(name);
    char *end;
    unsigned long long value;
    if (text == NULL || *text == '\0')
        return fallback;
    errno = 0;
    value = strtoull(text, &end, 10);
    if (errno != 0 || end == text)
        return fallback;
    switch (*end) {
    case 'K':
        value <<= 10;
        end++;
        break;
    case 'M':
        value <<= 20;
        end++;
        break;
    case 'G':
        value <<= 30;
        end++;
        break;
    default: break;
    }
    return *end == '\0' ? (size_t)value : fallback;
}

int accel_sim_fault_set(const char *spec)
{
    sim_rule_t rules[SIM_MAX_RULES];
    int count = spec != NULL ? sim_parse(spec, rules) : 0;
    if (count < 0)
        return -1;
    pthread_mutex_lock(&sim_lock);
    sim_load_env(); /* ACCEL_SIM_FAULT_LOG; the rules below replace ACCEL_SIM_FAIL's */
    memcpy(sim_rules, rules, sizeof rules[0] * (size_t)count);
    sim_rule_count = count;
    for (int i = 0; i < sim_counter_count; i++)
        sim_counters[i].since_rules = 0;
    pthread_mutex_unlock(&sim_lock);
    return 0;
}

unsigned long accel_sim_calls(const char *function)
{
    unsigned long total = 0;
    pthread_mutex_lock(&sim_lock);
    for (int i = 0; i < sim_counter_count; i++)
        if (strcmp(sim_counters[i].name, function) == 0)
            total = sim_counters[i].total;
    pthread_mutex_unlock(&sim_lock);
    return total;
}

/* ---------------------------------------------------------------- shared helpers */

int sim_visible_devices(const char *variable, int physical, bool ascending)
{
    const char *p = getenv(variable);
    bool seen[256] = {false};
    long last = -1;
    int shown = 0;
    if (p == NULL)
        return physical;
    while (*p >= '0' && *p <= '9') {
        char *end;
        long id = strtol(p, &end, 10);
        if (id >= physical || id >= 256 || seen[id] || (ascending && id <= last))
            break;
        seen[id] = true;
        last = id;
        shown++;
        if (*end != ',')
            break;
        p = end + 1;
    }
    return shown;
}

static long sim_delay_us;
static pthread_once_t sim_delay_once = PTHREAD_ONCE_INIT;

static void sim_delay_read(void)
{
    const char *text = getenv("ACCEL_SIM_STREAM_DELAY_US");
    long value = text != NULL ? strtol(text, NULL, 10) : 0;
    sim_delay_us = value > 0 && value <= 1000000 ? value : 0;
}

void sim_task_delay(void)
{
    pthread_once(&sim_delay_once, sim_delay_read);
    if (sim_delay_us > 0) {
        struct timespec ts = {sim_delay_us / 1000000, (sim_delay_us % 1000000) * 1000};
        nanosleep(&ts, NULL);
    }
}

uint64_t sim_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
