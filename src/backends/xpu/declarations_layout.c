/* declarations_layout.c: the layout of our own Level Zero structures
 * (types.h without ze_api.h), for declarations_check.c to compare with the
 * real header's. Part of the test xpu.declarations only, never of the
 * library. */
#include <stddef.h>

#include "backends/xpu/types.h"
#include "backends/xpu/declarations_layout.h"

#define XPU_LAYOUT_ROW(type, field) {#type "." #field, offsetof(type, field), sizeof(type)},
const accel_xpu_layout_t accel_xpu_layout_ours[] = {ACCEL_XPU_LAYOUT(XPU_LAYOUT_ROW)};
const size_t accel_xpu_layout_count =
    sizeof accel_xpu_layout_ours / sizeof accel_xpu_layout_ours[0];
