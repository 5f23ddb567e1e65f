/* sim_break.c: ACCEL_SIM_BREAK, the list of vendor rules a sim must break
 * (sim_break.h). The variable is copied once, under pthread_once, and never
 * changes after; queries only read the copy. */
#include "sim_break.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char sim_break_list[512];
static pthread_once_t sim_break_once = PTHREAD_ONCE_INIT;

static void sim_break_read(void)
{
    const char *text = getenv("ACCEL_SIM_BREAK");
    if (text == NULL || *text == '\0')
        return;
    if (strlen(text) >= sizeof sim_break_list) {
        fprintf(stderr, "sim: ACCEL_SIM_BREAK is longer than %zu characters; no rule broken\n",
                sizeof sim_break_list - 1);
        return;
    }
    memcpy(sim_break_list, text, strlen(text) + 1);
    fprintf(stderr, "sim: ACCEL_SIM_BREAK=%s: breaking these vendor rules on purpose\n", text);
}

bool sim_rule_broken(const char *id)
{
    size_t id_len = strlen(id);
    const char *p = sim_break_list;
    pthread_once(&sim_break_once, sim_break_read);
    while (*p != '\0') {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == id_len && memcmp(p, id, len) == 0)
            return true;
        if (end == NULL)
            break;
        p = end + 1;
    }
    return false;
}
