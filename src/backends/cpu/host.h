/* host.h: what the host machine is, for the CPU backend (host.c): the NUMA
 * layout, online CPUs, the CPU's name, vendor and fp16 support, and memory
 * figures. Each call reads the system afresh and keeps no state; safe from
 * any thread. Knows nothing of the backend's state (cpu_backend.h). */
#ifndef ACCEL_BACKENDS_CPU_HOST_H
#define ACCEL_BACKENDS_CPU_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where Linux lists the NUMA nodes (also named in messages). */
#define ACCEL_CPU_NUMA_SYSFS_DIR "/sys/devices/system/node"

/* DeepSpeed's rule: in node order, count nodes whose cpu list is non-empty
 * and differs from the previous counted node's (memory-only nodes, e.g. HBM
 * in flat mode, do not count). Writes each counted node's CPU count into
 * *out_cpus (caller frees; may be NULL) and returns how many; 0 = unknown. */
int accel_cpu_host_numa_scan(int **out_cpus);
/* Online CPUs (sysconf), at least 1. */
int accel_cpu_host_online_cpus(void);

/* Whether the CPU does fp16 arithmetic as torch's check asks (see host.c). */
bool accel_cpu_host_fp16(void);
/* The vendor string (cpuid on x86, else /proc/cpuinfo), "" when unknown. */
void accel_cpu_host_vendor(char *out, size_t cap);
/* /proc/cpuinfo "model name", else "<machine> CPU", else "host CPU". */
void accel_cpu_host_name(char *out, size_t cap);

/* Memory in bytes: /proc/meminfo MemTotal / MemAvailable, else sysconf. */
uint64_t accel_cpu_host_total_memory(void);
uint64_t accel_cpu_host_available_memory(void);

#endif /* ACCEL_BACKENDS_CPU_HOST_H */
