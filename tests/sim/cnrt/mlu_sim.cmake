# mlu_sim.cmake: the simulated libcnrt.so and libcnpx.so (this folder) and the
# mlu backend's tests on them. Included by tests/sim/CMakeLists.txt, which
# calls accel_sim_register_mlu() when the mlu backend is built; it sets
# mlu_sim_env for the CCL sims.
function(accel_sim_register_mlu)
  # The simulated libcnrt.so and libcnpx.so, and older runtimes: one without
  # queue capture (no graphs); an "old" one without cnrtInvokeHostFunc
  # (emulated callbacks, hence no graphs either), cnrtNotifierElapsedTime
  # (hardware timing) and cnrtMemcpyAsync_V2 (the plain copy); one without
  # the required cnrtQueueCreate.
  set(cnrt_sim_sources cnrt/cnrt_sim_device.c cnrt/cnrt_sim_queue.c)
  set(cnrt_sim_options INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/cnrt)
  accel_sim_library(cnrt_sim OUTPUT_NAME cnrt SOURCES ${cnrt_sim_sources} ${cnrt_sim_options})
  accel_sim_library(cnrt_sim_no_capture OUTPUT_NAME cnrt SOURCES ${cnrt_sim_sources}
                    ${cnrt_sim_options} OMIT cnrtQueueBeginCapture)
  accel_sim_library(cnrt_sim_old OUTPUT_NAME cnrt SOURCES ${cnrt_sim_sources}
                    ${cnrt_sim_options} OMIT cnrtInvokeHostFunc cnrtNotifierElapsedTime
                    cnrtMemcpyAsync_V2)
  accel_sim_library(cnrt_sim_no_queue OUTPUT_NAME cnrt SOURCES ${cnrt_sim_sources}
                    ${cnrt_sim_options} OMIT cnrtQueueCreate)
  accel_sim_library(cnpx_sim OUTPUT_NAME cnpx SOURCES cnrt/cnpx_sim.c)
  set(mlu_sims cnrt_sim cnrt_sim_no_capture cnrt_sim_old cnrt_sim_no_queue cnpx_sim)
  set(ACCEL_MLU_SIM $<TARGET_FILE:cnrt_sim>)
  set(mlu_sim_env "ACCEL_PLUGIN_PATH=" "ACCEL_MLU_LIBRARY=${ACCEL_MLU_SIM}"
      "ACCEL_MLU_CNPX_LIBRARY=$<TARGET_FILE:cnpx_sim>")
  set(mlu_sim_env "${mlu_sim_env}" PARENT_SCOPE)

  # The conformance suite on the sim, on the older runtimes that change what
  # the backend does (emulated callbacks, no graphs), and with every queue
  # task started late.
  accel_sim_conformance(mlu ${mlu_sim_env})
  add_test(NAME conformance.mlu_sim_old_runtime COMMAND conformance mlu)
  set_tests_properties(conformance.mlu_sim_old_runtime PROPERTIES LABELS "conformance"
    ENVIRONMENT "ACCEL_PLUGIN_PATH=;ACCEL_MLU_LIBRARY=$<TARGET_FILE:cnrt_sim_old>")
  add_test(NAME conformance.mlu_sim_no_graphs COMMAND conformance mlu)
  set_tests_properties(conformance.mlu_sim_no_graphs PROPERTIES LABELS "conformance"
    ENVIRONMENT "ACCEL_PLUGIN_PATH=;ACCEL_MLU_LIBRARY=$<TARGET_FILE:cnrt_sim_no_capture>")

  # The sim's queue-capture rules, called directly (tests/sim/README.md,
  # the cnrt capture table).
  add_executable(test_cnrt_capture_rules cnrt/test_cnrt_capture_rules.c)
  target_compile_definitions(test_cnrt_capture_rules PRIVATE _GNU_SOURCE)
  target_include_directories(test_cnrt_capture_rules PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cnrt)
  target_link_libraries(test_cnrt_capture_rules PRIVATE cnrt_sim PkgConfig::CMOCKA accel_warnings)
  add_test(NAME mlu.sim_capture_rules COMMAND test_cnrt_capture_rules)
  set_tests_properties(mlu.sim_capture_rules PROPERTIES LABELS "unit")

  # Every CNRT call site of the backend made to fail, and what follows.
  accel_sim_fault_test(mlu ENVIRONMENT ${mlu_sim_env} DEPENDS ${mlu_sims})
  add_dependencies(accel_cli ${mlu_sims})
  # The call sites only an old runtime reaches (emulated callbacks, the
  # hardware timer, the plain copy), on cnrt_sim_old.
  add_test(NAME mlu.faults_old_runtime COMMAND test_mlu_faults old)
  set_tests_properties(mlu.faults_old_runtime PROPERTIES LABELS "unit" ENVIRONMENT
    "ACCEL_PLUGIN_PATH=;ACCEL_MLU_LIBRARY=$<TARGET_FILE:cnrt_sim_old>")

  # The vendor rules of the cnrt sim the backend relies on (tests/sim/README.md,
  # cnrt rules), on the current runtime and the old one, and with every queue
  # task started late.
  add_executable(test_mlu_rules cnrt/test_mlu_rules.c)
  target_compile_definitions(test_mlu_rules PRIVATE _GNU_SOURCE)
  target_include_directories(test_mlu_rules PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(test_mlu_rules PRIVATE accel PkgConfig::CMOCKA accel_warnings)
  add_dependencies(test_mlu_rules cnrt_sim cnrt_sim_old)
  add_test(NAME mlu.rules_sim COMMAND test_mlu_rules)
  add_test(NAME mlu.rules_sim_old COMMAND test_mlu_rules)
  add_test(NAME mlu.rules_sim_slow_streams COMMAND test_mlu_rules)
  set_tests_properties(mlu.rules_sim PROPERTIES LABELS "unit" ENVIRONMENT "${mlu_sim_env}")
  set_tests_properties(mlu.rules_sim_old PROPERTIES LABELS "unit" ENVIRONMENT
    "ACCEL_PLUGIN_PATH=;ACCEL_MLU_LIBRARY=$<TARGET_FILE:cnrt_sim_old>")
  set_tests_properties(mlu.rules_sim_slow_streams PROPERTIES LABELS "unit" ENVIRONMENT
    "${mlu_sim_env};ACCEL_SIM_STREAM_DELAY_US=2000")

  # The CLI on the sim (npu_cli.sh is backend-neutral): the report shows the
  # simulated devices and DeepSpeed's mlu values; the demo runs. Then the
  # runtime's other faces: absent, no device, no required symbol, no capture.
  set(mlu_cli sh ${CMAKE_CURRENT_SOURCE_DIR}/npu_cli.sh)
  add_test(NAME mlu.sim_report COMMAND ${mlu_cli} report $<TARGET_FILE:accel_cli>
           "mlu (override)" "MLU370-X8" "cncl" "MLU_VISIBLE_DEVICES"
           "NEUWARE_HOME, CNCL, LD_LIBRARY, PATH" "cnrtGetDeviceCount from ${ACCEL_MLU_SIM}"
           "never run on Cambricon hardware" "device count .................... 2")
  add_test(NAME mlu.sim_demo COMMAND ${mlu_cli} demo $<TARGET_FILE:accel_cli>)
  set_tests_properties(mlu.sim_report mlu.sim_demo PROPERTIES LABELS "cli"
                       ENVIRONMENT "${mlu_sim_env};ACCEL_ACCELERATOR=mlu")
  accel_sim_cli(mlu.sim_missing cascade "libcnrt.so" "Cambricon Neuware"
                "ACCEL_MLU_LIBRARY: /nonexistent/libcnrt.so" "/nonexistent-neuware/lib64/libcnrt.so"
                "libcnrt.so:"
    ENVIRONMENT "ACCEL_PLUGIN_PATH=;ACCEL_MLU_LIBRARY=/nonexistent/libcnrt.so;NEUWARE_HOME=/nonexistent-neuware")
  accel_sim_cli(mlu.sim_no_device cascade "reports no MLU device"
    ENVIRONMENT "${mlu_sim_env};ACCEL_SIM_DEVICES=0")
  accel_sim_cli(mlu.sim_visible_devices report "device count .................... 2"
    ENVIRONMENT "${mlu_sim_env};ACCEL_ACCELERATOR=mlu;ACCEL_SIM_DEVICES=4;MLU_VISIBLE_DEVICES=3,1")
  accel_sim_cli(mlu.sim_no_queue cascade "lacks cnrtQueueCreate"
    ENVIRONMENT "ACCEL_PLUGIN_PATH=;ACCEL_MLU_LIBRARY=$<TARGET_FILE:cnrt_sim_no_queue>")
endfunction()
