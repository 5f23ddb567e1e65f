# npu_sim.cmake: the simulated libascendcl.so (this folder) and the npu
# backend's tests on it. Included by tests/sim/CMakeLists.txt, which calls
# accel_sim_register_npu() when the npu backend is built; it sets npu_sim_env
# (the environment that points the backend at the sim) for the CCL sims.
function(accel_sim_register_npu)
  # The simulated libascendcl.so. When CANN's headers were fetched before
  # configuring, the sim is compiled against them too, so its own functions
  # are checked against the real prototypes.
  set(ACCEL_CANN_HEADER_CACHE "$ENV{XDG_CACHE_HOME}")
  if(NOT ACCEL_CANN_HEADER_CACHE)
    set(ACCEL_CANN_HEADER_CACHE "$ENV{HOME}/.cache")
  endif()
  find_path(ACCEL_CANN_INCLUDE_DIR acl/acl_rt.h NO_DEFAULT_PATH
            HINTS ${ACCEL_CANN_HEADER_CACHE}/accel/headers/torch-npu/acl/inc
            DOC "CANN headers from the torch-npu wheel (scripts/fetch-vendor-headers.sh npu)")
  set(acl_sim_sources ascendcl/acl_sim_device.c ascendcl/acl_sim_stream.c)
  set(acl_sim_options INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/ascendcl)
  if(ACCEL_CANN_INCLUDE_DIR)
    list(APPEND acl_sim_options INCLUDES ${ACCEL_CANN_INCLUDE_DIR} DEFINITIONS ACL_SIM_REAL_HEADERS)
    message(STATUS "accel sim: libascendcl sim checked against ${ACCEL_CANN_INCLUDE_DIR}")
  endif()
  accel_sim_library(ascendcl_sim OUTPUT_NAME ascendcl SOURCES ${acl_sim_sources} ${acl_sim_options})
  # Older runtimes: one without the optional aclrtGetDeviceInfo, one without
  # the required aclrtLaunchCallback.
  accel_sim_library(ascendcl_sim_no_devinfo OUTPUT_NAME ascendcl SOURCES ${acl_sim_sources}
                    ${acl_sim_options} OMIT aclrtGetDeviceInfo)
  accel_sim_library(ascendcl_sim_no_callback OUTPUT_NAME ascendcl SOURCES ${acl_sim_sources}
                    ${acl_sim_options} OMIT aclrtLaunchCallback)
  # The backend's older-runtime paths (tests/sim/README.md, ascendcl rules):
  # before CANN 8.3.RC1 there is no aclrtLaunchHostFunc (callbacks go through
  # report threads) and before 8.0.0 no aclrtCreateEventExWithFlag (WithFlag
  # events with deferred destroy); "v6" also lacks aclrtQueryEventWaitStatus.
  accel_sim_library(ascendcl_sim_v7 OUTPUT_NAME ascendcl SOURCES ${acl_sim_sources}
                    ${acl_sim_options} OMIT aclrtLaunchHostFunc aclrtCreateEventExWithFlag)
  accel_sim_library(ascendcl_sim_v6 OUTPUT_NAME ascendcl SOURCES ${acl_sim_sources}
                    ${acl_sim_options} OMIT aclrtLaunchHostFunc aclrtCreateEventExWithFlag
                    aclrtQueryEventWaitStatus)
  # A runtime before CANN 8.5: no aclrtHostRegisterV2 (host_register is then
  # refused as unsupported).
  accel_sim_library(ascendcl_sim_no_register_v2 OUTPUT_NAME ascendcl SOURCES ${acl_sim_sources}
                    ${acl_sim_options} OMIT aclrtHostRegisterV2)
  set(ACCEL_NPU_SIM $<TARGET_FILE:ascendcl_sim>)
  set(npu_sim_env "ACCEL_PLUGIN_PATH=" "ACCEL_NPU_LIBRARY=${ACCEL_NPU_SIM}")
  set(npu_sim_env "${npu_sim_env}" PARENT_SCOPE)

  accel_sim_conformance(npu ${npu_sim_env})
  # A check that fails leaving a stream that never finishes (a host callback
  # that never returns) is a FAIL by name, not a HANG: the selftest's child
  # reports before closing the backend, which then waits for the stream
  # until the watchdog (3 s here) stops it (src/selftest/child.c); the check
  # after it still runs, in a new process.
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    add_test(NAME selftest.npu_sim_stuck_fail
             COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/check_selftest_json.py
                     $<TARGET_FILE:accel_cli> --backend npu
                     --expect selftest.stuck_fail_injected=FAIL
                     -- --only "selftest.*,conformance.status_names" --timeout 3)
    set_tests_properties(selftest.npu_sim_stuck_fail PROPERTIES LABELS "selftest"
                         ENVIRONMENT "${npu_sim_env};ACCEL_SELFTEST_INJECT=stuck_fail")
  endif()
  # The same suite on a CANN 7.x-like runtime: report threads, WithFlag events.
  set(npu_sim_v7_env "ACCEL_PLUGIN_PATH=" "ACCEL_NPU_LIBRARY=$<TARGET_FILE:ascendcl_sim_v7>")
  add_test(NAME conformance.npu_sim_v7 COMMAND conformance npu)
  add_test(NAME conformance_threads.npu_sim_v7 COMMAND conformance_threads npu)
  set_tests_properties(conformance.npu_sim_v7 conformance_threads.npu_sim_v7 PROPERTIES
                       LABELS "conformance" ENVIRONMENT "${npu_sim_v7_env}")
  # Every ACL call site of the backend made to fail, and what follows.
  accel_sim_fault_test(npu ENVIRONMENT ${npu_sim_env}
                       DEPENDS ascendcl_sim ascendcl_sim_no_devinfo ascendcl_sim_no_callback
                       ascendcl_sim_v7 ascendcl_sim_no_register_v2)
  # The fault test again on the report-thread and WithFlag-event call sites.
  add_test(NAME npu.faults_v7 COMMAND test_npu_faults)
  set_tests_properties(npu.faults_v7 PROPERTIES LABELS "unit" ENVIRONMENT "${npu_sim_v7_env}")
  add_dependencies(accel_cli ascendcl_sim ascendcl_sim_no_devinfo ascendcl_sim_no_callback
                   ascendcl_sim_v7 ascendcl_sim_v6 ascendcl_sim_no_register_v2)

  # The vendor rules of the ascendcl sim the streams, callbacks and events
  # rely on, on the current runtime and on the two older ones.
  add_executable(test_npu_streams ascendcl/test_npu_streams.c)
  target_compile_definitions(test_npu_streams PRIVATE _GNU_SOURCE)
  target_include_directories(test_npu_streams PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(test_npu_streams PRIVATE accel PkgConfig::CMOCKA accel_warnings
                        ${CMAKE_DL_LIBS})
  add_dependencies(test_npu_streams ascendcl_sim ascendcl_sim_v7 ascendcl_sim_v6)
  foreach(variant sim sim_v7 sim_v6)
    add_test(NAME npu.stream_rules_${variant} COMMAND test_npu_streams)
    set_tests_properties(npu.stream_rules_${variant} PROPERTIES LABELS "unit" TIMEOUT 120 ENVIRONMENT
      "ACCEL_PLUGIN_PATH=;ACCEL_NPU_LIBRARY=$<TARGET_FILE:ascendcl_${variant}>;ACCEL_SIM_ACL_EVENT_LIMIT=16")
  endforeach()

  # The ACL rules the backend depends on (README rule table M1, M2, M7-M9):
  # the sim refuses each violation and the backend's slots never make one;
  # again with slow streams (stream order of the H2H copy), and on a runtime
  # without aclrtHostRegisterV2.
  add_executable(test_npu_rules ${CMAKE_CURRENT_SOURCE_DIR}/test_npu_rules.c)
  target_compile_definitions(test_npu_rules PRIVATE _GNU_SOURCE)
  target_link_libraries(test_npu_rules PRIVATE accel PkgConfig::CMOCKA accel_warnings
                        ${CMAKE_DL_LIBS})
  add_dependencies(test_npu_rules ascendcl_sim ascendcl_sim_no_register_v2)
  add_test(NAME npu.sim_rules COMMAND test_npu_rules)
  add_test(NAME npu.sim_rules_slow_streams COMMAND test_npu_rules)
  add_test(NAME npu.sim_rules_no_register_v2 COMMAND test_npu_rules)
  set_tests_properties(npu.sim_rules PROPERTIES LABELS "unit" ENVIRONMENT "${npu_sim_env}")
  set_tests_properties(npu.sim_rules_slow_streams PROPERTIES LABELS "unit"
                       ENVIRONMENT "${npu_sim_env};ACCEL_SIM_STREAM_DELAY_US=2000")
  set_tests_properties(npu.sim_rules_no_register_v2 PROPERTIES LABELS "unit" ENVIRONMENT
    "ACCEL_PLUGIN_PATH=;ACCEL_NPU_LIBRARY=$<TARGET_FILE:ascendcl_sim_no_register_v2>;ACCEL_TEST_NO_REGISTER_V2=1")
  # M3: the whole conformance suite on a runtime that refuses async copies
  # with pageable host memory (CANN 8.0.RC3 and older call them
  # unpredictable), with slow streams (the synchronous path keeps order).
  add_test(NAME conformance.npu_sim_pageable_refused COMMAND conformance npu)
  set_tests_properties(conformance.npu_sim_pageable_refused PROPERTIES LABELS "conformance"
    TIMEOUT 300 ENVIRONMENT "${npu_sim_env};ACCEL_SIM_ACL_PAGEABLE=refuse;ACCEL_SIM_STREAM_DELAY_US=200")

  # The CLI on the sim: the report names the simulated devices and where they
  # came from; the demo runs. Then the runtime's other faces: absent, no
  # device, a runtime that counts only after aclInit, one without an
  # optional symbol and one without a required symbol.
  set(npu_cli sh ${CMAKE_CURRENT_SOURCE_DIR}/npu_cli.sh)
  add_test(NAME npu.sim_report COMMAND ${npu_cli} report $<TARGET_FILE:accel_cli>
           "npu (override)" "Ascend910B1" "hccl" "ASCEND_RT_VISIBLE_DEVICES"
           "ASCEND, HCCL, LD_LIBRARY, PATH" "aclrtGetDeviceCount from ${ACCEL_NPU_SIM}"
           "never run on Ascend hardware" "device count .................... 2")
  add_test(NAME npu.sim_demo COMMAND ${npu_cli} demo $<TARGET_FILE:accel_cli>)
  set_tests_properties(npu.sim_report npu.sim_demo PROPERTIES LABELS "cli"
                       ENVIRONMENT "${npu_sim_env};ACCEL_ACCELERATOR=npu")
  add_test(NAME npu.sim_missing COMMAND ${npu_cli} cascade $<TARGET_FILE:accel_cli>
           "ACCEL_NPU_LIBRARY: /nonexistent/libascendcl.so"
           "/nonexistent-ascend/lib64/libascendcl.so" "libascendcl.so:")
  # Short paths: the probe's reason (256 bytes) must hold all three.
  set_tests_properties(npu.sim_missing PROPERTIES LABELS "cli" ENVIRONMENT
    "ACCEL_PLUGIN_PATH=;ACCEL_NPU_LIBRARY=/nonexistent/libascendcl.so;ASCEND_HOME_PATH=/nonexistent-ascend")
  accel_sim_cli(npu.sim_no_device cascade "reports no Ascend device"
    ENVIRONMENT "${npu_sim_env};ACCEL_SIM_DEVICES=0")
  # Three driver device nodes (plain files will do: only names are read).
  set(npu_dev_dir ${CMAKE_CURRENT_BINARY_DIR}/fake-dev)
  file(MAKE_DIRECTORY ${npu_dev_dir})
  file(TOUCH ${npu_dev_dir}/davinci0 ${npu_dev_dir}/davinci1 ${npu_dev_dir}/davinci2
       ${npu_dev_dir}/davinci_manager)
  # (a ';' in an expected text cannot pass through accel_sim_cli's list)
  add_test(NAME npu.sim_count_after_init COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/npu_cli.sh report
           $<TARGET_FILE:accel_cli>
           "will not count devices before aclInit; counted 3 ${npu_dev_dir}/davinci<N>"
           "device count .................... 3")
  set_tests_properties(npu.sim_count_after_init PROPERTIES LABELS "cli" ENVIRONMENT
    "${npu_sim_env};ACCEL_ACCELERATOR=npu;ACCEL_SIM_ACL_COUNT_NEEDS_INIT=1;ACCEL_SIM_DEVICES=3;ACCEL_NPU_DEVICE_DIR=${npu_dev_dir}")
  # ASCEND_RT_VISIBLE_DEVICES: applied by the runtime, and by the backend
  # itself when it counts device nodes (ascending ids, up to the first bad one).
  accel_sim_cli(npu.sim_visible_devices report "device count .................... 2"
    ENVIRONMENT "${npu_sim_env};ACCEL_ACCELERATOR=npu;ACCEL_SIM_DEVICES=4;ASCEND_RT_VISIBLE_DEVICES=1,3")
  accel_sim_cli(npu.sim_visible_device_nodes report "counted 2 ${npu_dev_dir}/davinci<N>"
                "device count .................... 2"
    ENVIRONMENT "${npu_sim_env};ACCEL_ACCELERATOR=npu;ACCEL_SIM_ACL_COUNT_NEEDS_INIT=1;ACCEL_SIM_DEVICES=3;ACCEL_NPU_DEVICE_DIR=${npu_dev_dir};ASCEND_RT_VISIBLE_DEVICES=0,2,1")
  accel_sim_cli(npu.sim_no_devinfo report "total memory .................. 512.00 MB"
    ENVIRONMENT "ACCEL_PLUGIN_PATH=;ACCEL_ACCELERATOR=npu;ACCEL_SIM_DEVICE_MEMORY=512M;ACCEL_NPU_LIBRARY=$<TARGET_FILE:ascendcl_sim_no_devinfo>")
  accel_sim_cli(npu.sim_no_callback cascade "lacks aclrtLaunchCallback"
    ENVIRONMENT "ACCEL_PLUGIN_PATH=;ACCEL_NPU_LIBRARY=$<TARGET_FILE:ascendcl_sim_no_callback>")
endfunction()
