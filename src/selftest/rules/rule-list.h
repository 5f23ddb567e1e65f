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
      "a report thread that set the stream's device runs its callbacks, else accel's never run")   \
    X(npu, "C2", probe_npu_c2_report_thread_one_device,                                            \
      "a report thread serves one device (107012 for another's stream), as accel's threads do")    \
    X(npu, "C3", probe_npu_c3_stream_one_report_thread,                                            \
      "a second report thread for a stream is refused (107011)")                                   \
    X(npu, "C6", probe_npu_c6_report_timeout_positive,                                             \
      "aclrtProcessReport refuses timeout 0 (100000), so accel's report loop passes 50 ms")        \
    X(npu, "C7", probe_npu_c7_report_codes,                                                        \
      "aclrtProcessReport's idle codes are 507012 and 107012, which accel's report loop expects")  \
    X(npu, "C8", probe_npu_c8_callback_never_synchronizes,                                         \
      "a synchronize from inside a host callback returns instead of deadlocking")                  \
    X(npu, "C9", probe_npu_c9_one_callback_mechanism,                                              \
      "accel's one callback mechanism runs callbacks on every stream of every device")             \
    X(npu, "C10", probe_npu_c10_launch_host_func,                                                  \
      "aclrtLaunchHostFunc runs its function and the stream waits, as accel's callbacks need")     \
    X(npu, "E1", probe_npu_e1_event_ids_return,                                                    \
      "a destroyed WithFlag event returns its id to the pool, else accel's events run out")        \
    X(npu, "E2", probe_npu_e2_ex_event_destroy_queued,                                             \
      "an Ex event destroyed with its record queued leaves the stream working (accel's destroy)")  \
    X(npu, "E3", probe_npu_e3_withflag_destroy_after_completion,                                   \
      "a WithFlag event destroyed after its record and waits leaves its streams working")          \
    X(npu, "E4", probe_npu_e4_unrecorded_event_not_ready,                                          \
      "a WithFlag event never recorded queries NOT_READY, so accel never takes it for done")       \
    X(npu, "E6", probe_npu_e6_wait_status_polarity,                                                \
      "aclrtQueryEventWaitStatus says NOT_READY 1, COMPLETE 0: the polarity accel reads")          \
    X(npu, "M1", probe_npu_m1_async_h2h_refused,                                                   \
      "aclrtMemcpyAsync refuses host-to-host copies (207000), which accel does on the host")       \
    X(npu, "M2", probe_npu_m2_unaligned_d2d,                                                       \
      "an unaligned device-to-device aclrtMemcpyAsync is refused or exact, never wrong")           \
    X(npu, "M3", probe_npu_m3_pinned_async_copies,                                                 \
      "async copies with aclrtMallocHost memory run in stream order (accel's pinned copies)")      \
    X(npu, "M6", probe_npu_m6_free_does_not_wait,                                                  \
      "aclrtFree returns without waiting for streams, so accel must track pending work itself")    \
    X(npu, "M7", probe_npu_m7_register_needs_page,                                                 \
      "aclrtHostRegister refuses a pointer off a 4 KiB page boundary")                             \
    X(npu, "M8", probe_npu_m8_register_v2_pins,                                                    \
      "aclrtHostRegisterV2(PINNED) page-locks pages for async copies (accel_host_register)")       \
    X(npu, "M9", probe_npu_m9_memset_device,                                                       \
      "aclrtMemsetAsync sets exactly the device bytes asked for")                                  \
    X(npu, "V1", probe_npu_v1_get_version,                                                         \
      "aclrtGetVersion, where exported, answers: accel's initialisation stops if it fails")
#define VENDOR_RULE_PROBES_CUDA(X)
#define VENDOR_RULE_PROBES_MLU(X)
#define VENDOR_RULE_PROBES_HPU(X)
#define VENDOR_RULE_PROBES_XPU(X)
#define VENDOR_RULE_PROBES_SDAA(X)
/* src/comm/hccl/README.md, "Vendor rules we rely on" (rules/comm_hccl.c) */
#define VENDOR_RULE_PROBES_COMM_HCCL(X)                                                            \
    X(comm_hccl, "H1", probe_comm_hccl_h1_null_stream_refused,                                     \
      "HcclAllReduce refuses ACL's NULL stream (HCCL_E_PTR): accel passes a created one")          \
    X(comm_hccl, "H2", probe_comm_hccl_h2_small_unsigned_reductions_refused,                       \
      "HCCL refuses UINT8 reductions (HCCL_E_NOT_SUPPORT), as accel does before it")               \
    X(comm_hccl, "H3", probe_comm_hccl_h3_fp64_reductions_on_950,                                  \
      "HCCL reduces FP64 on Ascend 950 only, the one SoC where accel allows it")                   \
    X(comm_hccl, "H4", probe_comm_hccl_h4_prod_types,                                              \
      "HCCL refuses PROD of BFP16 and runs it on FP32")                                            \
    X(comm_hccl, "H5", probe_comm_hccl_h5_send_recv_pairwise,                                      \
      "HcclSend/HcclRecv block pairwise (not observable: skipped)")                                \
    X(comm_hccl, "H6", probe_comm_hccl_h6_group_calls,                                             \
      "a grouped ring of sends and receives runs: the group calls are found (libhcomm.so)")        \
    X(comm_hccl, "H7", probe_comm_hccl_h7_root_info_needs_device,                                  \
      "HcclGetRootInfo fails on a thread with no ACL device, so accel sets the device first")      \
    X(comm_hccl, "H8", probe_comm_hccl_h8_reduction_alignment,                                     \
      "HCCL refuses FP32 reduction buffers off their alignment (accel passes them through)")
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
