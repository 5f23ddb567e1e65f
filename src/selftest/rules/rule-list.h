/* rule-list.h: the index of vendor-rule probes, one line per rule of a
 * backend README's "Vendor rules we rely on" table (and of the sim rule of
 * tests/sim/README.md with the same id). Each probe is a check (check.h),
 * named `rule.<backend>.<rule_id>` in `accel selftest`'s output and JSON.
 *
 *   X(backend, rule_id, function, sentence)
 *
 * `backend` is the accel backend the probe applies to (npu, cuda, mlu, hpu,
 * xpu, sdaa), or a communication engine prefixed `comm_` (comm_hccl,
 * comm_nccl...) for probes that run only under `accel launch -n N`. Each
 * backend keeps its rows in its own macro so that edits do not collide;
 * VENDOR_RULE_PROBES joins them. Probe sources: rules/<backend>.c. */
#ifndef ACCEL_SELFTEST_RULE_LIST_H
#define ACCEL_SELFTEST_RULE_LIST_H

#define VENDOR_RULE_PROBES_NPU(X)
#define VENDOR_RULE_PROBES_CUDA(X)
#define VENDOR_RULE_PROBES_MLU(X)
#define VENDOR_RULE_PROBES_HPU(X)
#define VENDOR_RULE_PROBES_XPU(X)
#define VENDOR_RULE_PROBES_SDAA(X)
#define VENDOR_RULE_PROBES_COMM_HCCL(X)
#define VENDOR_RULE_PROBES_COMM_NCCL(X)
#define VENDOR_RULE_PROBES_COMM_CNCL(X)
#define VENDOR_RULE_PROBES_COMM_HABANA_HCCL(X)
#define VENDOR_RULE_PROBES_COMM_ONECCL(X)
#define VENDOR_RULE_PROBES_COMM_TCCL(X)

#define VENDOR_RULE_PROBES(X)                                                                      \
    VENDOR_RULE_PROBES_NPU(X)                                                                      \
    VENDOR_RULE_PROBES_CUDA(X)                                                                     \
    VENDOR_RULE_PROBES_MLU(X)                                                                      \
    VENDOR_RULE_PROBES_HPU(X)                                                                      \
    VENDOR_RULE_PROBES_XPU(X)                                                                      \
    VENDOR_RULE_PROBES_SDAA(X)                                                                     \
    VENDOR_RULE_PROBES_COMM_HCCL(X)                                                                \
    VENDOR_RULE_PROBES_COMM_NCCL(X)                                                                \
    VENDOR_RULE_PROBES_COMM_CNCL(X)                                                                \
    VENDOR_RULE_PROBES_COMM_HABANA_HCCL(X)                                                         \
    VENDOR_RULE_PROBES_COMM_ONECCL(X)                                                              \
    VENDOR_RULE_PROBES_COMM_TCCL(X)

/* Every probe is a check function. */
#define VENDOR_RULE_DECLARE(backend, rule_id, function, sentence) void function(void **state);
VENDOR_RULE_PROBES(VENDOR_RULE_DECLARE)
#undef VENDOR_RULE_DECLARE

#endif /* ACCEL_SELFTEST_RULE_LIST_H */
