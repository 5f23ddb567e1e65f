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
/* src/backends/cuda/README.md, "Vendor rules we rely on" (rules/cuda.c) */
#define VENDOR_RULE_PROBES_CUDA(X)                                                                 \
    X(cuda, "CAP-ADDR", probe_cuda_capture_addresses,                                              \
      "a graph replay writes the addresses its capture saw, so memory freed after the capture "    \
      "must not be handed out while the graph lives")                                              \
    X(cuda, "CAP-QUERY-CAPTURED", probe_cuda_captured_event_query,                                 \
      "an event recorded in a RELAXED capture cannot be queried (907), so accel polls no event "   \
      "while a capture is underway")                                                               \
    X(cuda, "CAP-JOIN", probe_cuda_side_stream_joins,                                              \
      "a stream that waits on a capture's event joins the capture, so an end-of-life record "      \
      "there could never be queried")                                                              \
    X(cuda, "CAP-SYNC-CTX", probe_cuda_no_context_sync_in_capture,                                 \
      "cuCtxSynchronize fails (900) while a stream of the context captures, so accel refuses a "   \
      "device synchronize then")                                                                   \
    X(cuda, "CAP-FREE", probe_cuda_free_in_relaxed_capture,                                        \
      "cuMemFree is refused in a GLOBAL capture and permitted in the RELAXED captures accel "      \
      "makes")                                                                                     \
    X(cuda, "CAP-LEGACY", probe_cuda_legacy_stream_in_capture,                                     \
      "the legacy stream cannot be captured and its work fails beside a blocking stream's "        \
      "capture (906), so accel uses non-blocking streams")                                         \
    X(cuda, "CU-STUB", probe_cuda_not_the_stub,                                                    \
      "the libcuda loaded is a driver, not the CUDA toolkit's stub that answers every call with "  \
      "error 34")
/* src/backends/mlu/README.md, "Vendor rules we rely on" (rules/mlu.c) */
#define VENDOR_RULE_PROBES_MLU(X)                                                                  \
    X(mlu, "CNRT-XDEV", probe_mlu_notifier_own_device,                                             \
      "a notifier is placed and waited for only on queues of its own device, so accel refuses "    \
      "cross-device waits")                                                                        \
    X(mlu, "CNRT-H2H", probe_mlu_host_to_host_on_queue,                                            \
      "a host-to-host cnrtMemcpyAsync is refused at the call or copies, never taken and lost")     \
    X(mlu, "CNRT-UNITS", probe_mlu_notifier_time_units,                                            \
      "cnrtNotifierElapsedTime is in ms and cnrtNotifierDuration in us, the units accel converts " \
      "from")                                                                                      \
    X(mlu, "CNRT-CAP-QUERY", probe_mlu_no_query_in_capture,                                        \
      "a notifier query while a queue of the device captures is refused, so accel polls none "     \
      "then")                                                                                      \
    X(mlu, "CNRT-CAP-JOIN", probe_mlu_waiting_queue_joins,                                         \
      "a queue that waits on a captured notifier joins the capture, so its later work is "         \
      "captured, not run")                                                                         \
    X(mlu, "CNRT-CAP-ADDR", probe_mlu_capture_addresses,                                           \
      "a replayed topology writes the addresses its capture saw, so memory freed after the "       \
      "capture must not be handed out while the graph lives")                                      \
    X(mlu, "CNRT-CAP-RELAXED", probe_mlu_relaxed_capture,                                          \
      "a created queue captures in Relaxed mode, the mode accel asks for")                         \
    X(mlu, "CNRT-HOSTMALLOC0", probe_mlu_host_malloc_zero,                                         \
      "cnrtHostMalloc of 0 bytes gives NULL, as accel's host allocation of 0 bytes does")
/* src/backends/hpu/README.md, "Vendor rules we rely on" (rules/hpu.c) */
#define VENDOR_RULE_PROBES_HPU(X)                                                                  \
    X(hpu, "SYN-WAIT", probe_hpu_wait_orders_streams,                                              \
      "synStreamWaitEvent orders a stream after another stream's event on the same device, which " \
      "accel_stream_wait_event relies on")                                                         \
    X(hpu, "SYN-DESTROY-BUSY", probe_hpu_stream_destroy_busy,                                      \
      "synStreamDestroy of a stream with pending work answers synBusy and never returns while "    \
      "the work still runs")                                                                       \
    X(hpu, "SYN-EVENT-DESTROY", probe_hpu_event_destroy_early,                                     \
      "synEventDestroy may run before the event completes, so accel destroys events at once")      \
    X(hpu, "SYN-ELAPSED-NS", probe_hpu_elapsed_in_ns,                                              \
      "synEventElapsedTime is in nanoseconds, which accel divides by 1e6 for milliseconds")        \
    X(hpu, "SYN-DMA-HOST", probe_hpu_dma_from_mapped_memory,                                       \
      "DMA reaches synHostMalloc and synHostMap memory, which accel stages pageable copies in "    \
      "and pins with")
/* src/backends/xpu/README.md, "Vendor rules we rely on" (rules/xpu.c) */
#define VENDOR_RULE_PROBES_XPU(X)                                                                  \
    X(xpu, "ZE-ORDER", probe_xpu_barrier_orders,                                                   \
      "a barrier with no wait events runs after every earlier command, so a stream waiting on an " \
      "event recorded after a copy sees the copy")                                                 \
    X(xpu, "ZE-TS-UNDEF", probe_xpu_timestamps_defined,                                            \
      "kernel timestamps of barrier-signalled events are defined, so accel's elapsed time lies "   \
      "within what the host saw")                                                                  \
    X(xpu, "ZE-TS-UNITS", probe_xpu_timer_resolution_units,                                        \
      "timerResolution is ns per tick with the 1.0 stype and ticks per second with the 1.2 one")   \
    X(xpu, "ZE-TS-WRAP", probe_xpu_timestamp_wrap,                                                 \
      "kernel timestamps wrap at kernelTimestampValidBits, which accel masks an interval with")    \
    X(xpu, "ZE-POOL-DEV", probe_xpu_event_across_devices,                                          \
      "an event is used only on devices its pool was made for, and accel's pools serve every "     \
      "device, so a cross-device wait holds")                                                      \
    X(xpu, "ZE-DESTROY-LIVE", probe_xpu_destroy_while_queued,                                      \
      "no event is destroyed while the device may name it, so an event accel destroys behind "     \
      "queued work leaves the stream working")                                                     \
    X(xpu, "ZE-VPU", probe_xpu_gpu_only,                                                           \
      "zeInit(ZE_INIT_FLAG_GPU_ONLY) keeps non-GPU drivers out, and accel shows exactly the GPUs " \
      "listed")
/* src/backends/sdaa/README.md, "Vendor rules we rely on" (rules/sdaa.c) */
#define VENDOR_RULE_PROBES_SDAA(X)                                                                 \
    X(sdaa, "SDAA-EVFLAGS", probe_sdaa_plain_events_time,                                          \
      "events from plain sdaaEventCreate time in milliseconds, as accel's timing events need")     \
    X(sdaa, "SDAA-EVDESTROY", probe_sdaa_event_completes_before_destroy,                           \
      "sdaaEventQuery says complete once the record ran, so accel's deferred sdaaEventDestroy "    \
      "runs")                                                                                      \
    X(sdaa, "SDAA-NOTREADY", probe_sdaa_not_ready_is_600,                                          \
      "event and stream queries answer 600 for not yet, and it is not sticky")                     \
    X(sdaa, "SDAA-CALLBACK", probe_sdaa_stream_waits_for_callback,                                 \
      "work queued after sdaaStreamAddCallback waits for the callback to return, as accel's "      \
      "callbacks need")                                                                            \
    X(sdaa, "SDAA-H2H", probe_sdaa_host_to_host_on_stream,                                         \
      "a host-to-host sdaaMemcpyAsync is refused at the call or copies, never taken and lost")     \
    X(sdaa, "SDAA-PAGEABLE", probe_sdaa_pageable_source_read_at_call,                              \
      "an async copy from pageable memory reads the source before returning, since accel passes "  \
      "such copies through")
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
/* src/comm/nccl/README.md, "Vendor rules we rely on" (rules/comm_nccl.c) */
#define VENDOR_RULE_PROBES_COMM_NCCL(X)                                                            \
    X(comm_nccl, "CCL-NCCL-COMMID", probe_comm_nccl_unique_id_echoes_address,                      \
      "with NCCL_COMM_ID set, ncclGetUniqueId only encodes that address, so every rank gets the "  \
      "same id")                                                                                   \
    X(comm_nccl, "CCL-NCCL-ROOT", probe_comm_nccl_one_root_per_address,                            \
      "rank 0's ncclCommInitRank binds NCCL_COMM_ID's address, one root per address, so splits "   \
      "make no ids through it")                                                                    \
    X(comm_nccl, "NCCL-SPLIT", probe_comm_nccl_split,                                              \
      "ncclCommSplit splits over the parent's bootstrap and NCCL_SPLIT_NOCOLOR gives no "          \
      "communicator, as accel_comm_split needs")                                                   \
    X(comm_nccl, "NCCL-VERSIONS", probe_comm_nccl_versions,                                        \
      "ncclAvg (2.10), ncclGetLastError (2.13) and ncclCommFinalize (2.14) are there when the "    \
      "version says so")
/* src/comm/cncl/README.md, "Vendor rules we rely on" (rules/comm_cncl.c) */
#define VENDOR_RULE_PROBES_COMM_CNCL(X)                                                            \
    X(comm_cncl, "CNCL-CLIQUE", probe_comm_cncl_clique_from_rank0,                                 \
      "a clique id made on rank 0 and sent to the others makes one communicator, which reduces")   \
    X(comm_cncl, "CNCL-DEV", probe_comm_cncl_one_comm_on_thread_device,                            \
      "cnclInitComms of one communicator on the thread's CNRT device makes it, on that device")    \
    X(comm_cncl, "CNCL-TYPES", probe_comm_cncl_no_average,                                         \
      "CNCL refuses NCCL's average code: accel emulates the average")                              \
    X(comm_cncl, "CNCL-GROUPS", probe_comm_cncl_groups,                                            \
      "a grouped ring of sends and receives runs, or is refused (UNSUPPORTED) where CNCL has no "  \
      "group calls")
/* src/comm/habana_hccl/README.md, "Vendor rules we rely on"
 * (rules/comm_habana_hccl.c) */
#define VENDOR_RULE_PROBES_COMM_HABANA_HCCL(X)                                                     \
    X(comm_habana_hccl, "R1", probe_comm_habana_hccl_r1_later_ids_fresh,                           \
      "after a communicator, hcclGetUniqueId with HCCL_COMM_ID set gives a fresh id per call")     \
    X(comm_habana_hccl, "R2", probe_comm_habana_hccl_r2_coordinator_address,                       \
      "the coordinator binds HCCL_COMM_ID's local address once (a first call: skipped)")           \
    X(comm_habana_hccl, "R3", probe_comm_habana_hccl_r3_first_init_replaces_id,                    \
      "a process's first init with HCCL_COMM_ID set replaces the id (a first call: skipped)")      \
    X(comm_habana_hccl, "R4", probe_comm_habana_hccl_r4_later_init_needs_length,                   \
      "a later hcclCommInitRank refuses an id whose length is 0")                                  \
    X(comm_habana_hccl, "HCL-OPS", probe_comm_habana_hccl_op_numbering,                            \
      "min (2), max (3) and average (4) all-reduces give the right values")
#define VENDOR_RULE_PROBES_COMM_ONECCL(X)
/* src/comm/tccl/README.md, "Vendor rules we rely on" (rules/comm_tccl.c) */
#define VENDOR_RULE_PROBES_COMM_TCCL(X)                                                            \
    X(comm_tccl, "TCCL-DEV", probe_comm_tccl_dev_comm_on_thread_device,                            \
      "tcclCommInitRank makes a communicator of the thread's SDAA device, and a call with that "   \
      "device current runs")                                                                       \
    X(comm_tccl, "TCCL-OVERLAP", probe_comm_tccl_overlap_in_place,                                 \
      "NCCL's in-place layouts run: an all-reduce with send == recv, an all-gather from this "     \
      "rank's block of recv")                                                                      \
    X(comm_tccl, "TCCL-NCCL-PARAMS", probe_comm_tccl_nccl_parameters,                              \
      "tcclReduce and tcclSend/tcclRecv take NCCL's parameters: a MAX reduce onto rank 0 and a "   \
      "send from rank 1 arrive")                                                                   \
    X(comm_tccl, "TCCL-GROUPS", probe_comm_tccl_groups,                                            \
      "a grouped ring of sends and receives runs, or is refused (UNSUPPORTED) where TCCL has no "  \
      "group calls")

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
