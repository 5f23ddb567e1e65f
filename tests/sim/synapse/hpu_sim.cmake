# hpu_sim.cmake: the simulated libSynapse.so (this folder) and libhlml.so
# (../hlml) and the hpu backend's tests on them. Included by
# tests/sim/CMakeLists.txt, which calls accel_sim_register_hpu() when the hpu
# backend is built; it sets hpu_sim_env for the CCL sims.
function(accel_sim_register_hpu)
  # The simulated libSynapse.so and libhlml.so (tests/sim/README.md), and a
  # Synapse without the required synStreamWaitEvent.
  set(syn_sim_sources synapse/syn_sim_device.c synapse/syn_sim_stream.c)
  set(syn_sim_options INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/synapse)
  # When Synapse's headers were fetched before configuring, the sim is
  # compiled against them too, so its functions are checked against the
  # real prototypes.
  set(syn_header_cache "$ENV{XDG_CACHE_HOME}")
  if(NOT syn_header_cache)
    set(syn_header_cache "$ENV{HOME}/.cache")
  endif()
  find_path(ACCEL_SYNAPSE_INCLUDE_DIR synapse_api.h NO_DEFAULT_PATH
            HINTS ${syn_header_cache}/accel/headers/synapse
            DOC "SynapseAI headers (scripts/fetch-vendor-headers.sh hpu)")
  if(ACCEL_SYNAPSE_INCLUDE_DIR)
    list(APPEND syn_sim_options INCLUDES ${ACCEL_SYNAPSE_INCLUDE_DIR}
         DEFINITIONS SYN_SIM_REAL_HEADERS)
    message(STATUS "accel sim: libSynapse sim checked against ${ACCEL_SYNAPSE_INCLUDE_DIR}")
  endif()
  accel_sim_library(synapse_sim OUTPUT_NAME Synapse SOURCES ${syn_sim_sources} ${syn_sim_options})
  accel_sim_library(synapse_sim_no_wait OUTPUT_NAME Synapse SOURCES ${syn_sim_sources}
                    ${syn_sim_options} OMIT synStreamWaitEvent)
  accel_sim_library(hlml_sim OUTPUT_NAME hlml SOURCES hlml/hlml_sim.c)
  set(ACCEL_HPU_SIM $<TARGET_FILE:synapse_sim>)
  set(ACCEL_HLML_SIM $<TARGET_FILE:hlml_sim>)
  set(hpu_sim_env "ACCEL_PLUGIN_PATH=" "ACCEL_HPU_LIBRARY=${ACCEL_HPU_SIM}"
                  "ACCEL_HPU_HLML_LIBRARY=${ACCEL_HLML_SIM}")
  set(hpu_sim_env "${hpu_sim_env}" PARENT_SCOPE)

  accel_sim_conformance(hpu ${hpu_sim_env})
  # Every Synapse call site of the backend made to fail, and what follows;
  # each run holds its Gaudis through its own lock files.
  set(locks ${CMAKE_CURRENT_BINARY_DIR}/hpu-locks-faults)
  file(MAKE_DIRECTORY ${locks} ${locks}-slow)
  accel_sim_fault_test(hpu ENVIRONMENT ${hpu_sim_env} "ACCEL_SIM_SYN_LOCK_DIR=${locks}"
                       SLOW_ENVIRONMENT ${hpu_sim_env} "ACCEL_SIM_SYN_LOCK_DIR=${locks}-slow"
                       DEPENDS synapse_sim synapse_sim_no_wait hlml_sim)
  add_dependencies(accel_cli synapse_sim synapse_sim_no_wait hlml_sim)

  # The vendor rules of the synapse sim the backend relies on
  # (tests/sim/README.md, synapse rules), with its own lock files.
  add_executable(test_hpu_rules synapse/test_hpu_rules.c)
  target_compile_definitions(test_hpu_rules PRIVATE _GNU_SOURCE)
  target_include_directories(test_hpu_rules PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(test_hpu_rules PRIVATE accel PkgConfig::CMOCKA accel_warnings)
  add_dependencies(test_hpu_rules synapse_sim hlml_sim)
  file(MAKE_DIRECTORY ${locks}-rules)
  add_test(NAME hpu.rules_sim COMMAND test_hpu_rules)
  set_tests_properties(hpu.rules_sim PROPERTIES LABELS "unit" ENVIRONMENT
    "${hpu_sim_env};ACCEL_SIM_SYN_LOCK_DIR=${locks}-rules")

  # The CLI on the sims (npu_cli.sh serves every backend): the report names
  # the simulated Gaudis, how they were counted, DeepSpeed's values and the
  # workarounds; the demo runs. Then: no libSynapse, no HLML (device nodes
  # counted instead), a Gaudi held by another process, a first-generation
  # Gaudi (no fp16), a Synapse without a required symbol.
  set(hpu_cli sh ${CMAKE_CURRENT_SOURCE_DIR}/npu_cli.sh)
  add_test(NAME hpu.sim_report COMMAND ${hpu_cli} report $<TARGET_FILE:accel_cli>
           "hpu (override)" "Gaudi2 (module 0)" "hccl" "hpu_backend"
           "2 Gaudi(s) counted by HLML (${ACCEL_HLML_SIM}) without acquiring any"
           "PT_HPU_LAZY_ACC_PAR_MODE=0 at init" "PT_HPU_ENABLE_REFINE_DYNAMIC_SHAPES=0 at init"
           "never run on a Gaudi (sims only)"
           "device count .................... 2")
  add_test(NAME hpu.sim_demo COMMAND ${hpu_cli} demo $<TARGET_FILE:accel_cli>)
  set_tests_properties(hpu.sim_report hpu.sim_demo PROPERTIES LABELS "cli"
                       ENVIRONMENT "${hpu_sim_env};ACCEL_ACCELERATOR=hpu")
  add_test(NAME hpu.sim_missing COMMAND ${hpu_cli} cascade $<TARGET_FILE:accel_cli>
           "Habana Gaudi SynapseAI runtime (libSynapse.so)"
           "ACCEL_HPU_LIBRARY: /nonexistent/libSynapse.so: not found"
           "; libSynapse.so: not found" "/usr/lib/habanalabs/libSynapse.so: not found)")
  set_tests_properties(hpu.sim_missing PROPERTIES LABELS "cli" ENVIRONMENT
    "ACCEL_PLUGIN_PATH=;ACCEL_HPU_LIBRARY=/nonexistent/libSynapse.so")
  # Three driver nodes (plain files will do: only names are read).
  set(hpu_dev_dir ${CMAKE_CURRENT_BINARY_DIR}/fake-hpu-dev)
  file(MAKE_DIRECTORY ${hpu_dev_dir}/accel)
  file(TOUCH ${hpu_dev_dir}/accel/accel0 ${hpu_dev_dir}/accel/accel1 ${hpu_dev_dir}/accel/accel2
       ${hpu_dev_dir}/accel/accel_controlD0)
  add_test(NAME hpu.sim_device_nodes COMMAND ${hpu_cli} report $<TARGET_FILE:accel_cli>
           "HLML not loaded (no libhlml.so); counted 3 accel<N> node(s) in ${hpu_dev_dir}/accel"
           "device count .................... 3")
  set_tests_properties(hpu.sim_device_nodes PROPERTIES LABELS "cli" ENVIRONMENT
    "ACCEL_PLUGIN_PATH=;ACCEL_ACCELERATOR=hpu;ACCEL_HPU_LIBRARY=${ACCEL_HPU_SIM};ACCEL_HPU_HLML_LIBRARY=/nonexistent/libhlml.so;ACCEL_HPU_DEVICE_DIR=${hpu_dev_dir};ACCEL_SIM_DEVICES=3")
  # Module 0 held by another process (flock(1) holds the sim's lock file
  # while the demo runs).
  set(hpu_lock_dir ${CMAKE_CURRENT_BINARY_DIR}/hpu-locks)
  file(MAKE_DIRECTORY ${hpu_lock_dir})
  add_test(NAME hpu.sim_held_elsewhere COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hpu_held.sh
           $<TARGET_FILE:accel_cli> ${hpu_lock_dir})
  set_tests_properties(hpu.sim_held_elsewhere PROPERTIES LABELS "cli" SKIP_RETURN_CODE 77 ENVIRONMENT
    "${hpu_sim_env};ACCEL_ACCELERATOR=hpu;ACCEL_SIM_SYN_LOCK_DIR=${hpu_lock_dir}")
  # HABANA_VISIBLE_MODULES picks the Gaudi by module id; HLML's module ids
  # (ACCEL_SIM_HLML_MODULES) are used otherwise. The demo acquires it.
  add_test(NAME hpu.sim_visible_modules COMMAND ${hpu_cli} report $<TARGET_FILE:accel_cli>
           "Gaudi2 (module 3)" "device count .................... 1")
  add_test(NAME hpu.sim_visible_modules_demo COMMAND ${hpu_cli} demo $<TARGET_FILE:accel_cli>)
  set_tests_properties(hpu.sim_visible_modules hpu.sim_visible_modules_demo PROPERTIES
    LABELS "cli" ENVIRONMENT
    "${hpu_sim_env};ACCEL_ACCELERATOR=hpu;ACCEL_SIM_DEVICES=4;HABANA_VISIBLE_MODULES=3")
  # (device 0's name is the first name in the report)
  add_test(NAME hpu.sim_hlml_modules COMMAND sh -c
           "\"$0\" report | grep -m 1 '^  name ' | grep -F 'Gaudi2 (module 2)'"
           $<TARGET_FILE:accel_cli>)
  set_tests_properties(hpu.sim_hlml_modules PROPERTIES LABELS "cli" ENVIRONMENT
    "${hpu_sim_env};ACCEL_ACCELERATOR=hpu;ACCEL_SIM_DEVICES=3;ACCEL_SIM_HLML_MODULES=2,0,1")
  add_test(NAME hpu.sim_gaudi1 COMMAND ${hpu_cli} report $<TARGET_FILE:accel_cli>
           "Gaudi (module 0)" "float32, bfloat16")
  set_tests_properties(hpu.sim_gaudi1 PROPERTIES LABELS "cli" ENVIRONMENT
    "${hpu_sim_env};ACCEL_ACCELERATOR=hpu;ACCEL_SIM_SYN_DEVICE_TYPE=2")
  accel_sim_cli(hpu.sim_no_wait_event cascade "lacks synStreamWaitEvent"
    ENVIRONMENT "ACCEL_PLUGIN_PATH=;ACCEL_HPU_LIBRARY=$<TARGET_FILE:synapse_sim_no_wait>")
endfunction()
