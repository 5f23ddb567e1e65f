# The vendor-rule probes of `accel selftest` against sims that break each
# rule on purpose (ACCEL_SIM_BREAK, tests/sim/README.md "Fault injection"),
# all through one function and one script (rule_breaks.py):
#
#   accel_rule_breaks(<name> BACKEND <backend> [GROUP <group>] [LAUNCH <ranks>]
#                     [PARTIAL] ENVIRONMENT <env...> CASES <case...>)
#
# adds the test <name>.sim_rule_breaks: with no rule broken every probe
# rule.<group>.* passes or skips; unless PARTIAL, every probe that
# src/selftest/rules/rule-list.h lists for <group> has a case; and for each
# case the sim breaks that rule and `accel selftest --only rule.<group>.<id>`
# reports the probe FAIL or HANG while no other check hangs or crashes.
# <group> is the backend (default) or comm_<engine>, whose probes run under
# `accel launch -n <ranks>`. A case is a rule id, with `+VAR=VALUE` for what
# it needs (a slow stream so that work is still pending), or `ID!skip` for a
# probe that cannot observe its rule and must skip: the reason is written
# beside it. PARTIAL runs a subset on a second runtime of a backend whose
# full table another test covers. A case takes a fraction of a second, or
# the watchdog's 10 s for a probe that hangs; two run at once.
function(accel_rule_breaks name)
  cmake_parse_arguments(BREAK "PARTIAL" "BACKEND;GROUP;LAUNCH" "ENVIRONMENT;CASES" ${ARGN})
  set(options)
  if(BREAK_GROUP)
    list(APPEND options --group ${BREAK_GROUP})
  endif()
  if(BREAK_LAUNCH)
    list(APPEND options --launch ${BREAK_LAUNCH})
  endif()
  if(NOT BREAK_PARTIAL)
    list(APPEND options --rule-list ${PROJECT_SOURCE_DIR}/src/selftest/rules/rule-list.h)
  endif()
  add_test(NAME ${name}.sim_rule_breaks
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/rule_breaks.py ${options}
                   $<TARGET_FILE:accel_cli> ${BREAK_BACKEND} ${BREAK_CASES})
  set_tests_properties(${name}.sim_rule_breaks PROPERTIES LABELS "selftest" TIMEOUT 300
                       ENVIRONMENT "${BREAK_ENVIRONMENT};NO_COLOR=1")
endfunction()

# accel_sim_rule_breaks(): the tests, for each backend built with a sim
# (its <backend>_sim_env set by its registration function), and for each
# engine whose CCL sim is built, where mpirun is installed.
function(accel_sim_rule_breaks)
  find_package(Python3 COMPONENTS Interpreter)
  if(NOT Python3_EXECUTABLE)
    return()
  endif()
  find_program(ACCEL_MPIRUN mpirun)
  # Rank 0 exits 1 when its probe fails, and mpirun's abort of the job
  # then costs 2 s a case: not aborting keeps a case under a second. (The
  # other ranks exit 0, so rank 0 writes its report either way:
  # cli.selftest_comm_rank_fail.)
  set(mpi_env "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
              "OMPI_MCA_btl_vader_single_copy_mechanism=none" "ASAN_OPTIONS=detect_leaks=0"
              "OMPI_MCA_orte_abort_on_non_zero_status=0" "ACCEL_MPIRUN=${ACCEL_MPIRUN}")

  if(DEFINED npu_sim_env)
    accel_rule_breaks(npu BACKEND npu ENVIRONMENT ${npu_sim_env}
      CASES C1 C2 C3 C6 C7 C8 C9 C10 E1 E2 E3 E4 E6 M1 M2 M3 M6 M7 M8 M9 V1)
    # A CANN 7.x runtime (report threads, WithFlag events): the rules whose
    # probe takes another path there.
    accel_rule_breaks(npu_v7 BACKEND npu PARTIAL
      ENVIRONMENT "ACCEL_PLUGIN_PATH=" "ACCEL_NPU_LIBRARY=$<TARGET_FILE:ascendcl_sim_v7>"
      CASES C9 E3 E6 M6)
    if(ACCEL_MPIRUN AND TARGET hccl_sim)
      # H5 (HcclSend/HcclRecv block pairwise) is not observable in a running
      # job without a deadlock: its probe skips.
      accel_rule_breaks(hccl BACKEND npu GROUP comm_hccl LAUNCH 2
        ENVIRONMENT ${npu_sim_env} "ACCEL_HCCL_LIBRARY=$<TARGET_FILE:hccl_sim>"
                    "ACCEL_COMM_TIMEOUT=60" ${mpi_env}
        CASES H1 H2 H3 H4 H5!skip H6 H7 H8)
    endif()
  endif()

  if(DEFINED cuda_sim_env)
    accel_rule_breaks(cuda BACKEND cuda ENVIRONMENT ${cuda_sim_env}
      CASES CAP-ADDR CAP-QUERY-CAPTURED CAP-JOIN CAP-SYNC-CTX CAP-FREE CAP-LEGACY CU-STUB)
    if(ACCEL_MPIRUN AND TARGET nccl_sim)
      # CCL-NCCL-ROOT (one root per NCCL_COMM_ID address) cannot be observed
      # in a running job: its probe skips.
      accel_rule_breaks(nccl BACKEND cuda GROUP comm_nccl LAUNCH 2
        ENVIRONMENT ${cuda_sim_env} ${mpi_env} "ACCEL_ACCELERATOR=cuda"
                    "ACCEL_NCCL_LIBRARY=$<TARGET_FILE:nccl_sim>"
        CASES CCL-NCCL-COMMID CCL-NCCL-ROOT!skip NCCL-SPLIT NCCL-VERSIONS)
    endif()
  endif()
  if(DEFINED mlu_sim_env)
    accel_rule_breaks(mlu BACKEND mlu ENVIRONMENT ${mlu_sim_env}
      CASES CNRT-XDEV CNRT-H2H CNRT-UNITS CNRT-CAP-QUERY CNRT-CAP-JOIN CNRT-CAP-ADDR
            CNRT-CAP-RELAXED CNRT-HOSTMALLOC0)
    if(ACCEL_MPIRUN AND TARGET cncl_sim)
      accel_rule_breaks(cncl BACKEND mlu GROUP comm_cncl LAUNCH 2
        ENVIRONMENT ${mlu_sim_env} ${mpi_env} "ACCEL_ACCELERATOR=mlu"
                    "ACCEL_CNCL_LIBRARY=$<TARGET_FILE:cncl_sim>"
        CASES CNCL-CLIQUE CNCL-DEV CNCL-TYPES CNCL-GROUPS)
    endif()
  endif()
  if(DEFINED sdaa_sim_env)
    accel_rule_breaks(sdaa BACKEND sdaa ENVIRONMENT ${sdaa_sim_env}
      CASES SDAA-EVFLAGS SDAA-EVDESTROY SDAA-NOTREADY SDAA-CALLBACK SDAA-H2H SDAA-PAGEABLE)
    if(ACCEL_MPIRUN AND TARGET tccl_sim)
      accel_rule_breaks(tccl BACKEND sdaa GROUP comm_tccl LAUNCH 2
        ENVIRONMENT ${sdaa_sim_env} ${mpi_env} "ACCEL_ACCELERATOR=sdaa"
                    "ACCEL_TCCL_LIBRARY=$<TARGET_FILE:tccl_sim>"
        CASES TCCL-DEV TCCL-OVERLAP TCCL-NCCL-PARAMS TCCL-GROUPS)
    endif()
  endif()
  if(DEFINED hpu_sim_env)
    accel_rule_breaks(hpu BACKEND hpu ENVIRONMENT ${hpu_sim_env}
      CASES SYN-WAIT+ACCEL_SIM_STREAM_DELAY_US=20000
            SYN-DESTROY-BUSY+ACCEL_SIM_STREAM_DELAY_US=20000
            SYN-EVENT-DESTROY+ACCEL_SIM_STREAM_DELAY_US=20000 SYN-ELAPSED-NS SYN-DMA-HOST)
    if(ACCEL_MPIRUN AND TARGET hcl_sim)
      # R2 and R3 are about a process's first hcclGetUniqueId and
      # hcclCommInitRank, which the collectives' process made before the
      # probes run: their probes skip.
      accel_rule_breaks(habana_hccl BACKEND hpu GROUP comm_habana_hccl LAUNCH 2
        ENVIRONMENT ${hpu_sim_env} ${mpi_env} "ACCEL_ACCELERATOR=hpu"
                    "ACCEL_HABANA_HCCL_LIBRARY=$<TARGET_FILE:hcl_sim>"
        CASES R1 R2!skip R3!skip R4 HCL-OPS)
    endif()
  endif()
  if(DEFINED xpu_sim_env)
    set(env "${xpu_sim_env}")
    if(TARGET ze_sim_vpu)
      # Intel's NPU driver beside the GPU one, for ZE-VPU.
      list(FILTER env EXCLUDE REGEX "^ZE_ENABLE_ALT_DRIVERS=")
      list(APPEND env
           "ZE_ENABLE_ALT_DRIVERS=$<TARGET_FILE:ze_sim_vpu>,$<TARGET_FILE:ze_sim_driver>")
    endif()
    accel_rule_breaks(xpu BACKEND xpu ENVIRONMENT ${env}
      CASES ZE-ORDER+ACCEL_SIM_STREAM_DELAY_US=20000 ZE-TS-UNDEF ZE-TS-UNITS ZE-TS-WRAP
            ZE-POOL-DEV ZE-DESTROY-LIVE+ACCEL_SIM_STREAM_DELAY_US=20000 ZE-VPU)
  endif()
endfunction()
