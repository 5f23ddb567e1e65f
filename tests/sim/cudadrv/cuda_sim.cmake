# cuda_sim.cmake: the simulated CUDA driver (libcuda.so) and the tests that
# run the cuda backend on it. Included by tests/sim/CMakeLists.txt, which
# calls accel_sim_register_cuda() when the cuda backend is built (before the
# CCL sims: the simulated libnccl links this one); it sets cuda_sim_env.
# The sim runs the backend's real kernel sources on the host
# (cu_sim_kernels.cc), so it needs a C++17 compiler; NVRTC is the real one
# (the backend compiles its kernels with it, the sim checks the image).
include(CheckLanguage)
if(NOT CMAKE_CXX_COMPILER AND NOT DEFINED ENV{CXX} AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  # A sanitizer build links one runtime: the C++ half must use clang too.
  find_program(ACCEL_CLANGXX NAMES clang++ clang++-14)
  if(ACCEL_CLANGXX)
    set(CMAKE_CXX_COMPILER ${ACCEL_CLANGXX})
  endif()
endif()
# (enable_language must run at file scope, not in the function below.)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
endif()

function(accel_sim_register_cuda)
  if(NOT CMAKE_CXX_COMPILER)
    message(STATUS "accel sim: no C++ compiler; the simulated libcuda (tests/sim/cudadrv) is not built")
    return()
  endif()

  # The backend's CUDA C programs, written out as NVRTC receives them.
  set(cu_sim_gen ${CMAKE_CURRENT_BINARY_DIR}/cudadrv_kernels)
  add_executable(cuda_sim_dump_kernels cudadrv/dump_kernels.c)
  target_compile_definitions(cuda_sim_dump_kernels PRIVATE _GNU_SOURCE)
  target_link_libraries(cuda_sim_dump_kernels PRIVATE accel_internal accel_warnings)
  add_custom_command(OUTPUT ${cu_sim_gen}/accel_philox.cu ${cu_sim_gen}/accel_fused_optim.cu
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${cu_sim_gen}
                     COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
                             $<TARGET_FILE:cuda_sim_dump_kernels> ${cu_sim_gen}
                     DEPENDS cuda_sim_dump_kernels
                     COMMENT "Writing the cuda backend's kernel sources for the cuda sim" VERBATIM)
  add_custom_target(cuda_sim_kernel_sources
                    DEPENDS ${cu_sim_gen}/accel_philox.cu ${cu_sim_gen}/accel_fused_optim.cu)

  # Host C++ over cuda_emulation.h; contraction off, so only the fmas the
  # source spells out fuse (NVRTC gets --fmad=false for the same reason).
  add_library(cuda_sim_kernels OBJECT cudadrv/cu_sim_kernels.cc)
  add_dependencies(cuda_sim_kernels cuda_sim_kernel_sources)
  set_source_files_properties(cudadrv/cu_sim_kernels.cc PROPERTIES OBJECT_DEPENDS
                              "${cu_sim_gen}/accel_philox.cu;${cu_sim_gen}/accel_fused_optim.cu")
  target_include_directories(cuda_sim_kernels PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cudadrv ${cu_sim_gen})
  target_compile_features(cuda_sim_kernels PRIVATE cxx_std_17)
  target_compile_options(cuda_sim_kernels PRIVATE -fvisibility=hidden -ffp-contract=off
                         -Wall -Wno-unknown-pragmas -Wno-unused-function)
  set_target_properties(cuda_sim_kernels PROPERTIES POSITION_INDEPENDENT_CODE ON)
  # UBSan's C++-only checks need the C++ runtime, which the C test programs
  # that load the sim do not link.
  if(ACCEL_SANITIZE STREQUAL "address")
    target_compile_options(cuda_sim_kernels PRIVATE
                           $<IF:$<CXX_COMPILER_ID:Clang>,-fno-sanitize=function$<COMMA>vptr,-fno-sanitize=vptr>)
  endif()

  set(cuda_sim_sources cudadrv/cu_sim_device.c cudadrv/cu_sim_stream.c cudadrv/cu_sim_module.c
                       cudadrv/cu_sim_half.c cudadrv/cu_sim_nvml.c
                       $<TARGET_OBJECTS:cuda_sim_kernels>)
  accel_sim_library(cuda_sim OUTPUT_NAME cuda SOURCES ${cuda_sim_sources}
                    INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/cudadrv)
  target_link_libraries(cuda_sim PRIVATE m)
  set_target_properties(cuda_sim PROPERTIES LINKER_LANGUAGE CXX)
  # A driver older than CUDA 11.4: no cuGraphInstantiateWithFlags.
  accel_sim_library(cuda_sim_no_graphs OUTPUT_NAME cuda SOURCES ${cuda_sim_sources}
                    INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/cudadrv OMIT cuGraphInstantiateWithFlags)
  target_link_libraries(cuda_sim_no_graphs PRIVATE m)
  set_target_properties(cuda_sim_no_graphs PROPERTIES LINKER_LANGUAGE CXX)
  add_dependencies(accel_cli cuda_sim cuda_sim_no_graphs)

  # The same file serves as NVML (cu_sim_nvml.c): the backend counts devices
  # without cuInit, as with a real driver.
  set(cuda_sim_env "ACCEL_PLUGIN_PATH=" "ACCEL_CUDA_LIBRARY=$<TARGET_FILE:cuda_sim>"
                   "ACCEL_NVML_LIBRARY=$<TARGET_FILE:cuda_sim>")
  set(cuda_sim_env "${cuda_sim_env}" PARENT_SCOPE)
  # Without NVML, so that the probe's cuInit and cuMemGetInfo_v2 are call sites.
  set(cuda_sim_no_nvml_env "ACCEL_PLUGIN_PATH=" "ACCEL_CUDA_LIBRARY=$<TARGET_FILE:cuda_sim>"
                           "ACCEL_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1")
  accel_sim_conformance(cuda ${cuda_sim_env})
  add_test(NAME conformance.cuda_sim_no_graphs COMMAND conformance cuda)
  set_tests_properties(conformance.cuda_sim_no_graphs PROPERTIES LABELS "conformance" ENVIRONMENT
    "ACCEL_PLUGIN_PATH=;ACCEL_CUDA_LIBRARY=$<TARGET_FILE:cuda_sim_no_graphs>;ACCEL_NVML_LIBRARY=$<TARGET_FILE:cuda_sim_no_graphs>")
  # Without NVML: counted with cuInit, free memory from cuMemGetInfo.
  add_test(NAME conformance.cuda_sim_no_nvml COMMAND conformance cuda)
  set_tests_properties(conformance.cuda_sim_no_nvml PROPERTIES LABELS "conformance" ENVIRONMENT
                       "${cuda_sim_no_nvml_env}")

  # Every CUDA driver call site of the backend made to fail, and what follows.
  accel_sim_fault_test(cuda ENVIRONMENT ${cuda_sim_no_nvml_env} DEPENDS cuda_sim)

  # A device without memory pools (cuMemAllocAsync: CUDA_ERROR_NOT_SUPPORTED,
  # as on some vGPU and WSL setups): fused_lamb falls back to cuMemAlloc.
  add_test(NAME conformance.cuda_sim_no_memory_pools COMMAND conformance cuda)
  set_tests_properties(conformance.cuda_sim_no_memory_pools PROPERTIES LABELS "conformance"
                       ENVIRONMENT "${cuda_sim_env};ACCEL_SIM_FAIL=cuMemAllocAsync:*:801")
  # A device newer than NVRTC knows (sm_150): the kernels come as PTX for the
  # newest architecture NVRTC has, which the driver compiles for the device.
  add_test(NAME conformance.cuda_sim_newer_than_nvrtc COMMAND conformance cuda)
  set_tests_properties(conformance.cuda_sim_newer_than_nvrtc PROPERTIES LABELS "conformance"
                       ENVIRONMENT "${cuda_sim_env};ACCEL_SIM_CUDA_CC=15.0")
  # A driver older than the NVRTC found (CUDA 11.8 here): the kernels are
  # refused with a sentence that says which NVRTC to install.
  add_test(NAME cuda.sim_nvrtc_newer_than_driver COMMAND accel_cli demo)
  set_tests_properties(cuda.sim_nvrtc_newer_than_driver PROPERTIES LABELS "cli"
    ENVIRONMENT "${cuda_sim_env};ACCEL_ACCELERATOR=cuda;ACCEL_SIM_CUDA_DRIVER_VERSION=11080"
    PASS_REGULAR_EXPRESSION "is newer than the driver \\(CUDA 11\\.8\\), which cannot load what it builds; install NVRTC 11")

  # tests/cuda (configured after this folder) runs its GPU programs on the
  # sim too, with this environment.
  set_property(GLOBAL PROPERTY ACCEL_CUDA_SIM_ENV "${cuda_sim_env}")
endfunction()
