/* log.c: the library's only way to print. ACCEL_LOG picks the level (default
 * warn); lines go to stderr as "accel <level>: <text>". The level is read once
 * (thread-safe via pthread_once); each line is written with one fprintf so
 * lines from several threads do not interleave. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "accel/accel_backend.h"
#include "env.h"

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static accel_log_level_t log_level = ACCEL_LOG_WARN;

static void log_read_level(void)
{
    const char *text = accel_env_get("ACCEL_LOG");
    accel_log_level_t level;
    if (text == NULL)
        return;
    if (accel_env_parse_log_level(text, &level))
        log_level = level;
    else
        fprintf(stderr,
                "accel warn: ACCEL_LOG=%s is not one of error|warn|info|debug; using warn\n", text);
}

bool accel_log_enabled(accel_log_level_t level)
{
    pthread_once(&log_once, log_read_level);
    return level <= log_level;
}

void accel_log(accel_log_level_t level, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    char line[1024];
    va_list args;
    if (!accel_log_enabled(level))
        return;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    fprintf(stderr, "accel %s: %s\n", names[level], line);
}
