/* fork_check.c: detection must not break fork() (docs/architecture.md, fork()). The parent
 * runs the cascade's probes (accel_detect), forks, and the child opens cuda,
 * allocates, writes and frees device memory. Exit 0 on success, 1 on
 * failure, 77 (ctest SKIP_RETURN_CODE) when no CUDA device is present. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <accel/accel.h>

static int child_uses_cuda(void)
{
    accel_t *acc = NULL;
    void *ptr = NULL;
    if (accel_open("cuda", &acc) != ACCEL_OK || accel_malloc(acc, 1 << 20, &ptr) != ACCEL_OK ||
        accel_memset(acc, ptr, 0x5a, 1 << 20) != ACCEL_OK ||
        accel_synchronize(acc, ACCEL_CURRENT_DEVICE) != ACCEL_OK ||
        accel_free(acc, ptr) != ACCEL_OK) {
        fprintf(stderr, "child: %s\n", accel_last_error());
        return 1;
    }
    accel_close(acc);
    return 0;
}

int main(void)
{
    accel_candidate_t candidates[16];
    size_t count = 0;
    const accel_candidate_t *cuda = NULL;
    int status = 0;
    pid_t pid;

    for (size_t i = 0; i < 16; i++)
        candidates[i] = (accel_candidate_t){.struct_size = sizeof candidates[i]};
    if (accel_detect(candidates, 16, &count) != ACCEL_OK) {
        fprintf(stderr, "accel_detect: %s\n", accel_last_error());
        return 1;
    }
    for (size_t i = 0; i < count && i < 16; i++)
        if (strcmp(candidates[i].name, "cuda") == 0)
            cuda = &candidates[i];
    if (cuda == NULL || !cuda->available || cuda->device_count <= 0) {
        printf("SKIP: no CUDA device (%s)\n", cuda != NULL ? cuda->reason : "cuda not built");
        return 77;
    }
    printf("parent probed cuda: %d device(s): %s\n", cuda->device_count, cuda->reason);
    if (strstr(cuda->reason, "counted with the driver") != NULL) {
        /* Without NVML the probe had to call cuInit, after which CUDA forbids
         * a forked child to use it: nothing to check. */
        printf("SKIP: the probe counted with cuInit (%s), so a forked child may not use CUDA\n",
               cuda->reason);
        return 77;
    }
    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0)
        _exit(child_uses_cuda());
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "FAIL: the forked child could not use CUDA after the parent's probe\n");
        return 1;
    }
    printf("PASS: child allocated on cuda after the parent probed\n");
    return 0;
}
