/* icd_scan.h: decide "every installed OpenCL runtime is a CPU-only PoCL"
 * from the ICD vendor files and PoCL's driver folder alone, without loading
 * the ICD loader or any driver (PoCL links LLVM: loading it costs tens of
 * milliseconds), so auto-detect can pass over CPU-only OpenCL cheaply.
 * Stateless; any thread. */
#ifndef ACCEL_BACKENDS_OPENCL_ICD_SCAN_H
#define ACCEL_BACKENDS_OPENCL_ICD_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/* True only when `vendors_dir` holds at least one *.icd file and every one
 * names a PoCL library (libpocl.so*) found (as an absolute path, or by its
 * bare name in one of the NULL-terminated `lib_dirs`) next to a pocl/ driver
 * folder holding only CPU drivers (pthread, basic, tbb, cpu, cpu-minimal,
 * cpu-tbb). Then `what` says which files and drivers were seen. False in
 * every other case, including anything unreadable: the caller then asks the
 * runtime itself. */
bool accel_opencl_icds_cpu_only(const char *vendors_dir, const char *const *lib_dirs, char *what,
                                size_t cap);

/* The same for this process: false at once when the environment redirects
 * the loader, its vendor list or PoCL's devices (ACCEL_OPENCL_LIBRARY,
 * ACCEL_OPENCL_VISIBLE_DEVICES, OCL_ICD_VENDORS, OCL_ICD_FILENAMES,
 * OPENCL_VENDOR_PATH, POCL_DEVICES, LD_LIBRARY_PATH); otherwise scans
 * /etc/OpenCL/vendors with the system library folders. */
bool accel_opencl_icds_cpu_only_here(char *what, size_t cap);

#endif /* ACCEL_BACKENDS_OPENCL_ICD_SCAN_H */
