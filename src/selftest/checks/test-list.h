/* test-list.h: the index of what accel promises, one line per test (libuv's
 * test-list idea). CONFORMANCE_TESTS runs in `conformance <backend>`,
 * CONFORMANCE_THREAD_TESTS in `conformance_threads <backend>`. */
#ifndef ACCEL_CONFORMANCE_TEST_LIST_H
#define ACCEL_CONFORMANCE_TEST_LIST_H

#define CONFORMANCE_TESTS(X)                                                                       \
    /* status codes, version, last error */                                                        \
    X(test_status_names)                                                                           \
    X(test_status_name_unknown_not_null)                                                           \
    X(test_status_version)                                                                         \
    X(test_status_last_error_names_failure)                                                        \
    X(test_status_vendor_error_zero_for_argument_error)                                            \
    X(test_status_last_error_thread_local)                                                         \
    /* accel_get / set / open / close, detect, supported names, registration */                    \
    X(test_selection_supported_names_shape)                                                        \
    X(test_selection_get_returns_supported_name)                                                   \
    X(test_selection_get_is_cached)                                                                \
    X(test_selection_get_null_out)                                                                 \
    X(test_selection_get_method)                                                                   \
    X(test_selection_method_explicit)                                                              \
    X(test_selection_open_unknown_name)                                                            \
    X(test_selection_open_null_arguments)                                                          \
    X(test_selection_open_again_is_independent)                                                    \
    X(test_selection_close_null)                                                                   \
    X(test_selection_close_process_wide_refused)                                                   \
    X(test_selection_set_null)                                                                     \
    X(test_selection_set_replaces_process_wide)                                                    \
    X(test_selection_detect_cpu_last)                                                              \
    X(test_selection_detect_truncates)                                                             \
    X(test_selection_detect_null_count)                                                            \
    X(test_selection_register_null)                                                                \
    /* identity and flags: names, device strings, flags, comm and compile backends */              \
    X(test_identity_name_matches_opened)                                                           \
    X(test_identity_name_null_handle)                                                              \
    X(test_identity_device_name_bare)                                                              \
    X(test_identity_device_name_indexed)                                                           \
    X(test_identity_current_device_name_consistent)                                                \
    X(test_identity_device_name_small_buffer)                                                      \
    X(test_identity_device_name_exact_fit)                                                         \
    X(test_identity_device_name_null_arguments)                                                    \
    X(test_identity_flags_all_queryable)                                                           \
    X(test_identity_flag_names_follow_deepspeed)                                                   \
    X(test_identity_is_available)                                                                  \
    X(test_identity_flag_bad_arguments)                                                            \
    X(test_identity_communication_backend)                                                         \
    X(test_identity_communication_backend_null_arguments)                                          \
    X(test_identity_communication_backend_version)                                                 \
    X(test_identity_compile_backend_default)                                                       \
    X(test_identity_compile_backend_set_current)                                                   \
    X(test_identity_compile_backend_refused)                                                       \
    X(test_identity_compile_backend_null_arguments)                                                \
    /* devices: count, per-thread current device, synchronize, properties */                       \
    X(test_devices_count_positive)                                                                 \
    X(test_devices_count_null_arguments)                                                           \
    X(test_devices_set_and_current)                                                                \
    X(test_devices_set_out_of_range)                                                               \
    X(test_devices_current_null_arguments)                                                         \
    X(test_devices_current_is_per_thread)                                                          \
    X(test_devices_synchronize)                                                                    \
    X(test_devices_synchronize_bad_arguments)                                                      \
    X(test_devices_properties)                                                                     \
    X(test_devices_properties_current_device)                                                      \
    X(test_devices_properties_bad_arguments)                                                       \
    /* random numbers: Philox bits, seeding, state blob, fills */                                  \
    X(test_rng_philox_known_answer)                                                                \
    X(test_rng_consecutive_fills_differ)                                                           \
    X(test_rng_reseed_repeats)                                                                     \
    X(test_rng_different_seeds_differ)                                                             \
    X(test_rng_state_blob_layout)                                                                  \
    X(test_rng_state_round_trip)                                                                   \
    X(test_rng_fills_continue_the_stream)                                                          \
    X(test_rng_normal_consumes_two_words)                                                          \
    X(test_rng_uniform_in_unit_interval)                                                           \
    X(test_rng_uniform_matches_u32_bits)                                                           \
    X(test_rng_normal_matches_box_muller)                                                          \
    X(test_rng_normal_moments)                                                                     \
    X(test_rng_initial_seed)                                                                       \
    X(test_rng_manual_seed_all)                                                                    \
    X(test_rng_seed_from_entropy)                                                                  \
    X(test_rng_seed_null_arguments)                                                                \
    X(test_rng_per_device_state)                                                                   \
    X(test_rng_get_state_bad_arguments)                                                            \
    X(test_rng_set_state_wrong_size)                                                               \
    X(test_rng_set_state_bad_arguments)                                                            \
    X(test_rng_fill_outside_allocation)                                                            \
    X(test_rng_fill_null_arguments)                                                                \
    X(test_rng_fill_after_freed_refused)                                                           \
    X(test_rng_fill_on_created_stream)                                                             \
    X(test_rng_fill_offset_wrap_refused)                                                           \
    X(test_rng_fill_misaligned_refused)                                                            \
    /* streams: lifetime, ordering, query, wait_event, callbacks, current stream */                \
    X(test_streams_create_destroy)                                                                 \
    X(test_streams_unsupported_create_refused)                                                     \
    X(test_streams_create_priorities)                                                              \
    X(test_streams_create_bad_arguments)                                                           \
    X(test_streams_null_handle)                                                                    \
    X(test_streams_default_stream_stable)                                                          \
    X(test_streams_default_not_destroyable)                                                        \
    X(test_streams_default_bad_arguments)                                                          \
    X(test_streams_device)                                                                         \
    X(test_streams_ordering_memset_memcpy_callback)                                                \
    X(test_streams_query_not_ready_while_blocked)                                                  \
    X(test_streams_destroy_waits_for_work)                                                         \
    X(test_streams_wait_event_across_streams)                                                      \
    X(test_streams_wait_event_null)                                                                \
    X(test_streams_callback_runs)                                                                  \
    X(test_streams_callback_null_fn)                                                               \
    X(test_streams_set_current_and_restore)                                                        \
    X(test_streams_current_is_per_thread)                                                          \
    X(test_streams_work_on_current_stream)                                                         \
    /* host callbacks that would wait for themselves are refused */                                \
    X(test_callbacks_synchronize_device_refused)                                                   \
    X(test_callbacks_synchronize_own_stream_refused)                                               \
    X(test_callbacks_destroy_own_stream_refused)                                                   \
    X(test_callbacks_empty_cache_refused)                                                          \
    /* handles: destroyed handles refused, the accel_close rule */                                 \
    X(test_handles_destroyed_stream_refused)                                                       \
    X(test_handles_destroyed_event_refused)                                                        \
    X(test_handles_destroyed_graph_refused)                                                        \
    X(test_handles_close_with_live_handles_refused)                                                \
    /* events: record, query, synchronize, elapsed time */                                         \
    X(test_events_create_destroy)                                                                  \
    X(test_events_unsupported_create_refused)                                                      \
    X(test_events_create_bad_arguments)                                                            \
    X(test_events_null_handle)                                                                     \
    X(test_events_query_unrecorded)                                                                \
    X(test_events_record_on_current_stream)                                                        \
    X(test_events_query_not_ready_while_blocked)                                                   \
    X(test_events_rerecord_refers_to_new_record)                                                   \
    X(test_events_elapsed_timing)                                                                  \
    X(test_events_elapsed_needs_timing)                                                            \
    X(test_events_elapsed_null_out)                                                                \
    X(test_events_elapsed_never_recorded)                                                          \
    /* device memory: malloc/free (+ async), memcpy, memset, range checks */                       \
    X(test_memory_malloc_free)                                                                     \
    X(test_memory_malloc_zero)                                                                     \
    X(test_memory_malloc_bad_arguments)                                                            \
    X(test_memory_malloc_too_large)                                                                \
    X(test_memory_free_null_is_noop)                                                               \
    X(test_memory_free_twice_refused)                                                              \
    X(test_memory_free_foreign_refused)                                                            \
    X(test_memory_free_interior_refused)                                                           \
    X(test_memory_copy_round_trip_offsets)                                                         \
    X(test_memory_copy_between_allocations)                                                        \
    X(test_memory_copy_host_to_host)                                                               \
    X(test_memory_copy_zero_bytes)                                                                 \
    X(test_memory_copy_overflow_refused)                                                           \
    X(test_memory_copy_unallocated_refused)                                                        \
    X(test_memory_copy_bad_arguments)                                                              \
    X(test_memory_memset)                                                                          \
    X(test_memory_memset_overflow_refused)                                                         \
    X(test_memory_async_round_trip)                                                                \
    X(test_memory_async_bad_arguments)                                                             \
    X(test_memory_device_memory_as_host)                                                           \
    /* allocator statistics, empty_cache, total/available memory */                                \
    X(test_memory_stats_allocated_follows_malloc)                                                  \
    X(test_memory_stats_peak_and_reset_allocated)                                                  \
    X(test_memory_stats_peak_and_reset_reserved)                                                   \
    X(test_memory_stats_legacy_cached_names)                                                       \
    X(test_memory_stats_reset_peaks)                                                               \
    X(test_memory_stats_reset_max_resets_every_peak)                                               \
    X(test_memory_stats_struct_matches_getters)                                                    \
    X(test_memory_stats_entries_torch_keys)                                                        \
    X(test_memory_stats_entries_every_torch_key)                                                   \
    X(test_memory_stats_entry_past_end)                                                            \
    X(test_memory_stats_entry_bad_arguments)                                                       \
    X(test_memory_stats_bad_arguments)                                                             \
    X(test_memory_stats_empty_cache)                                                               \
    X(test_memory_stats_empty_cache_skips_blocked_callback)                                        \
    X(test_memory_stats_empty_cache_waits_for_freed_blocks)                                        \
    X(test_memory_stats_total_and_available)                                                       \
    /* pinned host memory: host_alloc/free, register/unregister, is_pinned */                      \
    X(test_pinned_host_alloc_free)                                                                 \
    X(test_pinned_host_alloc_bad_arguments)                                                        \
    X(test_pinned_host_free_unpinned_refused)                                                      \
    X(test_pinned_host_free_twice_refused)                                                         \
    X(test_pinned_host_free_interior_refused)                                                      \
    X(test_pinned_register_unregister)                                                             \
    X(test_pinned_registered_copy)                                                                 \
    X(test_pinned_register_bad_arguments)                                                          \
    X(test_pinned_unregister_unknown_refused)                                                      \
    X(test_pinned_is_pinned_plain_memory)                                                          \
    X(test_pinned_pin_memory_shape_copy_unpin)                                                     \
    X(test_pinned_pin_memory_accounting)                                                           \
    X(test_pinned_pin_memory_bad_arguments)                                                        \
    /* dtypes: supported list, flags, names, DLPack types */                                       \
    X(test_dtypes_supported_starts_with_f32)                                                       \
    X(test_dtypes_supported_truncates)                                                             \
    X(test_dtypes_supported_bad_arguments)                                                         \
    X(test_dtypes_flags_match_list)                                                                \
    X(test_dtypes_names)                                                                           \
    X(test_dtypes_to_dlpack)                                                                       \
    X(test_dtypes_to_dlpack_bad_arguments)                                                         \
    X(test_dtypes_dlpack_device_type)                                                              \
    /* tensors: empty/zeros, shape ownership, free, on_accelerator */                              \
    X(test_tensors_empty_describes_tensor)                                                         \
    X(test_tensors_zeros_are_zero)                                                                 \
    X(test_tensors_from_host_holds_the_data)                                                       \
    X(test_tensors_from_host_bad_arguments)                                                        \
    X(test_tensors_every_supported_dtype)                                                          \
    X(test_tensors_free_releases_and_zeroes)                                                       \
    X(test_tensors_on_accelerator_own)                                                             \
    X(test_tensors_on_accelerator_other_device_type)                                               \
    X(test_tensors_on_accelerator_bad_arguments)                                                   \
    X(test_tensors_create_bad_arguments)                                                           \
    X(test_tensors_free_bad_arguments)                                                             \
    X(test_tensors_data_freed_only_with_tensor)                                                    \
    /* graphs: capture, replay, refusals */                                                        \
    X(test_graphs_unsupported_create_refused)                                                      \
    X(test_graphs_create_destroy)                                                                  \
    X(test_graphs_capture_replay_memset_memcpy)                                                    \
    X(test_graphs_replay_reads_current_data)                                                       \
    X(test_graphs_replay_runs_callbacks)                                                           \
    X(test_graphs_replay_on_other_stream)                                                          \
    X(test_graphs_default_stream_consistent)                                                       \
    X(test_graphs_replay_before_capture_refused)                                                   \
    X(test_graphs_null_arguments)                                                                  \
    X(test_graphs_destroy_capturing_stream_refused)                                                \
    X(test_graphs_free_during_capture_stays_reserved)                                              \
    X(test_graphs_free_async_during_capture_stays_reserved)                                        \
    X(test_graphs_capture_allocation_stays_private)                                                \
    X(test_graphs_capture_stream_allocation_stays_private)                                         \
    X(test_graphs_private_pool_released_on_destroy)                                                \
    X(test_graphs_shared_pool)                                                                     \
    X(test_graphs_shared_pool_bad_arguments)                                                       \
    X(test_graphs_sync_capturing_stream_refused)                                                   \
    X(test_graphs_sync_device_while_capturing_refused)                                             \
    X(test_graphs_destroy_while_other_captures_refused)                                            \
    X(test_graphs_side_stream_free_during_capture)                                                 \
    X(test_graphs_alloc_during_capture_queries_no_event)                                           \
    X(test_graphs_fill_elsewhere_during_capture)                                                   \
    /* profiling ranges */                                                                         \
    X(test_profiling_push_pop_nest)                                                                \
    X(test_profiling_pop_without_push)                                                             \
    X(test_profiling_bad_arguments)                                                                \
    X(test_profiling_ranges_per_thread)                                                            \
    /* lazy initialisation */                                                                      \
    X(test_lazy_call_runs_once)                                                                    \
    X(test_lazy_call_after_init_runs_now)                                                          \
    X(test_lazy_call_on_fresh_accelerator)                                                         \
    X(test_lazy_bad_arguments)                                                                     \
    /* op builders */                                                                              \
    X(test_op_builders_unknown_name)                                                               \
    X(test_op_builders_enumerate)                                                                  \
    X(test_op_builders_is_compatible_answers)                                                      \
    X(test_op_builders_load_cached)                                                                \
    X(test_op_builders_installed_and_implementation)                                               \
    X(test_op_builders_fused_adam_tensor_lists)                                                    \
    X(test_op_builders_fused_lion_tensor_lists)                                                    \
    X(test_op_builders_index_past_end)                                                             \
    X(test_op_builders_bad_arguments)                                                              \
    X(test_op_builders_optimizers_listed)                                                          \
    X(test_op_builders_optimizer_tables)                                                           \
    X(test_op_builders_fused_adam_matches_host)                                                    \
    X(test_op_builders_fused_lion_matches_host)                                                    \
    X(test_op_builders_fused_lamb_matches_host)                                                    \
    X(test_op_builders_fused_lamb_bad_input)                                                       \
    X(test_op_builders_async_io_device_round_trip)                                                 \
    X(test_op_builders_fused_adam_on_created_stream)                                               \
    X(test_op_builders_fused_adam_bad_input)                                                       \
    X(test_op_builders_fused_lion_bad_input)                                                       \
    X(test_op_builders_host_op_refuses_device_tensors)                                             \
    X(test_op_builders_host_op_refuses_relabelled_device_memory)                                   \
    /* launcher environment variables */                                                           \
    X(test_environment_visible_devices_envs)                                                       \
    X(test_environment_set_visible_through_setter)                                                 \
    X(test_environment_set_visible_single_and_empty)                                               \
    X(test_environment_set_visible_bad_arguments)                                                  \
    X(test_environment_setter_failure_reported)                                                    \
    X(test_environment_set_visible_process_env)                                                    \
    X(test_environment_export_envs)                                                                \
    X(test_environment_bad_arguments)                                                              \
    /* end */

#define CONFORMANCE_THREAD_TESTS(X)                                                                \
    X(test_threads_get_returns_one_pointer)                                                        \
    X(test_threads_malloc_free)                                                                    \
    X(test_threads_copy_round_trips)                                                               \
    X(test_threads_pinned_alloc_free)                                                              \
    X(test_threads_stream_shared_by_threads)                                                       \
    X(test_threads_stream_per_thread)                                                              \
    X(test_threads_event_waited_by_many)                                                           \
    X(test_threads_current_device_per_thread)                                                      \
    X(test_threads_last_error_per_thread)                                                          \
    X(test_threads_rng_offsets_disjoint)                                                           \
    /* end */

/* Every test is a check function (../check.h). */
#define CONFORMANCE_DECLARE(name) void name(void **state);
CONFORMANCE_TESTS(CONFORMANCE_DECLARE)
CONFORMANCE_THREAD_TESTS(CONFORMANCE_DECLARE)
#undef CONFORMANCE_DECLARE

#endif /* ACCEL_CONFORMANCE_TEST_LIST_H */
