# sim.cmake: how a simulated vendor runtime is built (included by
# tests/sim/CMakeLists.txt). Sims live in the build tree only: never
# installed, never on a default search path; a test points
# ACCEL_<NAME>_LIBRARY at the file.
#
#   accel_sim_library(<target> OUTPUT_NAME <file stem> SOURCES <files...>
#                     [OMIT <symbol>...])
#
# builds lib<file stem>.so from SOURCES with the shared sim core linked in
# (the static library sim_fault): fault injection (sim_fault.h), the stream
# queue (sim_queue.h), the streams over it (sim_stream.h) and the events
# they record (sim_event.h), the allocation registry (sim_alloc.h),
# live-handle sets (sim_handle.h) and the per-thread device and last error
# (sim_thread.h) and the count of broken vendor rules (sim_violation.h)
# and the rules a test asks it to break (sim_break.h, ACCEL_SIM_BREAK). OMIT makes a variant of the same sources in which the
# named exported functions are left out of the dynamic symbol table (a
# version script makes them local), so dlsym finds nothing: the way a sim
# plays an older runtime that lacks a symbol. A variant goes in its own
# folder (<build>/tests/sim/<target>/) under the same file name as the
# runtime it stands for, since some backends look libraries up by name.

add_library(sim_fault STATIC ${CMAKE_CURRENT_LIST_DIR}/sim_fault.c
            ${CMAKE_CURRENT_LIST_DIR}/sim_queue.c ${CMAKE_CURRENT_LIST_DIR}/sim_alloc.c
            ${CMAKE_CURRENT_LIST_DIR}/sim_handle.c ${CMAKE_CURRENT_LIST_DIR}/sim_stream.c
            ${CMAKE_CURRENT_LIST_DIR}/sim_thread.c ${CMAKE_CURRENT_LIST_DIR}/sim_event.c
            ${CMAKE_CURRENT_LIST_DIR}/sim_violation.c ${CMAKE_CURRENT_LIST_DIR}/sim_break.c)
target_include_directories(sim_fault PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_compile_definitions(sim_fault PRIVATE _GNU_SOURCE)
target_compile_options(sim_fault PRIVATE -fvisibility=hidden)
target_link_libraries(sim_fault PUBLIC Threads::Threads PRIVATE accel_warnings)
set_target_properties(sim_fault PROPERTIES POSITION_INDEPENDENT_CODE ON)

function(accel_sim_library target)
  cmake_parse_arguments(SIM "" "OUTPUT_NAME" "SOURCES;OMIT;INCLUDES;DEFINITIONS" ${ARGN})
  add_library(${target} SHARED ${SIM_SOURCES})
  target_link_libraries(${target} PRIVATE sim_fault accel_warnings Threads::Threads)
  target_compile_definitions(${target} PRIVATE _GNU_SOURCE ${SIM_DEFINITIONS})
  target_compile_options(${target} PRIVATE -fvisibility=hidden)
  if(SIM_INCLUDES)
    target_include_directories(${target} SYSTEM PRIVATE ${SIM_INCLUDES})
  endif()
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${SIM_OUTPUT_NAME}
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/${target})
  if(SIM_OMIT)
    set(script ${CMAKE_CURRENT_BINARY_DIR}/${target}.map)
    list(JOIN SIM_OMIT "; " locals)
    file(WRITE ${script} "{ global: *; local: ${locals}; };\n")
    target_link_options(${target} PRIVATE "-Wl,--version-script=${script}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${script})
  endif()
endfunction()

# accel_sim_conformance(<backend> <environment>...): the conformance suite
# (its targets come from tests/conformance) on the sim the environment
# names, in one thread and in many, and again with every stream task
# started late, so that a missing wait or a misordered stream reads data
# that has not arrived yet (a missing wait can make a test spin on a query:
# TIMEOUT ends it).
function(accel_sim_conformance backend)
  set(name conformance.${backend}_sim)
  add_test(NAME ${name} COMMAND conformance ${backend})
  add_test(NAME conformance_threads.${backend}_sim COMMAND conformance_threads ${backend})
  set_tests_properties(${name} conformance_threads.${backend}_sim PROPERTIES LABELS "conformance"
                       ENVIRONMENT "${ARGN}")
  add_test(NAME ${name}_slow_streams COMMAND conformance ${backend})
  set_tests_properties(${name}_slow_streams PROPERTIES LABELS "conformance" TIMEOUT 300
                       ENVIRONMENT "${ARGN};ACCEL_SIM_STREAM_DELAY_US=500")
  # `accel selftest` on the sim, its report checked against the schema
  # (tests/cli/check_selftest_json.py); then a hang injected into one check
  # (every stream task of that check's process started 1 s late: 128 tasks,
  # past an 8 s watchdog, which the checks around it keep under ASan) is a
  # HANG by name and the checks after it still pass.
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    set(check ${PROJECT_SOURCE_DIR}/tests/cli/check_selftest_json.py)
    # Every check, each in its own process; under a sanitizer --quick, since
    # conformance.<backend>_sim runs every check there already (batched).
    set(scope "")
    if(NOT ACCEL_SANITIZE STREQUAL "")
      set(scope -- --quick)
    endif()
    add_test(NAME selftest.${backend}_sim
             COMMAND ${Python3_EXECUTABLE} ${check} $<TARGET_FILE:accel_cli> --backend ${backend}
                     ${scope})
    add_test(NAME selftest.${backend}_sim_hang
             COMMAND ${Python3_EXECUTABLE} ${check} $<TARGET_FILE:accel_cli> --backend ${backend}
                     --expect device.callbacks_in_order=HANG
                     -- --only device.copies_sync,device.callbacks_in_order,device.event_orders_streams
                     --timeout 8)
    set_tests_properties(selftest.${backend}_sim selftest.${backend}_sim_hang PROPERTIES
                         LABELS "selftest" ENVIRONMENT "${ARGN}")
    set_property(TEST selftest.${backend}_sim_hang APPEND PROPERTY ENVIRONMENT
      "ACCEL_SELFTEST_CHECK_ENV=device.callbacks_in_order:ACCEL_SIM_STREAM_DELAY_US=1000000")
  endif()
endfunction()

# accel_sim_fault_test(<backend> ENVIRONMENT <env>... [SLOW_ENVIRONMENT <env>...]
#                      [DEPENDS <target>...])
# builds test_<backend>_faults.c (every vendor call site of the backend made
# to fail, over common/sim_fault_driver.h) and runs it as <backend>.faults,
# then as <backend>.faults_slow_streams with every stream task started late:
# work still in flight when a fault hits (a staging buffer at close) must not
# be freed under it. SLOW_ENVIRONMENT replaces ENVIRONMENT for that second
# run (a sim whose state on disk the two runs must not share).
function(accel_sim_fault_test backend)
  cmake_parse_arguments(FAULT "" "" "ENVIRONMENT;SLOW_ENVIRONMENT;DEPENDS" ${ARGN})
  set(target test_${backend}_faults)
  add_executable(${target} ${target}.c)
  target_compile_definitions(${target} PRIVATE _GNU_SOURCE)
  target_link_libraries(${target} PRIVATE accel PkgConfig::CMOCKA accel_warnings ${CMAKE_DL_LIBS})
  if(FAULT_DEPENDS)
    add_dependencies(${target} ${FAULT_DEPENDS})
  endif()
  if(NOT FAULT_SLOW_ENVIRONMENT)
    set(FAULT_SLOW_ENVIRONMENT ${FAULT_ENVIRONMENT})
  endif()
  add_test(NAME ${backend}.faults COMMAND ${target})
  set_tests_properties(${backend}.faults PROPERTIES LABELS "unit"
                       ENVIRONMENT "${FAULT_ENVIRONMENT}")
  add_test(NAME ${backend}.faults_slow_streams COMMAND ${target})
  set_tests_properties(${backend}.faults_slow_streams PROPERTIES LABELS "unit" ENVIRONMENT
                       "${FAULT_SLOW_ENVIRONMENT};ACCEL_SIM_STREAM_DELAY_US=2000")
endfunction()

# accel_sim_cli(<test> <mode> [<expected>...] ENVIRONMENT <env>... [SCRIPT <file>])
# runs the CLI (accel_cli) on a sim through a checker script in tests/sim
# (npu_cli.sh, which serves every backend, unless SCRIPT names another):
# <mode> is what the script runs (report, demo, cascade...) and each
# <expected> must appear in the output. Labelled "cli".
function(accel_sim_cli test mode)
  cmake_parse_arguments(CLI "" "SCRIPT" "ENVIRONMENT" ${ARGN})
  if(NOT CLI_SCRIPT)
    set(CLI_SCRIPT npu_cli.sh)
  endif()
  add_test(NAME ${test} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/${CLI_SCRIPT} ${mode}
                                $<TARGET_FILE:accel_cli> ${CLI_UNPARSED_ARGUMENTS})
  set_tests_properties(${test} PROPERTIES LABELS "cli" ENVIRONMENT "${CLI_ENVIRONMENT}")
endfunction()
