# The vendor-rule probes of `accel selftest` against sims that break each
# rule on purpose (ACCEL_SIM_BREAK, tests/sim/README.md "Fault injection"):
# one test per backend, <backend>.sim_rule_breaks, run by rule_breaks.py
# over the table below. A case is a rule id, with `+VAR=VALUE` for what it
# needs (a slow stream so that work is still pending; a timestamp wrap).
# Each probe runs in a child process of its own; a case takes about 0.1 s.

set(accel_rule_breaks_cuda CAP-ADDR CAP-QUERY-CAPTURED CAP-JOIN CAP-SYNC-CTX CAP-FREE CAP-LEGACY
                           CU-STUB)
set(accel_rule_breaks_mlu CNRT-XDEV CNRT-H2H CNRT-UNITS CNRT-CAP-QUERY CNRT-CAP-JOIN
                          CNRT-CAP-ADDR CNRT-CAP-RELAXED CNRT-HOSTMALLOC0)
set(accel_rule_breaks_sdaa SDAA-EVFLAGS SDAA-EVDESTROY SDAA-NOTREADY SDAA-CALLBACK SDAA-H2H
                           SDAA-PAGEABLE)
set(accel_rule_breaks_hpu SYN-WAIT+ACCEL_SIM_STREAM_DELAY_US=20000
                          SYN-DESTROY-BUSY+ACCEL_SIM_STREAM_DELAY_US=20000
                          SYN-EVENT-DESTROY+ACCEL_SIM_STREAM_DELAY_US=20000 SYN-ELAPSED-NS
                          SYN-DMA-HOST)
set(accel_rule_breaks_xpu ZE-ORDER+ACCEL_SIM_STREAM_DELAY_US=20000 ZE-TS-UNDEF ZE-TS-UNITS
                          ZE-TS-WRAP ZE-POOL-DEV
                          ZE-DESTROY-LIVE+ACCEL_SIM_STREAM_DELAY_US=20000 ZE-VPU)

# The collectives engines' probes run under `accel launch -n 2` (mpirun);
# CCL-NCCL-ROOT cannot be observed in a running job and skips.
set(accel_rule_breaks_comm_nccl CCL-NCCL-COMMID CCL-NCCL-ROOT!skip NCCL-SPLIT NCCL-VERSIONS)

# accel_sim_rule_breaks(): the tests, for each backend built with a sim
# (its <backend>_sim_env set by its registration function), and for each
# engine whose CCL sim is built, where mpirun is installed.
function(accel_sim_rule_breaks)
  find_package(Python3 COMPONENTS Interpreter)
  if(NOT Python3_EXECUTABLE)
    return()
  endif()
  foreach(backend cuda mlu sdaa hpu xpu)
    if(NOT DEFINED ${backend}_sim_env)
      continue()
    endif()
    set(env "${${backend}_sim_env}")
    if(backend STREQUAL "xpu" AND TARGET ze_sim_vpu)
      # Intel's NPU driver beside the GPU one, for ZE-VPU.
      list(FILTER env EXCLUDE REGEX "^ZE_ENABLE_ALT_DRIVERS=")
      list(APPEND env
           "ZE_ENABLE_ALT_DRIVERS=$<TARGET_FILE:ze_sim_vpu>,$<TARGET_FILE:ze_sim_driver>")
    endif()
    add_test(NAME ${backend}.sim_rule_breaks
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/rule_breaks.py
                     $<TARGET_FILE:accel_cli> ${backend} ${accel_rule_breaks_${backend}})
    set_tests_properties(${backend}.sim_rule_breaks PROPERTIES LABELS "cli" TIMEOUT 120
                         ENVIRONMENT "${env}")
  endforeach()

  find_program(ACCEL_MPIRUN mpirun)
  if(ACCEL_MPIRUN AND TARGET nccl_sim AND DEFINED cuda_sim_env)
    set(mpi_env "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
                "OMPI_MCA_btl_vader_single_copy_mechanism=none" "ASAN_OPTIONS=detect_leaks=0"
                "ACCEL_MPIRUN=${ACCEL_MPIRUN}")
    add_test(NAME nccl.sim_rule_breaks
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/rule_breaks.py --launch 2
                     --group comm_nccl $<TARGET_FILE:accel_cli> cuda ${accel_rule_breaks_comm_nccl})
    set_tests_properties(nccl.sim_rule_breaks PROPERTIES LABELS "comm" TIMEOUT 180 ENVIRONMENT
      "${cuda_sim_env};${mpi_env};ACCEL_ACCELERATOR=cuda;ACCEL_NCCL_LIBRARY=$<TARGET_FILE:nccl_sim>")
  endif()
endfunction()
