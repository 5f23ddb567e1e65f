/* sim_thread.c: a sim's per-thread device and last error (sim_thread.h). */
#include "sim_thread.h"

#include <stdbool.h>
#include <stdio.h>

static _Thread_local int sim_device = -1;
static _Thread_local int sim_code;
static _Thread_local bool sim_has_message;
static _Thread_local char sim_message[512];

int sim_thread_device(int unset)
{
    return sim_device >= 0 ? sim_device : unset;
}

void sim_thread_set_device(int device)
{
    sim_device = device;
}

int sim_thread_verror(int code, const char *fmt, va_list args)
{
    vsnprintf(sim_message, sizeof sim_message, fmt, args);
    sim_has_message = true;
    sim_code = code;
    return code;
}

int sim_thread_error(int code, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    code = sim_thread_verror(code, fmt, args);
    va_end(args);
    return code;
}

int sim_thread_last_code(int take)
{
    int code = sim_code;
    if (take)
        sim_code = 0;
    return code;
}

const char *sim_thread_last_message(int take)
{
    bool has = sim_has_message;
    if (take)
        sim_has_message = false;
    return has ? sim_message : NULL;
}
