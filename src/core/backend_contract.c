/* backend_contract.c: the backend table's frozen layout and the rules a
 * table must keep before core calls it: required slots filled, optional
 * groups filled all or not at all, rng_fill or the groups core's fallback
 * fill needs, a fused_optim table that is complete.
 * The layout asserts fail the build if a slot moves; the checks run when a
 * table is registered, loaded from a plugin or opened as a builtin.
 * Stateless; safe from any thread. */
#include "backend_contract.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

/* Every slot of accel_backend_ops_t in table order, with the group it
 * belongs to. Adding a slot appends one line here (and to the struct). */
#define CONTRACT_SLOTS(X)                                                                          \
    X(probe, REQUIRED)                                                                             \
    X(create, REQUIRED)                                                                            \
    X(destroy, REQUIRED)                                                                           \
    X(init, REQUIRED)                                                                              \
    X(device_count, REQUIRED)                                                                      \
    X(device_properties, OPTIONAL)                                                                 \
    X(set_device, OPTIONAL)                                                                        \
    X(synchronize, REQUIRED)                                                                       \
    X(memory_info, OPTIONAL)                                                                       \
    X(query_flag, OPTIONAL)                                                                        \
    X(supported_dtypes, REQUIRED)                                                                  \
    X(mem_alloc, REQUIRED)                                                                         \
    X(mem_free, REQUIRED)                                                                          \
    X(memcpy_async, REQUIRED)                                                                      \
    X(memset_async, REQUIRED)                                                                      \
    X(host_alloc, PINNED_ALLOC)                                                                    \
    X(host_free, PINNED_ALLOC)                                                                     \
    X(host_register, PINNED_REGISTER)                                                              \
    X(host_unregister, PINNED_REGISTER)                                                            \
    X(stream_create, STREAMS)                                                                      \
    X(stream_destroy, STREAMS)                                                                     \
    X(stream_synchronize, STREAMS)                                                                 \
    X(stream_query, STREAMS)                                                                       \
    X(stream_wait_event, OPTIONAL)                                                                 \
    X(stream_add_callback, OPTIONAL)                                                               \
    X(event_create, EVENTS)                                                                        \
    X(event_destroy, EVENTS)                                                                       \
    X(event_record, EVENTS)                                                                        \
    X(event_synchronize, EVENTS)                                                                   \
    X(event_query, EVENTS)                                                                         \
    X(event_elapsed_ms, OPTIONAL)                                                                  \
    X(graph_capture_begin, GRAPHS)                                                                 \
    X(graph_capture_end, GRAPHS)                                                                   \
    X(graph_launch, GRAPHS)                                                                        \
    X(graph_destroy, GRAPHS)                                                                       \
    X(rng_fill, OPTIONAL)                                                                          \
    X(range_push, PROFILING)                                                                       \
    X(range_pop, PROFILING)                                                                        \
    X(op_builders, OPTIONAL)                                                                       \
    X(fused_optim, OPTIONAL)                                                                       \
    X(native_stream, OPTIONAL)

/* ---- the frozen layout: four header fields, then one pointer per slot */

enum contract_slot_index {
#define CONTRACT_INDEX(slot, group) CONTRACT_INDEX_##slot,
    CONTRACT_SLOTS(CONTRACT_INDEX)
#undef CONTRACT_INDEX
        CONTRACT_SLOT_COUNT
};

#define CONTRACT_FIRST_SLOT offsetof(accel_backend_ops_t, probe)

_Static_assert(offsetof(accel_backend_ops_t, abi_version) == 0, "abi_version must come first");
_Static_assert(offsetof(accel_backend_ops_t, struct_size) == sizeof(size_t),
               "struct_size must follow abi_version");
_Static_assert(offsetof(accel_backend_ops_t, name) == 2 * sizeof(size_t),
               "name must follow struct_size");
_Static_assert(offsetof(accel_backend_ops_t, info) == 2 * sizeof(size_t) + sizeof(void *),
               "info must follow name");
_Static_assert(CONTRACT_FIRST_SLOT == 2 * sizeof(size_t) + 2 * sizeof(void *),
               "probe must be the first slot after the header");
#define CONTRACT_ASSERT_AT(slot, group)                                                            \
    _Static_assert(offsetof(accel_backend_ops_t, slot) ==                                          \
                       CONTRACT_FIRST_SLOT + CONTRACT_INDEX_##slot * sizeof(void *),               \
                   "accel_backend_ops_t." #slot " moved: the table is append-only");
CONTRACT_SLOTS(CONTRACT_ASSERT_AT)
#undef CONTRACT_ASSERT_AT
_Static_assert(sizeof(accel_backend_ops_t) ==
                   CONTRACT_FIRST_SLOT + CONTRACT_SLOT_COUNT * sizeof(void *),
               "a slot of accel_backend_ops_t is missing from CONTRACT_SLOTS");

/* The info struct grows the same way: appended fields only, read when
 * struct_size covers them. */
_Static_assert(offsetof(accel_backend_info_t, fused_ops_unavailable) >
                   offsetof(accel_backend_info_t, current_device_from_local_rank),
               "accel_backend_info_t.fused_ops_unavailable moved: the struct is append-only");
_Static_assert(sizeof(accel_backend_info_t) ==
                   offsetof(accel_backend_info_t, fused_ops_unavailable) + sizeof(const char *),
               "accel_backend_info_t grew in the middle: append new fields at its end");

/* ---- the checks */

typedef enum contract_group {
    CONTRACT_REQUIRED,
    CONTRACT_OPTIONAL,
    CONTRACT_PINNED_ALLOC,
    CONTRACT_PINNED_REGISTER,
    CONTRACT_STREAMS,
    CONTRACT_EVENTS,
    CONTRACT_GRAPHS,
    CONTRACT_PROFILING,
    CONTRACT_GROUP_COUNT
} contract_group_t;

static const char *const contract_group_names[CONTRACT_GROUP_COUNT] = {
    "required",
    "optional",
    "pinned allocation (host_alloc, host_free)",
    "host registration (host_register, host_unregister)",
    "streams (stream_create, stream_destroy, stream_synchronize, stream_query)",
    "events (event_create, event_destroy, event_record, event_synchronize, event_query)",
    "graphs (graph_capture_begin, graph_capture_end, graph_launch, graph_destroy)",
    "profiling (range_push, range_pop)",
};

typedef struct contract_slot {
    const char *name;
    contract_group_t group;
    size_t offset;
} contract_slot_t;

static const contract_slot_t contract_slots[CONTRACT_SLOT_COUNT] = {
#define CONTRACT_ENTRY(slot, group) {#slot, CONTRACT_##group, offsetof(accel_backend_ops_t, slot)},
    CONTRACT_SLOTS(CONTRACT_ENTRY)
#undef CONTRACT_ENTRY
};

/* A slot is present when the table reaches it and it is not NULL. */
static bool contract_slot_set(const accel_backend_ops_t *ops, const contract_slot_t *slot)
{
    const void *value;
    if (ops->struct_size < slot->offset + sizeof(void *))
        return false;
    /* Every slot is one pointer; read it as one (function and data pointers
     * have the same size and representation on every platform we build on). */
    value = *(const void *const *)((const char *)ops + slot->offset);
    return value != NULL;
}

size_t accel_backend_contract_min_size(void)
{
    return offsetof(accel_backend_ops_t, rng_fill) + sizeof(void *);
}

static accel_status_t contract_check_groups(const accel_backend_ops_t *ops, const char *origin)
{
    int set_count[CONTRACT_GROUP_COUNT] = {0};
    int total[CONTRACT_GROUP_COUNT] = {0};
    const char *missing[CONTRACT_GROUP_COUNT] = {0};
    for (size_t i = 0; i < CONTRACT_SLOT_COUNT; i++) {
        const contract_slot_t *slot = &contract_slots[i];
        total[slot->group]++;
        if (contract_slot_set(ops, slot))
            set_count[slot->group]++;
        else if (missing[slot->group] == NULL)
            missing[slot->group] = slot->name;
    }
    if (set_count[CONTRACT_REQUIRED] != total[CONTRACT_REQUIRED])
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: backend \"%s\" leaves the required slot %s NULL", origin, ops->name,
                           missing[CONTRACT_REQUIRED]);
    for (int g = CONTRACT_PINNED_ALLOC; g < CONTRACT_GROUP_COUNT; g++) {
        if (set_count[g] != 0 && set_count[g] != total[g])
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: backend \"%s\" fills part of the %s group but leaves %s "
                               "NULL; fill every slot of the group or none",
                               origin, ops->name, contract_group_names[g], missing[g]);
    }
    return ACCEL_OK;
}

/* Slots that only make sense with another group. */
static accel_status_t contract_check_dependencies(const accel_backend_ops_t *ops,
                                                  const char *origin)
{
    bool streams = contract_slot_set(ops, &contract_slots[CONTRACT_INDEX_stream_create]);
    bool events = contract_slot_set(ops, &contract_slots[CONTRACT_INDEX_event_create]);
    static const int needs_streams[] = {CONTRACT_INDEX_stream_wait_event,
                                        CONTRACT_INDEX_stream_add_callback};
    for (size_t i = 0; i < sizeof needs_streams / sizeof needs_streams[0]; i++) {
        const contract_slot_t *slot = &contract_slots[needs_streams[i]];
        if (contract_slot_set(ops, slot) && !streams)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: backend \"%s\" fills %s without the streams group", origin,
                               ops->name, slot->name);
    }
    if (contract_slot_set(ops, &contract_slots[CONTRACT_INDEX_stream_wait_event]) && !events)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: backend \"%s\" fills stream_wait_event without the events group",
                           origin, ops->name);
    if (contract_slot_set(ops, &contract_slots[CONTRACT_INDEX_event_elapsed_ms]) && !events)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: backend \"%s\" fills event_elapsed_ms without the events group",
                           origin, ops->name);
    return ACCEL_OK;
}

/* rng_fill may be NULL when core can fill instead (rng_fallback.c): host
 * Philox into pinned staging (host_alloc), copied on the stream
 * (memcpy_async) and freed after an event. */
static accel_status_t contract_check_rng(const accel_backend_ops_t *ops, const char *origin)
{
    static const struct {
        int slot;
        const char *name;
    } needs[] = {
        {CONTRACT_INDEX_host_alloc, "pinned allocation (host_alloc, host_free)"},
        {CONTRACT_INDEX_stream_create, "streams"},
        {CONTRACT_INDEX_event_create, "events"},
    };
    char missing[160] = "";
    size_t used = 0;
    if (contract_slot_set(ops, &contract_slots[CONTRACT_INDEX_rng_fill]))
        return ACCEL_OK;
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++) {
        if (contract_slot_set(ops, &contract_slots[needs[i].slot]))
            continue;
        int n = snprintf(missing + used, sizeof missing - used, "%s%s", used > 0 ? ", " : "",
                         needs[i].name);
        if (n > 0 && (size_t)n < sizeof missing - used)
            used += (size_t)n;
    }
    if (used == 0)
        return ACCEL_OK;
    return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                       "%s: backend \"%s\" leaves rng_fill NULL but lacks the %s group(s) that "
                       "core's host-generated fill needs instead; fill rng_fill or those groups",
                       origin, ops->name, missing);
}

static accel_status_t contract_check_fused_optim(const accel_backend_ops_t *ops, const char *origin)
{
    const accel_fused_optim_ops_t *fused;
    if (!contract_slot_set(ops, &contract_slots[CONTRACT_INDEX_fused_optim]))
        return ACCEL_OK;
    fused = ops->fused_optim;
    if (fused->struct_size < offsetof(accel_fused_optim_ops_t, lion) + sizeof(void *) ||
        fused->is_compatible == NULL || fused->build == NULL ||
        (fused->adam == NULL && fused->lion == NULL && ACCEL_FUSED_OPTIM_LAMB(fused) == NULL))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: backend \"%s\" has a fused_optim table that is too short or "
                           "lacks is_compatible, build or every kernel slot",
                           origin, ops->name);
    return ACCEL_OK;
}

accel_status_t accel_backend_contract_check(const accel_backend_ops_t *ops, const char *origin)
{
    accel_status_t status = contract_check_groups(ops, origin);
    if (status == ACCEL_OK)
        status = contract_check_dependencies(ops, origin);
    if (status == ACCEL_OK)
        status = contract_check_rng(ops, origin);
    if (status == ACCEL_OK)
        status = contract_check_fused_optim(ops, origin);
    return status;
}
