/* fuzz_plugin_path.c: ACCEL_PLUGIN_PATH lists. The run happens in a scratch
 * folder holding what a hostile path may name: a FIFO and a junk file named
 * like plugins, a folder of them, an empty folder. Relative items resolve
 * there. Every list must be scanned without a hang or a crash. */
#include "fuzz.h"

#include <sys/stat.h>
#include <unistd.h>

#include "plugins.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char folder[] = "/tmp/accel-fuzz-plugins-XXXXXX";
    FILE *junk;
    (void)argc;
    (void)argv;
    fuzz_quiet();
    if (mkdtemp(folder) == NULL || chdir(folder) != 0)
        abort();
    if (mkdir("d", 0700) != 0 || mkdir("empty", 0700) != 0 ||
        mkfifo("libaccel-backend-fifo.so", 0600) != 0 ||
        mkfifo("d/libaccel-backend-fifo.so", 0600) != 0 ||
        mkdir("d/libaccel-backend-dir.so", 0700) != 0)
        abort();
    junk = fopen("d/libaccel-backend-junk.so", "w");
    if (junk == NULL)
        abort();
    fputs("\177ELF not really", junk);
    fclose(junk);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *list = fuzz_string(data, size);
    accel_plugins_scan_list(list);
    free(list);
    return 0;
}
