/* nvrtc_check.c: the build-time check that every CUDA C program of the cuda
 * backend (the Philox fills, the fused optimizer ops) compiles with this
 * machine's NVRTC for sm_75, sm_80 and sm_90, to a cubin and to PTX that
 * defines each kernel under its extern "C" name. Needs no GPU; exits 77
 * (ctest's skip) when NVRTC cannot be loaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/fused_optim.h"

static const char *const check_archs[] = {"75", "80", "90"};

/* Compile `program` for one architecture, as a cubin when NVRTC can, and as
 * PTX whose entries must name every kernel. Returns the failures. */
static int check_program(const accel_nvrtc_api_t *nvrtc, const accel_cuda_program_t *program,
                         const char *arch)
{
    char target[32];
    void *image = NULL;
    size_t size = 0;
    accel_nvrtc_result_t result;
    int failures = 0;

    if (nvrtc->nvrtcGetCUBIN != NULL && nvrtc->nvrtcGetCUBINSize != NULL) {
        snprintf(target, sizeof target, "sm_%s", arch);
        if (accel_cuda_program_compile(nvrtc, program, target, true, &image, &size, &result) !=
            ACCEL_OK) {
            fprintf(stderr, "FAIL %s, %s: %s\n", program->what, target, accel_last_error());
            return 1;
        }
        printf("ok   %s, %s: %zu-byte cubin\n", program->what, target, size);
        free(image);
    }
    snprintf(target, sizeof target, "compute_%s", arch);
    if (accel_cuda_program_compile(nvrtc, program, target, false, &image, &size, &result) !=
        ACCEL_OK) {
        fprintf(stderr, "FAIL %s, %s: %s\n", program->what, target, accel_last_error());
        return 1;
    }
    for (int k = 0; k < program->kernel_count; k++) {
        char entry[128];
        snprintf(entry, sizeof entry, ".entry %s(", program->kernel_names[k]);
        if (strstr(image, entry) == NULL) {
            fprintf(stderr, "FAIL %s, %s: the PTX defines no kernel %s\n", program->what, target,
                    program->kernel_names[k]);
            failures++;
        }
    }
    if (failures == 0)
        printf("ok   %s, %s: PTX with %d kernels\n", program->what, target, program->kernel_count);
    free(image);
    return failures;
}

int main(void)
{
    const accel_cuda_program_t *programs[] = {&accel_cuda_rng_program, &accel_cuda_optim_program};
    char reason[320] = "";
    const accel_nvrtc_api_t *nvrtc = accel_cuda_nvrtc(reason, sizeof reason);
    int major = 0, minor = 0, failures = 0;

    if (nvrtc == NULL) {
        printf("skipped: %s\n", reason);
        return 77;
    }
    nvrtc->nvrtcVersion(&major, &minor);
    printf("NVRTC %d.%d\n", major, minor);
    for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++)
        for (size_t a = 0; a < sizeof check_archs / sizeof check_archs[0]; a++)
            failures += check_program(nvrtc, programs[p], check_archs[a]);
    return failures == 0 ? 0 : 1;
}
