/* icd_scan.c: the cheap "CPU-only OpenCL" decision (icd_scan.h): read the
 * ICD vendor files the way ocl-icd does (one library per *.icd file, first
 * line) and list PoCL's loadable driver folder. Nothing is loaded. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "accel/accel_backend_utils.h"
#include "backends/opencl/icd_scan.h"

#define ICD_PATH_MAX   1024
#define ICD_SEARCH_MAX 8 /* LD_LIBRARY_PATH entries looked in */

static bool icd_ends_with(const char *text, const char *suffix)
{
    size_t n = strlen(text), m = strlen(suffix);
    return n >= m && strcmp(text + n - m, suffix) == 0;
}

/* PoCL's CPU drivers, old and new names (pocl/libpocl-devices-NAME.so). */
static bool icd_cpu_driver(const char *name)
{
    static const char *const cpu[] = {"pthread", "basic", "tbb", "cpu", "cpu-minimal", "cpu-tbb"};
    for (size_t i = 0; i < sizeof cpu / sizeof cpu[0]; i++)
        if (strcmp(name, cpu[i]) == 0)
            return true;
    return false;
}

/* True when `dir`/pocl exists and holds only CPU drivers (at least one);
 * appends their names to `drivers`. */
static bool icd_pocl_drivers_cpu_only(const char *dir, char *drivers, size_t cap)
{
    char path[ICD_PATH_MAX];
    DIR *d;
    struct dirent *entry;
    bool ok = true;
    int found = 0;
    if (snprintf(path, sizeof path, "%s/pocl", dir) >= (int)sizeof path || !(d = opendir(path)))
        return false;
    while (ok && (entry = readdir(d)) != NULL) {
        static const char prefix[] = "libpocl-devices-";
        char name[128];
        size_t len;
        if (strncmp(entry->d_name, prefix, sizeof prefix - 1) != 0 ||
            !icd_ends_with(entry->d_name, ".so"))
            continue;
        len = strlen(entry->d_name) - (sizeof prefix - 1) - 3;
        if (len == 0 || len >= sizeof name) {
            ok = false;
            break;
        }
        memcpy(name, entry->d_name + sizeof prefix - 1, len);
        name[len] = '\0';
        ok = icd_cpu_driver(name);
        if (ok) {
            size_t used = strlen(drivers);
            snprintf(drivers + used, cap - used, "%s%s", used ? ", " : "", name);
            found++;
        }
    }
    closedir(d);
    return ok && found > 0;
}

/* The folder holding `library` (an absolute path, or a bare name looked up
 * in lib_dirs); false when it is not found. */
static bool icd_library_dir(const char *library, const char *const *lib_dirs, char *dir, size_t cap)
{
    struct stat st;
    const char *slash = strrchr(library, '/');
    if (library[0] == '/') {
        if (stat(library, &st) != 0 || (size_t)(slash - library) >= cap)
            return false;
        memcpy(dir, library, (size_t)(slash - library));
        dir[slash - library] = '\0';
        return true;
    }
    if (slash != NULL)
        return false; /* relative to the loader's working folder: let it decide */
    for (size_t i = 0; lib_dirs != NULL && lib_dirs[i] != NULL; i++) {
        char path[ICD_PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", lib_dirs[i], library) < (int)sizeof path &&
            stat(path, &st) == 0) {
            snprintf(dir, cap, "%s", lib_dirs[i]);
            return true;
        }
    }
    return false;
}

/* One vendor file: its library must be a PoCL with CPU drivers only. */
static bool icd_file_cpu_only(const char *path, const char *const *lib_dirs, char *drivers,
                              size_t cap)
{
    char line[ICD_PATH_MAX], dir[ICD_PATH_MAX];
    const char *base;
    FILE *f = fopen(path, "re");
    bool read;
    if (f == NULL)
        return false;
    read = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!read)
        return false;
    line[strcspn(line, "\r\n")] = '\0';
    base = strrchr(line, '/') ? strrchr(line, '/') + 1 : line;
    if (strncmp(base, "libpocl.so", 10) != 0)
        return false;
    return icd_library_dir(line, lib_dirs, dir, sizeof dir) &&
           icd_pocl_drivers_cpu_only(dir, drivers, cap);
}

bool accel_opencl_icds_cpu_only(const char *vendors_dir, const char *const *lib_dirs, char *what,
                                size_t cap)
{
    DIR *d = opendir(vendors_dir);
    struct dirent *entry;
    char files[256] = "", drivers[256] = "";
    bool ok = true;
    int count = 0;
    if (d == NULL)
        return false;
    while (ok && (entry = readdir(d)) != NULL) {
        char path[ICD_PATH_MAX];
        size_t used = strlen(files);
        if (!icd_ends_with(entry->d_name, ".icd"))
            continue;
        if (snprintf(path, sizeof path, "%s/%s", vendors_dir, entry->d_name) >= (int)sizeof path) {
            ok = false;
            break;
        }
        drivers[0] = '\0';
        ok = icd_file_cpu_only(path, lib_dirs, drivers, sizeof drivers);
        snprintf(files + used, sizeof files - used, "%s%s", used ? ", " : "", entry->d_name);
        count++;
    }
    closedir(d);
    if (!ok || count == 0)
        return false;
    snprintf(what, cap, "%s in %s: PoCL with CPU drivers only (%s)", files, vendors_dir, drivers);
    return true;
}

bool accel_opencl_icds_cpu_only_here(char *what, size_t cap)
{
    static const char *const redirects[] = {
        "ACCEL_OPENCL_LIBRARY", "ACCEL_OPENCL_VISIBLE_DEVICES", "OCL_ICD_VENDORS",
        "OCL_ICD_FILENAMES",    "OPENCL_VENDOR_PATH",           "POCL_DEVICES",
    };
    char libc_dir[ICD_PATH_MAX] = "", usr_dir[ICD_PATH_MAX] = "", search[ICD_PATH_MAX] = "";
    const char *lib_dirs[ICD_SEARCH_MAX + 6];
    const char *ld_path = accel_env_get("LD_LIBRARY_PATH");
    size_t n = 0;
    Dl_info info;
    for (size_t i = 0; i < sizeof redirects / sizeof redirects[0]; i++)
        if (accel_env_get(redirects[i]) != NULL)
            return false;
    /* The dynamic loader looks in LD_LIBRARY_PATH first; too long a list and
     * the answer is left to the loader itself. */
    if (ld_path != NULL) {
        char *save = NULL;
        if (snprintf(search, sizeof search, "%s", ld_path) >= (int)sizeof search)
            return false;
        for (char *dir = strtok_r(search, ":", &save); dir != NULL;
             dir = strtok_r(NULL, ":", &save)) {
            if (n == ICD_SEARCH_MAX)
                return false;
            lib_dirs[n++] = dir;
        }
    }
    /* The folder libc came from (the multiarch one on Debian), and its /usr twin. */
    if (dladdr((void *)fopen, &info) != 0 && info.dli_fname != NULL && info.dli_fname[0] == '/' &&
        strrchr(info.dli_fname, '/') != info.dli_fname) {
        size_t len = (size_t)(strrchr(info.dli_fname, '/') - info.dli_fname);
        if (len < sizeof libc_dir) {
            memcpy(libc_dir, info.dli_fname, len);
            libc_dir[len] = '\0';
            lib_dirs[n++] = libc_dir;
            if (strncmp(libc_dir, "/lib", 4) == 0) {
                snprintf(usr_dir, sizeof usr_dir, "/usr%s", libc_dir);
                lib_dirs[n++] = usr_dir;
            }
        }
    }
    lib_dirs[n++] = "/usr/lib64";
    lib_dirs[n++] = "/usr/lib";
    lib_dirs[n++] = "/usr/local/lib";
    lib_dirs[n] = NULL;
    return accel_opencl_icds_cpu_only("/etc/OpenCL/vendors", lib_dirs, what, cap);
}
