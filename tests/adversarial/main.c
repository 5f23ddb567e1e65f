/* main.c: runner of the adversarial tests. Opens the accelerator
 * ACCEL_ACCELERATOR names (accel_get: the same selection DeepSpeed's
 * get_accelerator makes), runs every group (or the one named on the command
 * line: tensors, frees, struct_size,
 * callbacks), and prints how many cases ran and
 * failed. Exit status: 0 only when every case held. */
#include <stdlib.h>

#include "adversarial.h"

accel_t *adv_acc;

static bool wanted(int argc, char **argv, const char *group)
{
    return argc < 2 || strcmp(argv[1], group) == 0;
}

int main(int argc, char **argv)
{
    int failures = 0;
    if (accel_get(&adv_acc) != ACCEL_OK) {
        fprintf(stderr, "adversarial: no accelerator (ACCEL_ACCELERATOR=%s): %s\n",
                getenv("ACCEL_ACCELERATOR") ? getenv("ACCEL_ACCELERATOR") : "", accel_last_error());
        return 1;
    }
    printf("adversarial: backend \"%s\"\n", accel_name(adv_acc));
    if (wanted(argc, argv, "tensors"))
        failures += adv_run_tensor_tests();
    if (wanted(argc, argv, "frees"))
        failures += adv_run_free_tests();
    if (wanted(argc, argv, "struct_size"))
        failures += adv_run_struct_size_tests();
    if (wanted(argc, argv, "callbacks"))
        failures += adv_run_callback_tests();
    printf("adversarial on %s: %u cases, %u failed\n", accel_name(adv_acc), adv_cases, adv_failed);
    return failures == 0 && adv_failed == 0 ? 0 : 1;
}
