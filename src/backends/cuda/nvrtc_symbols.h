/* nvrtc_symbols.h: the NVRTC functions kernels.c calls, as an X-macro:
 *   ACCEL_NVRTC_SYMBOL(required, return type, name, (parameters), export)
 * (the shape of accel/accel_backend_utils.h; `export` is a versioned name to
 * try first, or NULL).
 * The PTX pair is the fallback when NVRTC cannot emit a cubin for the
 * device's exact architecture. Expanded by kernels.c (dlsym table) and by
 * declarations_check.c (against the real <nvrtc.h>). No include guard. */
/* An X-macro list read as data, one vendor call per entry: not reformatted. */
/* clang-format off */
ACCEL_NVRTC_SYMBOL(true, accel_nvrtc_result_t, nvrtcVersion, (int *major, int *minor), NULL)
ACCEL_NVRTC_SYMBOL(true, accel_nvrtc_result_t, nvrtcCreateProgram,
                   (accel_nvrtc_program_t *program, const char *source, const char *name,
                    int header_count, const char *const *headers,
                    const char *const *include_names), NULL)
ACCEL_NVRTC_SYMBOL(true, accel_nvrtc_result_t, nvrtcCompileProgram,
                   (accel_nvrtc_program_t program, int option_count, const char *const *options),
                   NULL)
ACCEL_NVRTC_SYMBOL(false, accel_nvrtc_result_t, nvrtcGetCUBINSize,
                   (accel_nvrtc_program_t program, size_t *size), NULL)
ACCEL_NVRTC_SYMBOL(false, accel_nvrtc_result_t, nvrtcGetCUBIN,
                   (accel_nvrtc_program_t program, char *cubin), NULL)
ACCEL_NVRTC_SYMBOL(true, accel_nvrtc_result_t, nvrtcGetPTXSize,
                   (accel_nvrtc_program_t program, size_t *size), NULL)
ACCEL_NVRTC_SYMBOL(true, accel_nvrtc_result_t, nvrtcGetPTX,
                   (accel_nvrtc_program_t program, char *ptx), NULL)
ACCEL_NVRTC_SYMBOL(true, accel_nvrtc_result_t, nvrtcGetProgramLogSize,
                   (accel_nvrtc_program_t program, size_t *size), NULL)
ACCEL_NVRTC_SYMBOL(true, accel_nvrtc_result_t, nvrtcGetProgramLog,
                   (accel_nvrtc_program_t program, char *log), NULL)
ACCEL_NVRTC_SYMBOL(true, accel_nvrtc_result_t, nvrtcDestroyProgram,
                   (accel_nvrtc_program_t *program), NULL)
ACCEL_NVRTC_SYMBOL(true, const char *, nvrtcGetErrorString, (accel_nvrtc_result_t result), NULL)
/* NVRTC 11.2+: the architectures it can target (the PTX fallback's choice) */
ACCEL_NVRTC_SYMBOL(false, accel_nvrtc_result_t, nvrtcGetNumSupportedArchs, (int *count), NULL)
ACCEL_NVRTC_SYMBOL(false, accel_nvrtc_result_t, nvrtcGetSupportedArchs, (int *archs), NULL)
/* clang-format on */
