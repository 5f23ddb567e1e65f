# xpu_sim.cmake: the simulated Level Zero driver (this folder) and the xpu
# backend's tests on it. Included by tests/sim/CMakeLists.txt, which calls
# accel_sim_register_xpu() when the xpu backend is built.
# The backend runs on Debian's REAL Level Zero loader (libze1), which loads
# the simulated driver through ZE_ENABLE_ALT_DRIVERS. The driver compiles
# against the real headers (libze-dev); without loader or headers the tests
# are declared as skipped, saying why.
function(accel_sim_register_xpu)
  find_path(ACCEL_ZE_INCLUDE_DIR level_zero/ze_ddi.h DOC "Level Zero headers (libze-dev)")
  find_library(ACCEL_ZE_LOADER NAMES libze_loader.so.1 ze_loader
               DOC "the Level Zero loader (libze1)")
  set(xpu_cli sh ${CMAKE_CURRENT_SOURCE_DIR}/xpu_cli.sh)
  if(NOT ACCEL_ZE_INCLUDE_DIR OR NOT ACCEL_ZE_LOADER)
    message(STATUS "accel sim: Level Zero loader or headers not found (scripts/deps.sh installs "
                   "libze1 libze-dev); the xpu tests are skipped")
    add_test(NAME xpu.sim COMMAND sh -c
             "echo 'xpu: SKIPPED: libze1/libze-dev were not found at configure time'; exit 77")
    set_tests_properties(xpu.sim PROPERTIES LABELS "unit" SKIP_RETURN_CODE 77)
  else()
    set(ze_sim_sources ze_driver/ze_sim_device.c ze_driver/ze_sim_queue.c ze_driver/ze_sim_ddi.c)
    accel_sim_library(ze_sim_driver OUTPUT_NAME ze_sim_driver SOURCES ${ze_sim_sources}
                      INCLUDES ${ACCEL_ZE_INCLUDE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/ze_driver)
    set(ACCEL_ZE_SIM $<TARGET_FILE:ze_sim_driver>)
    set(xpu_sim_env "ACCEL_PLUGIN_PATH=" "ACCEL_XPU_LIBRARY=${ACCEL_ZE_LOADER}"
                    "ZE_ENABLE_ALT_DRIVERS=${ACCEL_ZE_SIM}")
    set(xpu_sim_env "${xpu_sim_env}" PARENT_SCOPE) # for tests/sim's per-sim loops
    add_dependencies(accel_cli ze_sim_driver)

    accel_sim_conformance(xpu ${xpu_sim_env})
    accel_sim_fault_test(xpu ENVIRONMENT ${xpu_sim_env} "ACCEL_SIM_DRIVER=${ACCEL_ZE_SIM}"
                         DEPENDS ze_sim_driver)

    # The vendor rules the backend relies on (tests/sim/README.md, "ze_driver
    # rules"), through the public API.
    add_executable(test_xpu_rules ze_driver/test_xpu_rules.c)
    target_compile_definitions(test_xpu_rules PRIVATE _GNU_SOURCE)
    target_link_libraries(test_xpu_rules PRIVATE accel PkgConfig::CMOCKA accel_warnings
                          ${CMAKE_DL_LIBS})
    add_dependencies(test_xpu_rules ze_sim_driver)
    add_test(NAME xpu.sim_rules COMMAND test_xpu_rules)
    set_tests_properties(xpu.sim_rules PROPERTIES LABELS "unit" ENVIRONMENT
                         "${xpu_sim_env};ACCEL_SIM_DRIVER=${ACCEL_ZE_SIM}")
    add_test(NAME xpu.sim_rules_slow_streams COMMAND test_xpu_rules)
    set_tests_properties(xpu.sim_rules_slow_streams PROPERTIES LABELS "unit" ENVIRONMENT
      "${xpu_sim_env};ACCEL_SIM_DRIVER=${ACCEL_ZE_SIM};ACCEL_SIM_STREAM_DELAY_US=2000")
    # ZE-TS-WRAP: the timestamp counter wraps 150 ms after its first reading,
    # inside the first 300 ms interval.
    add_test(NAME xpu.sim_rules_wrap COMMAND test_xpu_rules)
    set_tests_properties(xpu.sim_rules_wrap PROPERTIES LABELS "unit" ENVIRONMENT
      "${xpu_sim_env};ACCEL_SIM_DRIVER=${ACCEL_ZE_SIM};ACCEL_SIM_ZE_WRAP_MS=150;XPU_RULES_ONLY=test_elapsed_within_host_bracket")

    # ZE-TS-UNITS on a driver older than 1.2: ns per tick from the 1.0 stype.
    add_test(NAME xpu.sim_rules_api_1_1 COMMAND test_xpu_rules)
    set_tests_properties(xpu.sim_rules_api_1_1 PROPERTIES LABELS "unit" ENVIRONMENT
      "${xpu_sim_env};ACCEL_SIM_DRIVER=${ACCEL_ZE_SIM};ACCEL_SIM_ZE_API_VERSION=1.1;XPU_RULES_WHOLE_NS=1;XPU_RULES_ONLY=test_elapsed_within_host_bracket")

    # ZE-VPU: Intel's NPU driver listed first (ze_sim_vpu: the same sources
    # playing a VPU-type device). xpu must take the GPU driver's devices,
    # whether the NPU driver declines zeInit(ZE_INIT_FLAG_GPU_ONLY) or
    # ignores the flag.
    accel_sim_library(ze_sim_vpu OUTPUT_NAME ze_sim_vpu SOURCES ${ze_sim_sources}
                      DEFINITIONS SIM_ZE_VPU
                      INCLUDES ${ACCEL_ZE_INCLUDE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/ze_driver)
    add_dependencies(accel_cli ze_sim_vpu)
    set(xpu_npu_env "ACCEL_PLUGIN_PATH=" "ACCEL_XPU_LIBRARY=${ACCEL_ZE_LOADER}"
                    "ZE_ENABLE_ALT_DRIVERS=$<TARGET_FILE:ze_sim_vpu>,${ACCEL_ZE_SIM}"
                    "ACCEL_ACCELERATOR=xpu")
    accel_sim_cli(xpu.sim_npu_first report SCRIPT xpu_cli.sh
                  "device count .................... 2" "Simulated Level Zero GPU"
                  ENVIRONMENT "${xpu_npu_env}")
    accel_sim_cli(xpu.sim_npu_ignores_gpu_only report SCRIPT xpu_cli.sh
                  "device count .................... 2" "Simulated Level Zero GPU"
                  ENVIRONMENT "${xpu_npu_env};ACCEL_SIM_ZE_VPU_IGNORES_FLAGS=1")

    # The CLI on the sim: the devices, DeepSpeed's values and where they came
    # from; the demo; ZE_AFFINITY_MASK; oneCCL's presence choosing "ccl".
    add_test(NAME xpu.sim_report COMMAND ${xpu_cli} report $<TARGET_FILE:accel_cli>
             "xpu (override)" "Simulated Level Zero GPU" "xccl" "ZE_AFFINITY_MASK"
             "inductor" "devices counted with zeDeviceGet after zeInit"
             "never run on Intel hardware" "device count .................... 2")
    add_test(NAME xpu.sim_demo COMMAND ${xpu_cli} demo $<TARGET_FILE:accel_cli>)
    set_tests_properties(xpu.sim_report xpu.sim_demo PROPERTIES LABELS "cli"
                         ENVIRONMENT "${xpu_sim_env};ACCEL_ACCELERATOR=xpu")
    accel_sim_cli(xpu.sim_affinity_mask report SCRIPT xpu_cli.sh
                  "device count .................... 2"
      ENVIRONMENT "${xpu_sim_env};ACCEL_ACCELERATOR=xpu;ACCEL_SIM_DEVICES=4;ZE_AFFINITY_MASK=3,1.0")
    set(xpu_ccl_dir ${CMAKE_CURRENT_BINARY_DIR}/fake-oneccl/lib)
    file(MAKE_DIRECTORY ${xpu_ccl_dir})
    file(TOUCH ${xpu_ccl_dir}/libccl.so.1)
    accel_sim_cli(xpu.sim_ccl report SCRIPT xpu_cli.sh "communication backend ........... ccl"
      ENVIRONMENT "${xpu_sim_env};ACCEL_ACCELERATOR=xpu;CCL_ROOT=${CMAKE_CURRENT_BINARY_DIR}/fake-oneccl")
    # The cascade: with no CUDA device here, auto-detect picks xpu on the sim.
    add_test(NAME xpu.sim_cascade COMMAND ${xpu_cli} auto $<TARGET_FILE:accel_cli>
             "xpu (auto detect)" "considered: no CUDA device is present")
    set_tests_properties(xpu.sim_cascade PROPERTIES LABELS "cli" ENVIRONMENT "${xpu_sim_env}")
    # The rule "xpu only when no CUDA device is present" with the real xpu
    # and cuda backends: a libcuda that only counts (cuda_count/) shows two
    # CUDA devices, then none.
    if(ACCEL_BACKEND_CUDA)
      add_library(cuda_count SHARED cuda_count/cuda_count.c)
      target_include_directories(cuda_count PRIVATE ${PROJECT_SOURCE_DIR}/src)
      target_compile_options(cuda_count PRIVATE -fvisibility=hidden)
      target_link_libraries(cuda_count PRIVATE accel_warnings)
      set_target_properties(cuda_count PROPERTIES OUTPUT_NAME cuda
                            LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/cuda_count)
      add_dependencies(accel_cli cuda_count)
      set(xpu_cuda_env "${xpu_sim_env};ACCEL_CUDA_LIBRARY=$<TARGET_FILE:cuda_count>")
      add_test(NAME xpu.cascade_cuda_present COMMAND ${xpu_cli} autocascade
               $<TARGET_FILE:accel_cli>
               "skipped: xpu is considered only when no CUDA device is present (2 CUDA device(s) present)")
      set_tests_properties(xpu.cascade_cuda_present PROPERTIES LABELS "cli"
                           ENVIRONMENT "${xpu_cuda_env}")
      add_test(NAME xpu.cascade_cuda_none COMMAND ${xpu_cli} auto $<TARGET_FILE:accel_cli>
               "xpu (auto detect)")
      set_tests_properties(xpu.cascade_cuda_none PROPERTIES LABELS "cli"
                           ENVIRONMENT "${xpu_cuda_env};ACCEL_SIM_CUDA_DEVICES=0")
    endif()
    # Auto-detect without a GPU device node leaves the real loader unloaded;
    # accel_detect still loads it (the full answer).
    add_executable(test_xpu_quick_probe ze_driver/test_xpu_quick_probe.c)
    target_compile_definitions(test_xpu_quick_probe PRIVATE _GNU_SOURCE)
    target_link_libraries(test_xpu_quick_probe PRIVATE accel PkgConfig::CMOCKA accel_warnings
                          ${CMAKE_DL_LIBS})
    add_test(NAME xpu.quick_probe COMMAND test_xpu_quick_probe)
    set_tests_properties(xpu.quick_probe PROPERTIES LABELS "unit" SKIP_RETURN_CODE 77 ENVIRONMENT
      "ACCEL_PLUGIN_PATH=;ACCEL_ACCELERATOR=;ACCEL_XPU_LIBRARY=;ZE_ENABLE_ALT_DRIVERS=")
    # The real loader and no driver: found, no driver/devices (not "missing").
    accel_sim_cli(xpu.no_driver fails SCRIPT xpu_cli.sh
                  "accel: xpu: Level Zero loader found, no driver/devices"
                  "ZE_RESULT_ERROR_UNINITIALIZED"
      ENVIRONMENT "ACCEL_PLUGIN_PATH=;ACCEL_ACCELERATOR=xpu;ZE_ENABLE_ALT_DRIVERS=")
    # A driver without devices: xpu opens when named, with no device.
    add_test(NAME xpu.sim_no_device COMMAND ${xpu_cli} report $<TARGET_FILE:accel_cli>
             "Level Zero loader found, no driver/devices: 1 driver(s)"
             "device count .................... 0")
    set_tests_properties(xpu.sim_no_device PROPERTIES LABELS "cli"
                         ENVIRONMENT "${xpu_sim_env};ACCEL_ACCELERATOR=xpu;ACCEL_SIM_DEVICES=0")
    # No loader at all: the real one hidden in a private mount namespace
    # (skipped where namespaces are not allowed).
    add_test(NAME xpu.missing COMMAND ${xpu_cli} missing $<TARGET_FILE:accel_cli> ${ACCEL_ZE_LOADER}
             "XPU backend requires libze_loader.so.1 (Intel oneAPI Level Zero), which is not installed"
             "ACCEL_XPU_LIBRARY: /nonexistent/libze_loader.so.1" "libze_loader.so.1: "
             "set ACCEL_XPU_LIBRARY")
    set_tests_properties(xpu.missing PROPERTIES LABELS "cli" SKIP_RETURN_CODE 77 ENVIRONMENT
      "ACCEL_PLUGIN_PATH=;ACCEL_ACCELERATOR=xpu;ACCEL_XPU_LIBRARY=/nonexistent/libze_loader.so.1")
  endif()
endfunction()
