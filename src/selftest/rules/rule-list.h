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
 * VENDOR_RULE_PROBES joins them. Probe sources: rules/<backend>.c, which
 * include "../check.h" and this file (it declares each probe). */
#ifndef ACCEL_SELFTEST_RULE_LIST_H
#define ACCEL_SELFTEST_RULE_LIST_H

/* src/backends/npu/README.md, "Vendor rules we rely on" (rules/npu.c) */
#define VENDOR_RULE_PROBES_NPU(X)                                                                  \
    X(npu, "C1", probe_npu_c1_report_thread_runs_callbacks,                                        \
      "a report thread that set the stream's device runs its callbacks")                           \
    X(npu, "C2", probe_npu_c2_report_thread_one_device,                                            \
      "a report thread serves one device: another device's stream is refused (107012)")            \
    X(npu, "C3", probe_npu_c3_stream_one_report_thread,                                            \
      "a stream has one report thread: a second subscription is refused (107011)")                 \
    X(npu, "C6", probe_npu_c6_report_timeout_positive,                                             \
      "aclrtProcessReport refuses a timeout neither -1 nor positive (100000)")                     \
    X(npu, "C7", probe_npu_c7_report_codes,                                                        \
      "aclrtProcessReport says 107012 unsubscribed and 507012 on a timeout")                       \
    X(npu, "C8", probe_npu_c8_callback_never_synchronizes,                                         \
      "a synchronize from inside a host callback returns instead of deadlocking")                  \
    X(npu, "C9", probe_npu_c9_one_callback_mechanism,                                              \
      "host callbacks run on the default and a created stream of every device")                    \
    X(npu, "C10", probe_npu_c10_launch_host_func,                                                  \
      "aclrtLaunchHostFunc, where exported, runs its function and the stream waits")               \
    X(npu, "E1", probe_npu_e1_event_ids_return,                                                    \
      "a destroyed WithFlag event gives its id back to the device's pool")                         \
    X(npu, "E2", probe_npu_e2_ex_event_destroy_queued,                                             \
      "an Ex event may be destroyed while its record is still queued")                             \
    X(npu, "E3", probe_npu_e3_withflag_destroy_after_completion,                                   \
      "a WithFlag event destroyed after its record and waits leaves its streams working")          \
    X(npu, "E4", probe_npu_e4_unrecorded_event_not_ready,                                          \
      "a WithFlag event never recorded queries NOT_READY")                                         \
    X(npu, "E6", probe_npu_e6_wait_status_polarity,                                                \
      "aclrtQueryEventWaitStatus: NOT_READY 1 with a wait queued, COMPLETE 0 after")               \
    X(npu, "M1", probe_npu_m1_async_h2h_refused,                                                   \
      "aclrtMemcpyAsync refuses a host-to-host copy (207000)")                                     \
    X(npu, "M2", probe_npu_m2_unaligned_d2d,                                                       \
      "an unaligned device-to-device aclrtMemcpyAsync is refused or copies the right bytes")       \
    X(npu, "M3", probe_npu_m3_pinned_async_copies,                                                 \
      "async copies with aclrtMallocHost memory run in stream order")                              \
    X(npu, "M6", probe_npu_m6_free_does_not_wait,                                                  \
      "aclrtFree returns without waiting for queued stream work")                                  \
    X(npu, "M7", probe_npu_m7_register_needs_page,                                                 \
      "aclrtHostRegister refuses a pointer that is not 4 KiB aligned")                             \
    X(npu, "M8", probe_npu_m8_register_v2_pins,                                                    \
      "aclrtHostRegisterV2(ACL_HOST_REG_PINNED) page-locks pages for async copies")                \
    X(npu, "M9", probe_npu_m9_memset_device,                                                       \
      "aclrtMemsetAsync sets exactly the device bytes asked for")                                  \
    X(npu, "V1", probe_npu_v1_get_version, "aclrtGetVersion, where exported, answers a version")
#define VENDOR_RULE_PROBES_CUDA(X)
#define VENDOR_RULE_PROBES_MLU(X)
#define VENDOR_RULE_PROBES_HPU(X)
#define VENDOR_RULE_PROBES_XPU(X)
#define VENDOR_RULE_PROBES_SDAA(X)
/* src/comm/hccl/README.md, "Vendor rules we rely on" (rules/comm_hccl.c) */
#define VENDOR_RULE_PROBES_COMM_HCCL(X)                                                            \
    X(comm_hccl, "H1", probe_comm_hccl_h1_null_stream_refused,                                     \
      "HcclAllReduce refuses ACL's NULL stream (HCCL_E_PTR)")                                      \
    X(comm_hccl, "H2", probe_comm_hccl_h2_small_unsigned_reductions_refused,                       \
      "HCCL refuses a UINT8 reduction (HCCL_E_NOT_SUPPORT)")                                       \
    X(comm_hccl, "H3", probe_comm_hccl_h3_fp64_reductions_on_950,                                  \
      "HCCL reduces FP64 on Ascend 950 only")                                                      \
    X(comm_hccl, "H4", probe_comm_hccl_h4_prod_types,                                              \
      "HCCL refuses PROD of BFP16 and runs it on FP32")                                            \
    X(comm_hccl, "H5", probe_comm_hccl_h5_send_recv_pairwise,                                      \
      "HcclSend/HcclRecv block pairwise (not observable: skipped)")                                \
    X(comm_hccl, "H6", probe_comm_hccl_h6_group_calls,                                             \
      "a grouped ring of sends and receives runs (group calls from libhcomm.so)")                  \
    X(comm_hccl, "H7", probe_comm_hccl_h7_root_info_needs_device,                                  \
      "HcclGetRootInfo fails on a thread with no ACL device")                                      \
    X(comm_hccl, "H8", probe_comm_hccl_h8_reduction_alignment,                                     \
      "HCCL refuses FP32 reduction buffers off their 4-byte alignment")
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
