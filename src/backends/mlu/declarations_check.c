/* declarations_check.c: the mlu backend's own CNRT declarations (types.h,
 * symbols.h) compared with a real cnrt.h. Not part of the library: the test
 * mlu.declarations (tests/sim/mlu_declarations.sh) compiles this file
 * against the installed header and runs it.
 * Compiling is the check: a static assertion per enum type, value and flag,
 * and per symbol both a type comparison and an assignment of the real
 * function to our pointer type under -Werror=incompatible-pointer-types.
 * The opaque handles are the one thing mapped rather than compared: types.h
 * names them with its own struct tags, so here (ACCEL_MLU_REAL_CNRT) they
 * are the real typedefs; any object pointer has the same representation.
 * The task-topology calls (cnrtTaskTopoInstantiate...) are checked too: a
 * cnrt.h that does not declare them fails the compile, which is the signal
 * that their home (and README.md's "unconfirmed" list) needs a look.
 * Nothing here calls CNRT or links against it. */
#include <stdio.h>

#include <cnrt.h>

#define ACCEL_MLU_REAL_CNRT 1
typedef cnrtQueue_t accel_cnrt_queue_t;
typedef cnrtNotifier_t accel_cnrt_notifier_t;
typedef cnrtTaskTopo_t accel_cnrt_task_topo_t;
typedef cnrtTaskTopoEntity_t accel_cnrt_topo_entity_t;
typedef cnrtTaskTopoNode_t accel_cnrt_topo_node_t;
typedef cnrtDeviceProp_t accel_cnrt_device_prop_t;
#include "backends/mlu/types.h"
#include "backends/declarations_check.h"

/* ---------------------------------------------------------------- types */

_Static_assert(SAME_TYPE(cnrtRet_t, accel_cnrt_ret_t), "cnrtRet_t");
_Static_assert(SAME_TYPE(cnrtMemTransDir_t, accel_cnrt_mem_dir_t), "cnrtMemTransDir_t");
_Static_assert(SAME_TYPE(cnrtDeviceAttr_t, accel_cnrt_device_attr_t), "cnrtDeviceAttr_t");
_Static_assert(SAME_TYPE(enum cnrtQueueCaptureMode, accel_cnrt_capture_mode_t),
               "enum cnrtQueueCaptureMode");
_Static_assert(SAME_TYPE(cnrtHostFn_t, accel_cnrt_host_fn_t), "cnrtHostFn_t");
_Static_assert(sizeof(cnrtDeviceProp_t) <= ACCEL_CNRT_DEVICE_PROP_BUFFER,
               "cnrtDeviceProp_t outgrew the buffer the backend passes");

/* ---------------------------------------------------------------- values */

SAME_VALUE(cnrtSuccess, ACCEL_CNRT_SUCCESS);
SAME_VALUE(cnrtErrorNotReady, ACCEL_CNRT_ERROR_NOT_READY);
SAME_VALUE(cnrtErrorInit, ACCEL_CNRT_ERROR_INIT);
SAME_VALUE(cnrtErrorNoDevice, ACCEL_CNRT_ERROR_NO_DEVICE);
SAME_VALUE(cnrtErrorDeviceInvalid, ACCEL_CNRT_ERROR_DEVICE_INVALID);
SAME_VALUE(cnrtErrorArgsInvalid, ACCEL_CNRT_ERROR_ARGS_INVALID);
SAME_VALUE(cnrtErrorSysNoMem, ACCEL_CNRT_ERROR_SYS_NO_MEM);
SAME_VALUE(cnrtErrorNotSupport, ACCEL_CNRT_ERROR_NOT_SUPPORT);
SAME_VALUE(cnrtErrorNoMem, ACCEL_CNRT_ERROR_NO_MEM);
SAME_VALUE(cnrtErrorQueueCaptureUnsupported, ACCEL_CNRT_ERROR_CAPTURE_UNSUPPORTED);
SAME_VALUE(cnrtErrorBusy, ACCEL_CNRT_ERROR_BUSY);
SAME_VALUE(cnrtMemcpyHostToDev, ACCEL_CNRT_MEMCPY_HOST_TO_DEV);
SAME_VALUE(cnrtMemcpyDevToDev, ACCEL_CNRT_MEMCPY_DEV_TO_DEV);
SAME_VALUE(cnrtMemcpyDevToHost, ACCEL_CNRT_MEMCPY_DEV_TO_HOST);
SAME_VALUE(cnrtMemcpyHostToHost, ACCEL_CNRT_MEMCPY_HOST_TO_HOST);
SAME_VALUE(cnrtAttrComputeCapabilityMajor, ACCEL_CNRT_ATTR_COMPUTE_MAJOR);
SAME_VALUE(cnrtAttrComputeCapabilityMinor, ACCEL_CNRT_ATTR_COMPUTE_MINOR);
SAME_VALUE(cnrtAttrBF16ComputingSupported, ACCEL_CNRT_ATTR_BF16_SUPPORTED);
SAME_VALUE(cnrtAttrClusterCount, ACCEL_CNRT_ATTR_CLUSTER_COUNT);
SAME_VALUE(cnrtAttrMcorePerCluster, ACCEL_CNRT_ATTR_MCORE_PER_CLUSTER);
SAME_VALUE(cnrtAttrTotalMemSize, ACCEL_CNRT_ATTR_TOTAL_MEM_SIZE);
SAME_VALUE(CNRT_NOTIFIER_DEFAULT, ACCEL_CNRT_NOTIFIER_DEFAULT);
SAME_VALUE(CNRT_NOTIFIER_DISABLE_TIMING_ALL, ACCEL_CNRT_NOTIFIER_DISABLE_TIMING_ALL);
SAME_VALUE(cnrtQueueCaptureModeRelaxed, ACCEL_CNRT_CAPTURE_MODE_RELAXED);

/* ---------------------------------------------------------------- functions */

#define ACCEL_MLU_SYMBOL(required, ret, name, params, export)                                      \
    ACCEL_DECLARATION_SYMBOL(ret, name, params)
#define ACCEL_DECLARATIONS_LIST   "backends/mlu/symbols.h"
#define ACCEL_DECLARATIONS_HEADER "cnrt.h"
#include "backends/declarations_check_symbols.h"
#undef ACCEL_MLU_SYMBOL

int main(void)
{
    printf("mlu declarations match cnrt.h %d.%d.%d\n", CNRT_MAJOR_VERSION, CNRT_MINOR_VERSION,
           CNRT_PATCH_VERSION);
    return 0;
}
