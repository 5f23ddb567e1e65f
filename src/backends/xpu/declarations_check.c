/* declarations_check.c: the xpu backend's own Level Zero declarations
 * (types.h, symbols.h) compared with the real ze_api.h (Debian's libze-dev).
 * Built by tests/sim/CMakeLists.txt only when ze_api.h is found; the test
 * xpu.declarations runs it. Compiling is most of the check: a static
 * assertion per type and constant, and per symbol both a type comparison and
 * an assignment of the real function to our pointer type under
 * -Werror=incompatible-pointer-types. Our structures are compiled in a
 * separate file without ze_api.h (declarations_layout.c: both define the
 * same tags), and main() compares every listed field's offset and each
 * structure's size. Nothing here calls Level Zero. */
#include <stdio.h>
#include <string.h>

#include <level_zero/ze_api.h>

#include "backends/xpu/declarations_layout.h"
#include "backends/xpu/types.h"
#include "backends/declarations_check.h"

/* ---------------------------------------------------------------- types */

_Static_assert(SAME_TYPE(ze_result_t, accel_ze_result_t), "ze_result_t");
_Static_assert(SAME_TYPE(ze_structure_type_t, accel_ze_structure_t), "ze_structure_type_t");
_Static_assert(SAME_TYPE(ze_init_flags_t, accel_ze_flags_t), "ze_init_flags_t");
_Static_assert(SAME_TYPE(ze_api_version_t, accel_ze_api_version_t), "ze_api_version_t");
_Static_assert(SAME_TYPE(ze_driver_handle_t, accel_ze_driver_t), "ze_driver_handle_t");
_Static_assert(SAME_TYPE(ze_device_handle_t, accel_ze_device_t), "ze_device_handle_t");
_Static_assert(SAME_TYPE(ze_context_handle_t, accel_ze_context_t), "ze_context_handle_t");
_Static_assert(SAME_TYPE(ze_command_list_handle_t, accel_ze_list_t), "ze_command_list_handle_t");
_Static_assert(SAME_TYPE(ze_event_pool_handle_t, accel_ze_event_pool_t), "ze_event_pool_handle_t");
_Static_assert(SAME_TYPE(ze_event_handle_t, accel_ze_event_t), "ze_event_handle_t");
_Static_assert(SAME_TYPE(ze_device_properties_t, accel_ze_device_properties_t), "properties");
_Static_assert(sizeof(ze_device_type_t) == 4 && sizeof(ze_command_queue_mode_t) == 4 &&
                   sizeof(ze_command_queue_priority_t) == 4,
               "enums are 32-bit");

/* ---------------------------------------------------------------- constants */

SAME_VALUE(ZE_RESULT_SUCCESS, ACCEL_ZE_SUCCESS);
SAME_VALUE(ZE_RESULT_NOT_READY, ACCEL_ZE_NOT_READY);
SAME_VALUE(ZE_RESULT_ERROR_DEVICE_LOST, ACCEL_ZE_ERROR_DEVICE_LOST);
SAME_VALUE(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, ACCEL_ZE_ERROR_OUT_OF_HOST_MEMORY);
SAME_VALUE(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, ACCEL_ZE_ERROR_OUT_OF_DEVICE_MEMORY);
SAME_VALUE(ZE_RESULT_ERROR_UNINITIALIZED, ACCEL_ZE_ERROR_UNINITIALIZED);
SAME_VALUE(ZE_RESULT_ERROR_UNSUPPORTED_VERSION, ACCEL_ZE_ERROR_UNSUPPORTED_VERSION);
SAME_VALUE(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, ACCEL_ZE_ERROR_UNSUPPORTED_FEATURE);
SAME_VALUE(ZE_RESULT_ERROR_INVALID_ARGUMENT, ACCEL_ZE_ERROR_INVALID_ARGUMENT);
SAME_VALUE(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, ACCEL_ZE_ERROR_INVALID_NULL_HANDLE);
SAME_VALUE(ZE_RESULT_ERROR_INVALID_NULL_POINTER, ACCEL_ZE_ERROR_INVALID_NULL_POINTER);
SAME_VALUE(ZE_RESULT_ERROR_INVALID_SIZE, ACCEL_ZE_ERROR_INVALID_SIZE);
SAME_VALUE(ZE_RESULT_ERROR_UNKNOWN, ACCEL_ZE_ERROR_UNKNOWN);
SAME_VALUE(ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES, ACCEL_ZE_STYPE_DRIVER_PROPERTIES);
SAME_VALUE(ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, ACCEL_ZE_STYPE_DEVICE_PROPERTIES);
SAME_VALUE(ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2, ACCEL_ZE_STYPE_DEVICE_PROPERTIES_1_2);
SAME_VALUE(ZE_API_VERSION_1_2, ACCEL_ZE_API_VERSION_1_2);
SAME_VALUE(ZE_INIT_FLAG_GPU_ONLY, ACCEL_ZE_INIT_FLAG_GPU_ONLY);
SAME_VALUE(ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES, ACCEL_ZE_STYPE_QUEUE_GROUP_PROPERTIES);
SAME_VALUE(ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES, ACCEL_ZE_STYPE_MEMORY_PROPERTIES);
SAME_VALUE(ZE_STRUCTURE_TYPE_CONTEXT_DESC, ACCEL_ZE_STYPE_CONTEXT_DESC);
SAME_VALUE(ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, ACCEL_ZE_STYPE_QUEUE_DESC);
SAME_VALUE(ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, ACCEL_ZE_STYPE_EVENT_POOL_DESC);
SAME_VALUE(ZE_STRUCTURE_TYPE_EVENT_DESC, ACCEL_ZE_STYPE_EVENT_DESC);
SAME_VALUE(ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, ACCEL_ZE_STYPE_DEVICE_ALLOC_DESC);
SAME_VALUE(ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, ACCEL_ZE_STYPE_HOST_ALLOC_DESC);
SAME_VALUE(ZE_DEVICE_TYPE_GPU, ACCEL_ZE_DEVICE_TYPE_GPU);
SAME_VALUE(ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE, ACCEL_ZE_QUEUE_GROUP_FLAG_COMPUTE);
SAME_VALUE(ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ACCEL_ZE_QUEUE_MODE_ASYNCHRONOUS);
SAME_VALUE(ZE_COMMAND_QUEUE_PRIORITY_NORMAL, ACCEL_ZE_QUEUE_PRIORITY_NORMAL);
SAME_VALUE(ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW, ACCEL_ZE_QUEUE_PRIORITY_LOW);
SAME_VALUE(ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH, ACCEL_ZE_QUEUE_PRIORITY_HIGH);
SAME_VALUE(ZE_EVENT_POOL_FLAG_HOST_VISIBLE, ACCEL_ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
SAME_VALUE(ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, ACCEL_ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
SAME_VALUE(ZE_EVENT_SCOPE_FLAG_DEVICE, ACCEL_ZE_EVENT_SCOPE_FLAG_DEVICE);
SAME_VALUE(ZE_EVENT_SCOPE_FLAG_HOST, ACCEL_ZE_EVENT_SCOPE_FLAG_HOST);

/* ---------------------------------------------------------------- functions */

#define ACCEL_ZE_SYMBOL(required, ret, name, params, export_name)                                  \
    ACCEL_DECLARATION_SYMBOL(ret, name, params)
#define ACCEL_DECLARATIONS_LIST   "backends/xpu/symbols.h"
#define ACCEL_DECLARATIONS_HEADER "ze_api.h"
#include "backends/declarations_check_symbols.h"
#undef ACCEL_ZE_SYMBOL

/* ---------------------------------------------------------------- layouts */

/* With ze_api.h included, our typedefs name the header's structures (same
 * tags), so this table holds the real layout. */
#define XPU_LAYOUT_ROW(type, field) {#type "." #field, offsetof(type, field), sizeof(type)},
static const accel_xpu_layout_t layout_real[] = {ACCEL_XPU_LAYOUT(XPU_LAYOUT_ROW)};

int main(void)
{
    int bad = 0;
    if (accel_xpu_layout_count != sizeof layout_real / sizeof layout_real[0]) {
        fprintf(stderr, "xpu declarations: layout lists differ in length\n");
        return 1;
    }
    for (size_t i = 0; i < accel_xpu_layout_count; i++) {
        const accel_xpu_layout_t *ours = &accel_xpu_layout_ours[i], *real = &layout_real[i];
        if (ours->offset != real->offset || ours->size != real->size) {
            fprintf(stderr,
                    "xpu declarations: %s is at %zu in a %zu-byte structure in types.h but at "
                    "%zu in a %zu-byte one in ze_api.h\n",
                    ours->field, ours->offset, ours->size, real->offset, real->size);
            bad = 1;
        }
    }
    if (bad)
        return 1;
    printf("xpu declarations match ze_api.h (every type, constant and symbol; %zu fields)\n",
           accel_xpu_layout_count);
    return 0;
}
