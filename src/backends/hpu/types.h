/* types.h: the SynapseAI and HLML types and constants the hpu backend uses,
 * declared here so that the backend builds without any Habana header.
 * declarations_check.c compares each Synapse one with the real
 * synapse_api.h / synapse_api_types.h / synapse_common_types.h (the
 * production values, HabanaAI/Intel_Gaudi3_Software) when the test
 * hpu.declarations can fetch them; the HLML ones are read from the
 * habana-pyhlml wheel's ctypes bindings (HLML ships no public C header).
 * Names are prefixed (accel_syn_*, ACCEL_SYN_*, accel_hlml_*) so this file and
 * the vendor headers can be included together. Synapse's stream and event
 * handles are pointers to incomplete structs; the tags are Synapse's own, so
 * the types are the same type as the real ones. */
#ifndef ACCEL_BACKENDS_HPU_TYPES_H
#define ACCEL_BACKENDS_HPU_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- Synapse */

typedef unsigned int accel_syn_status_t;  /* synStatus (an enum, no negative member) */
typedef uint32_t accel_syn_device_id_t;   /* synDeviceId */
typedef uint32_t accel_syn_module_id_t;   /* synModuleId */
typedef unsigned int accel_syn_dma_dir_t; /* synDmaDir */
/* synDeviceAttribute. gcc compares a function's pointer-to-enum parameter
 * strictly, so the declaration check (which defines
 * ACCEL_HPU_DECLARATIONS_CHECK) uses the real enum here and asserts
 * separately that it is unsigned int. */
#ifdef ACCEL_HPU_DECLARATIONS_CHECK
typedef synDeviceAttribute accel_syn_device_attr_t;
#else
typedef unsigned int accel_syn_device_attr_t;
#endif
typedef struct InternalStreamHandle *accel_syn_stream_t;  /* synStreamHandle */
typedef struct EventInterfaceExternal *accel_syn_event_t; /* synEventHandle */

/* synStatus values the backend tests for or names */
#define ACCEL_SYN_SUCCESS                          0
#define ACCEL_SYN_INVALID_ARGUMENT                 1
#define ACCEL_SYN_OUT_OF_HOST_MEMORY               3
#define ACCEL_SYN_OUT_OF_DEVICE_MEMORY             4
#define ACCEL_SYN_OBJECT_NOT_INITIALIZED           6
#define ACCEL_SYN_NO_DEVICE_FOUND                  8
#define ACCEL_SYN_FAILED_TO_ALLOCATE_DEVICE_MEMORY 14
#define ACCEL_SYN_DEVICE_RESET                     17
#define ACCEL_SYN_UNSUPPORTED                      18
#define ACCEL_SYN_DEVICE_ALREADY_ACQUIRED          20
#define ACCEL_SYN_BUSY                             22
#define ACCEL_SYN_ALL_RESOURCES_TAKEN              23
#define ACCEL_SYN_UNAVAILABLE                      24
#define ACCEL_SYN_FAIL                             26
#define ACCEL_SYN_OUT_OF_RESOURCES                 27
#define ACCEL_SYN_UNINITIALIZED                    28
#define ACCEL_SYN_SYNAPSE_TERMINATED               31
#define ACCEL_SYN_TIMEOUT                          42
#define ACCEL_SYN_STATUS_LAST                      43 /* synResourceBadUsage */

/* synDmaDir */
#define ACCEL_SYN_HOST_TO_DRAM 0
#define ACCEL_SYN_DRAM_TO_HOST 1
#define ACCEL_SYN_DRAM_TO_DRAM 2

/* synDeviceAttribute */
#define ACCEL_SYN_DEVICE_ATTRIBUTE_DRAM_SIZE      3
#define ACCEL_SYN_DEVICE_ATTRIBUTE_DRAM_FREE_SIZE 4
#define ACCEL_SYN_DEVICE_ATTRIBUTE_DEVICE_TYPE    7
#define ACCEL_SYN_DEVICE_ATTRIBUTE_CLK_RATE       8

/* synDeviceType (the production numbering; SynapseAI_Core's differs) */
#define ACCEL_SYN_DEVICE_GAUDI  2
#define ACCEL_SYN_DEVICE_GAUDI2 4
#define ACCEL_SYN_DEVICE_GAUDI3 5

/* eventCreateFlags: needed on both events for synEventElapsedTime */
#define ACCEL_SYN_EVENT_COLLECT_TIME 1u

/* synStatusGetBriefDescription's buffer */
#define ACCEL_SYN_STATUS_DESCRIPTION_MAX_SIZE 56

/* ---------------------------------------------------------------- HLML */

typedef int accel_hlml_return_t;   /* hlml_return_t (HLML_RETURN) */
typedef void *accel_hlml_device_t; /* hlml_device_t (an opaque pointer) */

#define ACCEL_HLML_SUCCESS                   0
#define ACCEL_HLML_ERROR_UNINITIALIZED       1
#define ACCEL_HLML_ERROR_INVALID_ARGUMENT    2
#define ACCEL_HLML_ERROR_NOT_SUPPORTED       3
#define ACCEL_HLML_ERROR_ALREADY_INITIALIZED 5
#define ACCEL_HLML_ERROR_NOT_FOUND           6
#define ACCEL_HLML_ERROR_DRIVER_NOT_LOADED   9
#define ACCEL_HLML_ERROR_UNKNOWN             49

/* HL_FIELD_MAX_SIZE: the name buffer pyhlml passes */
#define ACCEL_HLML_FIELD_MAX_SIZE 32

#endif /* ACCEL_BACKENDS_HPU_TYPES_H */
