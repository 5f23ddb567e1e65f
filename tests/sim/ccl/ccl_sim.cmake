# ccl_sim.cmake: the simulated CCL libraries (this folder) and the comm
# engines' tests on them. Included by tests/sim/CMakeLists.txt, which calls
# accel_sim_register_ccl() after every runtime sim (each CCL sim links the
# runtime sim below it and reads its <backend>_sim_env).
# The CCL sims (Ascend libhccl, Cambricon libcncl, Habana libhcl, Tecorigin
# libtccl, NVIDIA libnccl) sit on top of the simulated runtimes and move data
# for real with Open MPI; the vendor collectives engines (src/comm/<engine>)
# are driven through their tables under mpirun (test_ccl_engines.c).
# Skipped, saying why, without MPI.

# accel_sim_library, then the MPI core and the runtime sim it synchronizes on.
function(accel_ccl_sim target runtime)
  accel_sim_library(${target} ${ARGN})
  target_link_libraries(${target} PRIVATE ccl_sim_core ${runtime})
  add_dependencies(test_ccl_engines ${target})
endfunction()

# The simulated libhcomm.so next to the libhccl.so sim `hccl_target` (same
# folder, as CANN installs them): HcclGroupStart/End, forwarded to that sim.
function(accel_hcomm_sim hccl_target)
  add_library(${hccl_target}_hcomm SHARED ccl/hcomm_sim.c)
  target_include_directories(${hccl_target}_hcomm PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/ccl
                             ${CMAKE_CURRENT_SOURCE_DIR}/common)
  target_compile_options(${hccl_target}_hcomm PRIVATE -fvisibility=hidden)
  target_link_libraries(${hccl_target}_hcomm PRIVATE ${hccl_target} accel_warnings)
  set_target_properties(${hccl_target}_hcomm PROPERTIES OUTPUT_NAME hcomm
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/${hccl_target})
  add_dependencies(test_ccl_engines ${hccl_target}_hcomm)
endfunction()

function(accel_sim_register_ccl)
  find_package(MPI COMPONENTS C QUIET)
  set(ccl_engine_tests "")
  set(comm_device_tests "")
  set(comm_label_tests "")
  if(MPI_C_FOUND AND MPIEXEC_EXECUTABLE)
    add_library(ccl_sim_core STATIC ccl/ccl_sim_core.c ccl/ccl_sim_reduce.c)
    target_include_directories(ccl_sim_core PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/ccl)
    target_compile_options(ccl_sim_core PRIVATE -fvisibility=hidden)
    target_compile_definitions(ccl_sim_core PRIVATE _GNU_SOURCE) # clock_gettime, nanosleep
    target_link_libraries(ccl_sim_core PUBLIC MPI::MPI_C m PRIVATE accel_warnings)
    set_target_properties(ccl_sim_core PROPERTIES POSITION_INDEPENDENT_CODE ON)
    add_executable(test_ccl_engines test_ccl_engines.c)
    target_compile_definitions(test_ccl_engines PRIVATE _GNU_SOURCE)
    target_link_libraries(test_ccl_engines PRIVATE accel_internal MPI::MPI_C accel_warnings m
                          ${CMAKE_DL_LIBS})
    # Two ranks on this machine; as root Open MPI wants to be told it may.
    set(ccl_mpirun ${MPIEXEC_EXECUTABLE} -n 2 --oversubscribe $<TARGET_FILE:test_ccl_engines>)
    set(ccl_env "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
        "OMPI_MCA_btl_vader_single_copy_mechanism=none" "ACCEL_SIM_STREAM_DELAY_US=200")
    # Under mpirun LeakSanitizer cannot tell Open MPI's leaks from ours: its
    # components are unloaded by MPI_Finalize, so their frames have no module
    # left to match a suppression. The MPI runs check memory errors only; the
    # single-process runs (missing, lacks, nogroups) keep leak detection.
    set(ccl_mpi_env ${ccl_env} "ASAN_OPTIONS=detect_leaks=0")
    if(ACCEL_BACKEND_NPU)
      # libhccl.so with libhcomm.so beside it (the group calls, as current
      # CANN ships them: README rule H6).
      accel_ccl_sim(hccl_sim ascendcl_sim OUTPUT_NAME hccl SOURCES ccl/hccl_sim.c)
      accel_hcomm_sim(hccl_sim)
      # Older CANN: a libhccl without HcclReduce (optional: the layer reduces
      # with all_reduce); one without the required HcclCommInitRootInfo.
      accel_ccl_sim(hccl_sim_no_reduce ascendcl_sim OUTPUT_NAME hccl SOURCES ccl/hccl_sim.c
                    OMIT HcclReduce)
      accel_hcomm_sim(hccl_sim_no_reduce)
      accel_ccl_sim(hccl_sim_no_init ascendcl_sim OUTPUT_NAME hccl SOURCES ccl/hccl_sim.c
                    OMIT HcclCommInitRootInfo)
      add_test(NAME hccl.sim_engine COMMAND ${ccl_mpirun} npu hccl)
      set_tests_properties(hccl.sim_engine PROPERTIES ENVIRONMENT
        "${npu_sim_env};${ccl_mpi_env};ACCEL_HCCL_LIBRARY=$<TARGET_FILE:hccl_sim>")
      # On an Ascend 950 (ACCEL_SIM_SOC): fp64 reductions are HCCL's too (H3).
      add_test(NAME hccl.sim_engine_950 COMMAND ${ccl_mpirun} npu hccl)
      set_tests_properties(hccl.sim_engine_950 PROPERTIES ENVIRONMENT
        "${npu_sim_env};${ccl_mpi_env};ACCEL_HCCL_LIBRARY=$<TARGET_FILE:hccl_sim>;ACCEL_SIM_SOC=Ascend950PR")
      list(APPEND ccl_engine_tests hccl.sim_engine_950)
      # `accel selftest`'s collectives on two npu ranks of `accel launch`
      # over this HCCL (docs/selftest.md): every comm.* check must pass.
      find_package(Python3 COMPONENTS Interpreter QUIET)
      if(Python3_Interpreter_FOUND)
        add_test(NAME selftest.npu_sim_comm_hccl
                 COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/cli/check_selftest_json.py
                         $<TARGET_FILE:accel_cli> --backend npu --launch 2 -- --only comm.)
        set_tests_properties(selftest.npu_sim_comm_hccl PROPERTIES LABELS "selftest;comm"
          TIMEOUT 120 ENVIRONMENT
          "${npu_sim_env};${ccl_mpi_env};ACCEL_HCCL_LIBRARY=$<TARGET_FILE:hccl_sim>")
      endif()
      add_test(NAME hccl.sim_lacks COMMAND test_ccl_engines lacks hccl HcclCommInitRootInfo)
      set_tests_properties(hccl.sim_lacks PROPERTIES ENVIRONMENT
        "${ccl_env};ACCEL_HCCL_LIBRARY=$<TARGET_FILE:hccl_sim_no_init>")
      add_test(NAME hccl.sim_no_reduce COMMAND test_ccl_engines noreduce hccl)
      set_tests_properties(hccl.sim_no_reduce PROPERTIES ENVIRONMENT
        "${ccl_env};ACCEL_HCCL_LIBRARY=$<TARGET_FILE:hccl_sim_no_reduce>")
      list(APPEND ccl_engine_tests hccl.sim_engine hccl.sim_lacks hccl.sim_no_reduce)
    endif()
    if(ACCEL_BACKEND_MLU)
      accel_ccl_sim(cncl_sim cnrt_sim OUTPUT_NAME cncl SOURCES ccl/cncl_sim.c)
      accel_ccl_sim(cncl_sim_no_groups cnrt_sim OUTPUT_NAME cncl SOURCES ccl/cncl_sim.c
                    OMIT cnclGroupStart cnclGroupEnd)
      add_test(NAME cncl.sim_engine COMMAND ${ccl_mpirun} mlu cncl)
      set_tests_properties(cncl.sim_engine PROPERTIES ENVIRONMENT
        "${mlu_sim_env};${ccl_mpi_env};ACCEL_CNCL_LIBRARY=$<TARGET_FILE:cncl_sim>")
      add_test(NAME cncl.sim_no_groups COMMAND test_ccl_engines nogroups cncl)
      set_tests_properties(cncl.sim_no_groups PROPERTIES ENVIRONMENT
        "${ccl_env};ACCEL_CNCL_LIBRARY=$<TARGET_FILE:cncl_sim_no_groups>")
      list(APPEND ccl_engine_tests cncl.sim_engine cncl.sim_no_groups)
    endif()
    if(ACCEL_BACKEND_HPU)
      accel_ccl_sim(hcl_sim synapse_sim OUTPUT_NAME hcl SOURCES ccl/hcl_sim.c)
      add_test(NAME habana_hccl.sim_engine COMMAND ${ccl_mpirun} hpu habana-hccl)
      set_tests_properties(habana_hccl.sim_engine PROPERTIES ENVIRONMENT
        "${hpu_sim_env};${ccl_mpi_env};ACCEL_HABANA_HCCL_LIBRARY=$<TARGET_FILE:hcl_sim>")
      # HCL's coordinator rules (tests/sim/README.md, the hcl table), one process.
      add_test(NAME habana_hccl.sim_coordinator COMMAND test_ccl_engines hcl_coordinator)
      set_tests_properties(habana_hccl.sim_coordinator PROPERTIES ENVIRONMENT
        "${hpu_sim_env};${ccl_env};ACCEL_HABANA_HCCL_LIBRARY=$<TARGET_FILE:hcl_sim>")
      list(APPEND ccl_engine_tests habana_hccl.sim_engine habana_hccl.sim_coordinator)
    endif()
    if(ACCEL_BACKEND_SDAA)
      # TCCL's group calls are not in the public tccl.h (optional, unconfirmed):
      # a variant without them; one without the required tcclReduce.
      accel_ccl_sim(tccl_sim sdaart_sim OUTPUT_NAME tccl SOURCES ccl/tccl_sim.c)
      accel_ccl_sim(tccl_sim_no_groups sdaart_sim OUTPUT_NAME tccl SOURCES ccl/tccl_sim.c
                    OMIT tcclGroupStart tcclGroupEnd)
      accel_ccl_sim(tccl_sim_no_reduce sdaart_sim OUTPUT_NAME tccl SOURCES ccl/tccl_sim.c
                    OMIT tcclReduce)
      add_test(NAME tccl.sim_engine COMMAND ${ccl_mpirun} sdaa tccl)
      set_tests_properties(tccl.sim_engine PROPERTIES ENVIRONMENT
        "${sdaa_sim_env};${ccl_mpi_env};ACCEL_TCCL_LIBRARY=$<TARGET_FILE:tccl_sim>")
      add_test(NAME tccl.sim_no_groups COMMAND test_ccl_engines nogroups tccl)
      set_tests_properties(tccl.sim_no_groups PROPERTIES ENVIRONMENT
        "${ccl_env};ACCEL_TCCL_LIBRARY=$<TARGET_FILE:tccl_sim_no_groups>")
      add_test(NAME tccl.sim_lacks COMMAND test_ccl_engines lacks tccl tcclReduce)
      set_tests_properties(tccl.sim_lacks PROPERTIES ENVIRONMENT
        "${ccl_env};ACCEL_TCCL_LIBRARY=$<TARGET_FILE:tccl_sim_no_reduce>")
      list(APPEND ccl_engine_tests tccl.sim_engine tccl.sim_no_groups tccl.sim_lacks)
    endif()
    if(TARGET cuda_sim)
      # A simulated libnccl.so.2 over the simulated CUDA driver; an older one
      # without the optional ncclGetLastError (2.13), ncclCommFinalize (2.14)
      # and ncclCommSplit (2.18), reporting 2.12.0; one without point-to-point (ncclSend and
      # ncclRecv, required: NCCL before 2.7).
      set(nccl_sim_options OUTPUT_NAME nccl SOURCES ccl/nccl_sim.c
          INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/cudadrv)
      accel_ccl_sim(nccl_sim cuda_sim ${nccl_sim_options})
      accel_ccl_sim(nccl_sim_old cuda_sim ${nccl_sim_options} OMIT ncclGetLastError ncclCommFinalize
                    ncclCommSplit)
      accel_ccl_sim(nccl_sim_no_p2p cuda_sim ${nccl_sim_options} OMIT ncclSend ncclRecv)
      set_target_properties(nccl_sim nccl_sim_old nccl_sim_no_p2p PROPERTIES SUFFIX ".so.2")
      add_test(NAME nccl.sim_engine COMMAND ${ccl_mpirun} cuda nccl)
      set_tests_properties(nccl.sim_engine PROPERTIES ENVIRONMENT
        "${cuda_sim_env};${ccl_mpi_env};ACCEL_NCCL_LIBRARY=$<TARGET_FILE:nccl_sim>")
      add_test(NAME nccl.sim_engine_old COMMAND ${ccl_mpirun} cuda nccl)
      set_tests_properties(nccl.sim_engine_old PROPERTIES ENVIRONMENT
        "${cuda_sim_env};${ccl_mpi_env};ACCEL_NCCL_LIBRARY=$<TARGET_FILE:nccl_sim_old>;ACCEL_SIM_NCCL_VERSION=21200"
        PASS_REGULAR_EXPRESSION "NCCL 2\\.12\\.0.*every check passed"
        FAIL_REGULAR_EXPRESSION "FAILED;AddressSanitizer;runtime error")
      add_test(NAME nccl.sim_lacks COMMAND test_ccl_engines lacks nccl ncclSend)
      set_tests_properties(nccl.sim_lacks PROPERTIES ENVIRONMENT
        "${ccl_env};ACCEL_NCCL_LIBRARY=$<TARGET_FILE:nccl_sim_no_p2p>")
      list(APPEND ccl_engine_tests nccl.sim_engine nccl.sim_engine_old nccl.sim_lacks)
    endif()
    # accel_comm.h end to end on each sim: the communicator layer's device
    # paths (unique-id bootstrap over MPI, avg on the device, in-place-only
    # broadcast, barrier and split fallbacks, device-buffer checks), 4 ranks
    # with run_mpi.sh (exit 77 saying why when mpirun is missing).
    find_program(ACCEL_MPIRUN mpirun)
    add_executable(comm_device comm_device.c ${PROJECT_SOURCE_DIR}/tests/comm/comm_check.c)
    target_include_directories(comm_device PRIVATE ${PROJECT_SOURCE_DIR}/tests/comm)
    target_compile_definitions(comm_device PRIVATE _GNU_SOURCE)
    target_link_libraries(comm_device PRIVATE accel accel_warnings m ${CMAKE_DL_LIBS})
    set(comm_device_run bash ${PROJECT_SOURCE_DIR}/tests/comm/run_mpi.sh 4
        $<TARGET_FILE:comm_device>)
    set(comm_device_env ${ccl_mpi_env} "ACCEL_MPIRUN=${ACCEL_MPIRUN}" "ACCEL_COMM_TIMEOUT=120")
    if(ACCEL_BACKEND_NPU)
      add_dependencies(comm_device hccl_sim hccl_sim_no_reduce hccl_sim_hcomm
                       hccl_sim_no_reduce_hcomm)
      add_test(NAME hccl.sim_comm COMMAND ${comm_device_run} hccl)
      set_tests_properties(hccl.sim_comm PROPERTIES ENVIRONMENT
        "${npu_sim_env};${comm_device_env};ACCEL_ACCELERATOR=npu;ACCEL_HCCL_LIBRARY=$<TARGET_FILE:hccl_sim>")
      # Rank 0 cannot make the root info: every rank's init fails, none waits;
      # then split's leaders cannot (their third and first calls).
      add_test(NAME hccl.sim_comm_no_root_info COMMAND ${comm_device_run} hccl HcclGetRootInfo)
      set_tests_properties(hccl.sim_comm_no_root_info PROPERTIES ENVIRONMENT
        "${npu_sim_env};${comm_device_env};ACCEL_ACCELERATOR=npu;ACCEL_HCCL_LIBRARY=$<TARGET_FILE:hccl_sim>;ACCEL_SIM_FAIL=HcclGetRootInfo:1:7,HcclGetRootInfo:3:7")
      # The same on two "hosts" (network namespaces, TCP between them).
      add_test(NAME hccl.sim_comm_two_hosts COMMAND bash
               ${PROJECT_SOURCE_DIR}/tests/comm/run_netns.sh 4 $<TARGET_FILE:comm_device> hccl)
      set_tests_properties(hccl.sim_comm_two_hosts PROPERTIES ENVIRONMENT
        "${npu_sim_env};${comm_device_env};ACCEL_ACCELERATOR=npu;ACCEL_HCCL_LIBRARY=$<TARGET_FILE:hccl_sim>")
      # accel_reduce on a libhccl without HcclReduce: the layer's fallback
      # (all_reduce into scratch, the copy on the root) end to end.
      add_test(NAME hccl.sim_comm_no_reduce COMMAND ${comm_device_run} hccl reduce)
      set_tests_properties(hccl.sim_comm_no_reduce PROPERTIES ENVIRONMENT
        "${npu_sim_env};${comm_device_env};ACCEL_ACCELERATOR=npu;ACCEL_HCCL_LIBRARY=$<TARGET_FILE:hccl_sim_no_reduce>")
      # HCCL_CONNECT_TIMEOUT: accel's timeout passed down while the variable is
      # unset, the user's value kept; a rank whose init fails (a member, then
      # rank 0) fails the others after it (3 s) instead of hanging them.
      add_test(NAME hccl.sim_comm_join_timeout COMMAND ${comm_device_run} hccl join_timeout)
      set_tests_properties(hccl.sim_comm_join_timeout PROPERTIES ENVIRONMENT
        "${npu_sim_env};${comm_device_env};ACCEL_ACCELERATOR=npu;ACCEL_HCCL_LIBRARY=$<TARGET_FILE:hccl_sim>")
      list(APPEND comm_device_tests hccl.sim_comm hccl.sim_comm_no_root_info hccl.sim_comm_two_hosts
           hccl.sim_comm_no_reduce hccl.sim_comm_join_timeout)
    endif()
    if(ACCEL_BACKEND_MLU)
      add_dependencies(comm_device cncl_sim)
      add_test(NAME cncl.sim_comm COMMAND ${comm_device_run} cncl)
      set_tests_properties(cncl.sim_comm PROPERTIES ENVIRONMENT
        "${mlu_sim_env};${comm_device_env};ACCEL_ACCELERATOR=mlu;ACCEL_CNCL_LIBRARY=$<TARGET_FILE:cncl_sim>")
      list(APPEND comm_device_tests cncl.sim_comm)
    endif()
    if(ACCEL_BACKEND_HPU)
      add_dependencies(comm_device hcl_sim)
      add_test(NAME habana_hccl.sim_comm COMMAND ${comm_device_run} habana-hccl)
      set_tests_properties(habana_hccl.sim_comm PROPERTIES ENVIRONMENT
        "${hpu_sim_env};${comm_device_env};ACCEL_ACCELERATOR=hpu;ACCEL_HABANA_HCCL_LIBRARY=$<TARGET_FILE:hcl_sim>")
      # ACCEL_COMM_BOOTSTRAP=env under mpirun: HCCL_COMM_ID from MASTER_ADDR and
      # MASTER_PORT, every rank's own hcclGetUniqueId, the sim checking that
      # they all derived the same id; then rank 3 with another port.
      foreach(mode env_bootstrap env_mismatch)
        add_test(NAME habana_hccl.sim_comm_${mode} COMMAND ${comm_device_run} habana-hccl ${mode})
        set_tests_properties(habana_hccl.sim_comm_${mode} PROPERTIES ENVIRONMENT
          "${hpu_sim_env};${comm_device_env};ACCEL_ACCELERATOR=hpu;ACCEL_HABANA_HCCL_LIBRARY=$<TARGET_FILE:hcl_sim>;MASTER_ADDR=127.0.0.1;MASTER_PORT=29500")
      endforeach()
      list(APPEND comm_device_tests habana_hccl.sim_comm habana_hccl.sim_comm_env_bootstrap
           habana_hccl.sim_comm_env_mismatch)
    endif()
    if(ACCEL_BACKEND_SDAA)
      add_dependencies(comm_device tccl_sim)
      add_test(NAME tccl.sim_comm COMMAND ${comm_device_run} tccl)
      set_tests_properties(tccl.sim_comm PROPERTIES ENVIRONMENT
        "${sdaa_sim_env};${comm_device_env};ACCEL_ACCELERATOR=sdaa;ACCEL_TCCL_LIBRARY=$<TARGET_FILE:tccl_sim>")
      # Rank 0 cannot make the unique id: every rank's init fails, none waits;
      # then split's leaders cannot (their third and first calls).
      add_test(NAME tccl.sim_comm_no_unique_id COMMAND ${comm_device_run} tccl tcclGetUniqueId)
      set_tests_properties(tccl.sim_comm_no_unique_id PROPERTIES ENVIRONMENT
        "${sdaa_sim_env};${comm_device_env};ACCEL_ACCELERATOR=sdaa;ACCEL_TCCL_LIBRARY=$<TARGET_FILE:tccl_sim>;ACCEL_SIM_FAIL=tcclGetUniqueId:1:3,tcclGetUniqueId:3:3")
      set(comm_label_tests tccl.sim_comm tccl.sim_comm_no_unique_id)
      list(APPEND comm_device_tests ${comm_label_tests})
    endif()
    if(TARGET nccl_sim)
      add_dependencies(comm_device nccl_sim nccl_sim_old)
      set(nccl_comm_env
          "${cuda_sim_env};${comm_device_env};ACCEL_ACCELERATOR=cuda;ACCEL_NCCL_LIBRARY=$<TARGET_FILE:nccl_sim>")
      add_test(NAME nccl.sim_comm COMMAND ${comm_device_run} nccl)
      set_tests_properties(nccl.sim_comm PROPERTIES ENVIRONMENT "${nccl_comm_env}")
      # Rank 0 cannot make the unique id: every rank's init fails, none waits;
      # then split's leaders cannot (their third and first calls). On the old
      # NCCL (2.12), whose splits go by unique id: the current one has
      # ncclCommSplit, which makes none.
      add_test(NAME nccl.sim_comm_no_unique_id COMMAND ${comm_device_run} nccl ncclGetUniqueId)
      set_tests_properties(nccl.sim_comm_no_unique_id PROPERTIES ENVIRONMENT
        "${cuda_sim_env};${comm_device_env};ACCEL_ACCELERATOR=cuda;ACCEL_NCCL_LIBRARY=$<TARGET_FILE:nccl_sim_old>;ACCEL_SIM_NCCL_VERSION=21200;ACCEL_SIM_FAIL=ncclGetUniqueId:1:3,ncclGetUniqueId:3:3")
      # ACCEL_COMM_BOOTSTRAP=env under mpirun: NCCL_COMM_ID from MASTER_ADDR
      # and MASTER_PORT, then splits (tests/sim/README.md, CCL-NCCL-COMMID):
      # through ncclCommSplit, and on an NCCL without it (2.12) refused alike
      # on every rank, since the colors' roots would collide.
      add_test(NAME nccl.sim_comm_env_bootstrap COMMAND ${comm_device_run} nccl env_bootstrap)
      add_test(NAME nccl.sim_comm_env_bootstrap_old COMMAND ${comm_device_run} nccl env_bootstrap)
      set_tests_properties(nccl.sim_comm_env_bootstrap PROPERTIES ENVIRONMENT
        "${nccl_comm_env};MASTER_ADDR=127.0.0.1;MASTER_PORT=29500")
      set_tests_properties(nccl.sim_comm_env_bootstrap_old PROPERTIES ENVIRONMENT
        "${cuda_sim_env};${comm_device_env};ACCEL_ACCELERATOR=cuda;ACCEL_NCCL_LIBRARY=$<TARGET_FILE:nccl_sim_old>;ACCEL_SIM_NCCL_VERSION=21200;MASTER_ADDR=127.0.0.1;MASTER_PORT=29500")
      list(APPEND comm_label_tests nccl.sim_comm nccl.sim_comm_no_unique_id)
      list(APPEND comm_device_tests nccl.sim_comm nccl.sim_comm_no_unique_id
           nccl.sim_comm_env_bootstrap nccl.sim_comm_env_bootstrap_old)
    endif()
    # native_stream's default-stream handle (NULL on the sdaa runtime), which
    # tccl.sim_engine does not look at.
    if(ACCEL_BACKEND_SDAA)
      add_test(NAME sdaa.native_stream COMMAND test_ccl_engines native sdaa)
      set_tests_properties(sdaa.native_stream PROPERTIES ENVIRONMENT "${sdaa_sim_env}")
      list(APPEND ccl_engine_tests sdaa.native_stream)
    endif()
    # A library that does not load: the sentence names it, its variable and
    # every place tried.
    foreach(engine nccl hccl habana-hccl cncl tccl oneccl)
      string(REPLACE "-" "_" test_name ${engine})
      add_test(NAME ${test_name}.missing COMMAND test_ccl_engines missing ${engine})
      # (skipped, 77, where the real library is installed and loads)
      set_tests_properties(${test_name}.missing PROPERTIES SKIP_RETURN_CODE 77)
      list(APPEND ccl_engine_tests ${test_name}.missing)
    endforeach()
    # oneccl on oneCCL's real libccl.so.2 (PyPI's oneccl wheel, fetched once):
    # loads, calls nothing (oneCCL's own error text, printed by its first call
    # where its plugins cannot load, fails the test) and refuses communicators.
    add_test(NAME oneccl.real_library
             COMMAND sh ${PROJECT_SOURCE_DIR}/src/comm/oneccl/oneccl_real_library.sh
                     $<TARGET_FILE:test_ccl_engines>)
    set_tests_properties(oneccl.real_library PROPERTIES SKIP_RETURN_CODE 77
                         FAIL_REGULAR_EXPRESSION "oneCCL ERROR;could not be initialized")
    list(APPEND ccl_engine_tests oneccl.real_library)
    list(APPEND ccl_engine_tests ${comm_device_tests})
    set_tests_properties(${ccl_engine_tests} PROPERTIES LABELS "unit" TIMEOUT 120)
    if(comm_device_tests)
      set_tests_properties(${comm_device_tests} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
    endif()
    if(comm_label_tests)
      set_property(TEST ${comm_label_tests} APPEND PROPERTY LABELS comm)
    endif()
  else()
    foreach(name hccl.sim_engine cncl.sim_engine habana_hccl.sim_engine tccl.sim_engine hccl.sim_comm
                 cncl.sim_comm habana_hccl.sim_comm tccl.sim_comm hccl.sim_comm_no_root_info
                 hccl.sim_comm_two_hosts hccl.sim_comm_no_reduce hccl.sim_comm_join_timeout
                 habana_hccl.sim_comm_env_bootstrap habana_hccl.sim_comm_env_mismatch
                 habana_hccl.sim_coordinator nccl.sim_engine nccl.sim_comm)
      add_test(NAME ${name} COMMAND sh -c
               "echo '${name}: SKIPPED: no MPI here (Open MPI: openmpi-bin libopenmpi-dev)'; exit 77")
      set_tests_properties(${name} PROPERTIES LABELS "unit" SKIP_RETURN_CODE 77)
    endforeach()
  endif()
endfunction()
