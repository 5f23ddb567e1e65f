# sdaa_sim.cmake: the simulated libsdaart.so (this folder) and the sdaa
# backend's tests on it. Included by tests/sim/CMakeLists.txt, which calls
# accel_sim_register_sdaa() when the sdaa backend is built; it sets
# sdaa_sim_env for the CCL sims.
function(accel_sim_register_sdaa)
  # The simulated libsdaart.so (tests/sim/sdaart), written from the public
  # early sdaa_runtime.h. No declarations test: the Teco SDK's headers are
  # not published in any package that could be fetched (README.md).
  set(sdaa_sim_sources sdaart/sdaa_sim_device.c sdaart/sdaa_sim_stream.c)
  accel_sim_library(sdaart_sim OUTPUT_NAME sdaart SOURCES ${sdaa_sim_sources})
  # Older or smaller runtimes: one without the optional sdaaDriverGetVersion,
  # one without the required sdaaStreamAddCallback.
  accel_sim_library(sdaart_sim_no_driver_version OUTPUT_NAME sdaart SOURCES ${sdaa_sim_sources}
                    OMIT sdaaDriverGetVersion)
  accel_sim_library(sdaart_sim_no_callback OUTPUT_NAME sdaart SOURCES ${sdaa_sim_sources}
                    OMIT sdaaStreamAddCallback)
  set(ACCEL_SDAA_SIM $<TARGET_FILE:sdaart_sim>)
  set(sdaa_sim_env "ACCEL_PLUGIN_PATH=" "ACCEL_SDAA_LIBRARY=${ACCEL_SDAA_SIM}")
  set(sdaa_sim_env "${sdaa_sim_env}" PARENT_SCOPE)

  accel_sim_conformance(sdaa ${sdaa_sim_env})
  # Every SDAA call site of the backend made to fail, and what follows.
  accel_sim_fault_test(sdaa ENVIRONMENT ${sdaa_sim_env} DEPENDS sdaart_sim)
  add_dependencies(accel_cli sdaart_sim sdaart_sim_no_driver_version sdaart_sim_no_callback)

  # The vendor rules of the sdaart sim the backend relies on
  # (tests/sim/README.md, sdaart rules), and with every stream task late.
  add_executable(test_sdaa_rules sdaart/test_sdaa_rules.c)
  target_compile_definitions(test_sdaa_rules PRIVATE _GNU_SOURCE)
  target_include_directories(test_sdaa_rules PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(test_sdaa_rules PRIVATE accel PkgConfig::CMOCKA accel_warnings
                        ${CMAKE_DL_LIBS})
  add_dependencies(test_sdaa_rules sdaart_sim)
  add_test(NAME sdaa.rules_sim COMMAND test_sdaa_rules)
  add_test(NAME sdaa.rules_sim_slow_streams COMMAND test_sdaa_rules)
  set_tests_properties(sdaa.rules_sim PROPERTIES LABELS "unit" ENVIRONMENT "${sdaa_sim_env}")
  set_tests_properties(sdaa.rules_sim_slow_streams PROPERTIES LABELS "unit" ENVIRONMENT
    "${sdaa_sim_env};ACCEL_SIM_STREAM_DELAY_US=2000")

  # The CLI on the sim (npu_cli.sh is the shared report/demo checker), then
  # the runtime's other faces: absent, no device, SDAA_VISIBLE_DEVICES, a
  # runtime without an optional symbol and one without a required symbol.
  set(sdaa_cli sh ${CMAKE_CURRENT_SOURCE_DIR}/npu_cli.sh)
  add_test(NAME sdaa.sim_report COMMAND ${sdaa_cli} report $<TARGET_FILE:accel_cli>
           "sdaa (override)" "Teco T1 (simulated)" "tccl" "SDAA_VISIBLE_DEVICES"
           "NCCL, LD_LIBRARY, PATH" "sdaaGetDeviceCount from ${ACCEL_SDAA_SIM}"
           "never run on Tecorigin hardware" "device count .................... 2"
           "SDAA runtime 1200, driver 1210")
  add_test(NAME sdaa.sim_demo COMMAND ${sdaa_cli} demo $<TARGET_FILE:accel_cli>)
  set_tests_properties(sdaa.sim_report sdaa.sim_demo PROPERTIES LABELS "cli"
                       ENVIRONMENT "${sdaa_sim_env};ACCEL_ACCELERATOR=sdaa")
  add_test(NAME sdaa.sim_missing COMMAND ${sdaa_cli} cascade $<TARGET_FILE:accel_cli>
           "no Tecorigin SDAA runtime (libsdaart.so) found"
           "ACCEL_SDAA_LIBRARY: /nonexistent/libsdaart.so" "/opt/tecoai/lib64/libsdaart.so:"
           "libsdaart.so: cannot open")
  set_tests_properties(sdaa.sim_missing PROPERTIES LABELS "cli" ENVIRONMENT
                       "ACCEL_PLUGIN_PATH=;ACCEL_SDAA_LIBRARY=/nonexistent/libsdaart.so")
  accel_sim_cli(sdaa.sim_no_device cascade "reports no SDAA device"
    ENVIRONMENT "${sdaa_sim_env};ACCEL_SIM_DEVICES=0")
  accel_sim_cli(sdaa.sim_visible_devices report "device count .................... 2"
    ENVIRONMENT "${sdaa_sim_env};ACCEL_ACCELERATOR=sdaa;ACCEL_SIM_DEVICES=4;SDAA_VISIBLE_DEVICES=1,3")
  accel_sim_cli(sdaa.sim_no_driver_version report "SDAA runtime 1200"
                "total memory .................. 512.00 MB"
    ENVIRONMENT "ACCEL_PLUGIN_PATH=;ACCEL_ACCELERATOR=sdaa;ACCEL_SIM_DEVICE_MEMORY=512M;ACCEL_SDAA_LIBRARY=$<TARGET_FILE:sdaart_sim_no_driver_version>")
  accel_sim_cli(sdaa.sim_no_callback cascade "lacks sdaaStreamAddCallback"
    ENVIRONMENT "ACCEL_PLUGIN_PATH=;ACCEL_SDAA_LIBRARY=$<TARGET_FILE:sdaart_sim_no_callback>")
endfunction()
