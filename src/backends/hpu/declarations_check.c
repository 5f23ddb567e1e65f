/* declarations_check.c: the hpu backend's own Synapse declarations
 * (types.h, symbols.h) compared with SynapseAI's real headers
 * (synapse_api.h, synapse_api_types.h, synapse_common_types.h from
 * HabanaAI/Intel_Gaudi3_Software, fetched by scripts/fetch-vendor-headers.sh
 * hpu). Not part of the library: the test hpu.declarations
 * (tests/sim/hpu_declarations.sh) compiles this file against the fetched
 * headers and runs it. Compiling is the check: a static assertion per type,
 * enum value and flag, and per symbol both a type comparison and an
 * assignment of the real function to our pointer type under
 * -Werror=incompatible-pointer-types. Nothing here calls Synapse or links
 * against it. (The HLML half is checked by the script against the
 * habana-pyhlml wheel, HLML having no public C header.) */
#include <stdio.h>

#include <synapse_api.h>

#define ACCEL_HPU_DECLARATIONS_CHECK /* types.h: the real synDeviceAttribute */
#include "backends/hpu/types.h"
#include "backends/declarations_check.h"

/* ---------------------------------------------------------------- types */

_Static_assert(SAME_TYPE(synStatus, accel_syn_status_t), "synStatus");
_Static_assert(SAME_TYPE(synDeviceId, accel_syn_device_id_t), "synDeviceId");
_Static_assert(SAME_TYPE(synModuleId, accel_syn_module_id_t), "synModuleId");
_Static_assert(SAME_TYPE(synDmaDir, accel_syn_dma_dir_t), "synDmaDir");
_Static_assert(SAME_TYPE(synDeviceAttribute, unsigned int), "synDeviceAttribute");
_Static_assert(SAME_TYPE(synStreamHandle, accel_syn_stream_t), "synStreamHandle");
_Static_assert(SAME_TYPE(synEventHandle, accel_syn_event_t), "synEventHandle");
_Static_assert(sizeof(synStatus) == 4 && sizeof(synDmaDir) == 4, "enums are 32-bit");

/* ---------------------------------------------------------------- values */

SAME_VALUE(synSuccess, ACCEL_SYN_SUCCESS);
SAME_VALUE(synInvalidArgument, ACCEL_SYN_INVALID_ARGUMENT);
SAME_VALUE(synOutOfHostMemory, ACCEL_SYN_OUT_OF_HOST_MEMORY);
SAME_VALUE(synOutOfDeviceMemory, ACCEL_SYN_OUT_OF_DEVICE_MEMORY);
SAME_VALUE(synObjectNotInitialized, ACCEL_SYN_OBJECT_NOT_INITIALIZED);
SAME_VALUE(synNoDeviceFound, ACCEL_SYN_NO_DEVICE_FOUND);
SAME_VALUE(synFailedToAllocateDeviceMemory, ACCEL_SYN_FAILED_TO_ALLOCATE_DEVICE_MEMORY);
SAME_VALUE(synDeviceReset, ACCEL_SYN_DEVICE_RESET);
SAME_VALUE(synUnsupported, ACCEL_SYN_UNSUPPORTED);
SAME_VALUE(synDeviceAlreadyAcquired, ACCEL_SYN_DEVICE_ALREADY_ACQUIRED);
SAME_VALUE(synBusy, ACCEL_SYN_BUSY);
SAME_VALUE(synAllResourcesTaken, ACCEL_SYN_ALL_RESOURCES_TAKEN);
SAME_VALUE(synUnavailable, ACCEL_SYN_UNAVAILABLE);
SAME_VALUE(synFail, ACCEL_SYN_FAIL);
SAME_VALUE(synOutOfResources, ACCEL_SYN_OUT_OF_RESOURCES);
SAME_VALUE(synUninitialized, ACCEL_SYN_UNINITIALIZED);
SAME_VALUE(synSynapseTerminated, ACCEL_SYN_SYNAPSE_TERMINATED);
SAME_VALUE(synTimeout, ACCEL_SYN_TIMEOUT);
SAME_VALUE(synStatusLast, ACCEL_SYN_STATUS_LAST);
SAME_VALUE(HOST_TO_DRAM, ACCEL_SYN_HOST_TO_DRAM);
SAME_VALUE(DRAM_TO_HOST, ACCEL_SYN_DRAM_TO_HOST);
SAME_VALUE(DRAM_TO_DRAM, ACCEL_SYN_DRAM_TO_DRAM);
SAME_VALUE(DEVICE_ATTRIBUTE_DRAM_SIZE, ACCEL_SYN_DEVICE_ATTRIBUTE_DRAM_SIZE);
SAME_VALUE(DEVICE_ATTRIBUTE_DRAM_FREE_SIZE, ACCEL_SYN_DEVICE_ATTRIBUTE_DRAM_FREE_SIZE);
SAME_VALUE(DEVICE_ATTRIBUTE_DEVICE_TYPE, ACCEL_SYN_DEVICE_ATTRIBUTE_DEVICE_TYPE);
SAME_VALUE(DEVICE_ATTRIBUTE_CLK_RATE, ACCEL_SYN_DEVICE_ATTRIBUTE_CLK_RATE);
SAME_VALUE(synDeviceGaudi, ACCEL_SYN_DEVICE_GAUDI);
SAME_VALUE(synDeviceGaudi2, ACCEL_SYN_DEVICE_GAUDI2);
SAME_VALUE(synDeviceGaudi3, ACCEL_SYN_DEVICE_GAUDI3);
SAME_VALUE(EVENT_COLLECT_TIME, ACCEL_SYN_EVENT_COLLECT_TIME);
SAME_VALUE(STATUS_DESCRIPTION_MAX_SIZE, ACCEL_SYN_STATUS_DESCRIPTION_MAX_SIZE);

/* ---------------------------------------------------------------- functions */

/* synInitialize is declared with () in synapse_api.h, which C treats as
 * compatible with our (void). */
#define ACCEL_HPU_SYMBOL(required, ret, name, params, export)                                      \
    ACCEL_DECLARATION_SYMBOL(ret, name, params)
#define ACCEL_DECLARATIONS_LIST   "backends/hpu/symbols.h"
#define ACCEL_DECLARATIONS_HEADER "synapse_api.h"
#include "backends/declarations_check_symbols.h"
#undef ACCEL_HPU_SYMBOL

int main(void)
{
    printf("hpu declarations match synapse_api.h (HabanaAI/Intel_Gaudi3_Software)\n");
    return 0;
}
