# selftest_rules.cmake: each vendor-rule probe of `accel selftest` shown to
# catch what it is for (issue 29). Included by tests/sim/CMakeLists.txt once
# the sims are defined; other backends' probes call the function too.
#
#   accel_selftest_rule_breaks(<backend> PREFIX <test prefix> ENVIRONMENT <env...>
#                              RULES <id>... [CHECKS <probe prefix>] [LAUNCH <ranks>]
#                              [CONTROL])
#
# adds one test `<test prefix>.<id>` per rule: with ACCEL_SIM_BREAK=<id> in
# the environment, `accel selftest --backend <backend> --only <probe><id>`
# (probe prefix default rule.<backend>.) must report that probe as FAIL or
# HANG, and no check as HANG or CRASH (selftest_rule_break.py). Only that
# probe runs (and the opening check): probes that share the broken rule
# would fail too and, where they wait for work that never comes, cost
# seconds each. With LAUNCH, the selftest runs under
# `accel launch -n <ranks>` (comm_ probes). With CONTROL, `<test prefix>.none`
# runs the same probes with nothing broken: every one passes or skips (for
# runs the plain `accel selftest` tests do not cover). The watchdog
# is 10 s a check, so a probe that waits forever costs that much.
function(accel_selftest_rule_breaks backend)
  cmake_parse_arguments(BREAK "CONTROL" "PREFIX;CHECKS;LAUNCH" "ENVIRONMENT;RULES" ${ARGN})
  if(NOT BREAK_CHECKS)
    set(BREAK_CHECKS "rule.${backend}.")
  endif()
  set(selftest $<TARGET_FILE:accel_cli> selftest --backend ${backend} --timeout 10)
  if(BREAK_LAUNCH)
    set(selftest $<TARGET_FILE:accel_cli> launch -n ${BREAK_LAUNCH} ${selftest})
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/selftest_rules)
  file(MAKE_DIRECTORY ${dir})
  set(check ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/selftest_rule_break.py)
  if(BREAK_CONTROL)
    add_test(NAME ${BREAK_PREFIX}.none
             COMMAND ${check} --pass --json ${dir}/${BREAK_PREFIX}.none.json -- ${selftest}
                     --only "${BREAK_CHECKS}*")
    set_tests_properties(${BREAK_PREFIX}.none PROPERTIES LABELS "selftest" TIMEOUT 120
                         ENVIRONMENT "${BREAK_ENVIRONMENT};NO_COLOR=1")
  endif()
  foreach(rule ${BREAK_RULES})
    set(name ${BREAK_PREFIX}.${rule})
    add_test(NAME ${name} COMMAND ${check} --check ${BREAK_CHECKS}${rule}
                                  --json ${dir}/${name}.json -- ${selftest}
                                  --only "${BREAK_CHECKS}${rule}")
    set_tests_properties(${name} PROPERTIES LABELS "selftest" TIMEOUT 120
                         ENVIRONMENT "${BREAK_ENVIRONMENT};ACCEL_SIM_BREAK=${rule};NO_COLOR=1")
  endforeach()
endfunction()

find_package(Python3 COMPONENTS Interpreter)
find_program(ACCEL_MPIRUN mpirun)
if(Python3_EXECUTABLE AND TARGET ascendcl_sim)
  # The npu probes on the current runtime (host functions, Ex events; the
  # plain selftest test runs them unbroken) and on a CANN 7.x one (report
  # threads, WithFlag events): the rules whose probe takes another path there.
  accel_selftest_rule_breaks(npu PREFIX selftest.npu_sim_break ENVIRONMENT ${npu_sim_env}
    RULES C1 C2 C3 C6 C7 C8 C9 C10 E1 E2 E3 E4 E6 M1 M2 M3 M6 M7 M8 M9 V1)
  accel_selftest_rule_breaks(npu PREFIX selftest.npu_sim_v7_break
    ENVIRONMENT "ACCEL_PLUGIN_PATH=" "ACCEL_NPU_LIBRARY=$<TARGET_FILE:ascendcl_sim_v7>"
    RULES C9 E3 E6 M6 CONTROL)
  if(TARGET hccl_sim AND ACCEL_MPIRUN)
    accel_selftest_rule_breaks(npu PREFIX selftest.hccl_sim_break CHECKS rule.comm_hccl. LAUNCH 2
      ENVIRONMENT ${npu_sim_env} "ACCEL_HCCL_LIBRARY=$<TARGET_FILE:hccl_sim>"
                  "ACCEL_COMM_TIMEOUT=60" "OMPI_ALLOW_RUN_AS_ROOT=1"
                  "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
                  "OMPI_MCA_btl_vader_single_copy_mechanism=none" "ASAN_OPTIONS=detect_leaks=0"
                  # a rank whose probe failed exits 1, maybe before rank 0
                  # wrote the report: mpirun must not kill rank 0 for it
                  "OMPI_MCA_orte_abort_on_non_zero_status=0"
      RULES H1 H2 H3 H4 H6 H7 H8 CONTROL)
  endif()
endif()
