/* hlml_sim.c: a simulated libhlml.so, the Habana management library the hpu
 * backend counts Gaudis with, written from the habana-pyhlml wheel's
 * ctypes bindings (names, argument types, HLML_RETURN values). It shows
 * ACCEL_SIM_DEVICES devices (default 2) with module ids 0..n-1, or the ids
 * listed in ACCEL_SIM_HLML_MODULES ("3,1"); every other call needs
 * hlml_init first (HLML_ERROR_UNINITIALIZED). With the shared fault
 * injection (tests/sim/common). Thread-safe: one mutex. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_fault.h"

enum {
    HLML_SUCCESS = 0,
    HLML_ERROR_UNINITIALIZED = 1,
    HLML_ERROR_INVALID_ARGUMENT = 2,
    HLML_ERROR_NOT_FOUND = 6,
    HLML_ERROR_INSUFFICIENT_SIZE = 7,
};

#define SIM_MAX 8
#define SIM_ENTER(name)                                                                            \
    do {                                                                                           \
        int sim_injected_ = sim_fault_hit(name);                                                   \
        if (sim_injected_ != 0)                                                                    \
            return sim_injected_;                                                                  \
    } while (0)

/* The exports, as pyhlml calls them (hlml_return_t is an int enum). */
SIM_EXPORT int hlml_init(void);
SIM_EXPORT int hlml_init_with_flags(unsigned int flags);
SIM_EXPORT int hlml_shutdown(void);
SIM_EXPORT int hlml_device_get_count(unsigned int *device_count);
SIM_EXPORT int hlml_device_get_handle_by_index(unsigned int index, void **device);
SIM_EXPORT int hlml_device_get_name(void *device, char *name, unsigned int length);
SIM_EXPORT int hlml_device_get_module_id(void *device, unsigned int *module_id);

typedef struct sim_hlml_device {
    unsigned index;
} sim_hlml_device_t;

static pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned sim_inits;
static sim_hlml_device_t sim_devices[SIM_MAX];

static bool sim_ready(void)
{
    bool ready;
    pthread_mutex_lock(&sim_lock);
    ready = sim_inits > 0;
    pthread_mutex_unlock(&sim_lock);
    return ready;
}

static unsigned sim_count(void)
{
    return (unsigned)sim_fault_device_count(2, SIM_MAX);
}

SIM_EXPORT int hlml_init(void)
{
    SIM_ENTER("hlml_init");
    pthread_mutex_lock(&sim_lock);
    sim_inits++;
    pthread_mutex_unlock(&sim_lock);
    return HLML_SUCCESS;
}

SIM_EXPORT int hlml_init_with_flags(unsigned int flags)
{
    SIM_ENTER("hlml_init_with_flags");
    if (flags != 0)
        return HLML_ERROR_INVALID_ARGUMENT;
    return hlml_init();
}

SIM_EXPORT int hlml_shutdown(void)
{
    SIM_ENTER("hlml_shutdown");
    pthread_mutex_lock(&sim_lock);
    if (sim_inits > 0)
        sim_inits--;
    pthread_mutex_unlock(&sim_lock);
    return HLML_SUCCESS;
}

SIM_EXPORT int hlml_device_get_count(unsigned int *device_count)
{
    SIM_ENTER("hlml_device_get_count");
    if (!sim_ready())
        return HLML_ERROR_UNINITIALIZED;
    if (device_count == NULL)
        return HLML_ERROR_INVALID_ARGUMENT;
    *device_count = sim_count();
    return HLML_SUCCESS;
}

SIM_EXPORT int hlml_device_get_handle_by_index(unsigned int index, void **device)
{
    SIM_ENTER("hlml_device_get_handle_by_index");
    if (!sim_ready())
        return HLML_ERROR_UNINITIALIZED;
    if (device == NULL)
        return HLML_ERROR_INVALID_ARGUMENT;
    if (index >= sim_count())
        return HLML_ERROR_NOT_FOUND;
    sim_devices[index].index = index;
    *device = &sim_devices[index];
    return HLML_SUCCESS;
}

SIM_EXPORT int hlml_device_get_name(void *device, char *name, unsigned int length)
{
    SIM_ENTER("hlml_device_get_name");
    if (!sim_ready())
        return HLML_ERROR_UNINITIALIZED;
    if (device == NULL || name == NULL)
        return HLML_ERROR_INVALID_ARGUMENT;
    if ((unsigned)snprintf(name, length, "HL-225 (simulated)") >= length)
        return HLML_ERROR_INSUFFICIENT_SIZE;
    return HLML_SUCCESS;
}

SIM_EXPORT int hlml_device_get_module_id(void *device, unsigned int *module_id)
{
    const sim_hlml_device_t *d = device;
    const char *list = getenv("ACCEL_SIM_HLML_MODULES");
    SIM_ENTER("hlml_device_get_module_id");
    if (!sim_ready())
        return HLML_ERROR_UNINITIALIZED;
    if (d == NULL || module_id == NULL)
        return HLML_ERROR_INVALID_ARGUMENT;
    *module_id = d->index;
    for (unsigned i = 0; list != NULL && *list != '\0'; i++) {
        char *end;
        unsigned long id = strtoul(list, &end, 10);
        if (end == list)
            break;
        if (i == d->index) {
            *module_id = (unsigned)id;
            break;
        }
        list = *end == ',' ? end + 1 : end;
    }
    return HLML_SUCCESS;
}
