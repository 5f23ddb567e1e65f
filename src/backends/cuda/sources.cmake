# The CUDA backend's sources, relative to src/ (included by src/CMakeLists.txt
# when ACCEL_BACKEND_CUDA is ON). Nothing here links against the CUDA toolkit:
# libcuda, NVML and NVRTC are dlopened at run time. When the toolkit's headers
# are found at configure time they are used for two things only: the NVTX v3
# header-only range API, and the declaration check (cuda.declarations).
list(APPEND ACCEL_BACKEND_SOURCES
  backends/cuda/backend.c
  backends/cuda/kernels.c
  backends/cuda/loader.c
  backends/cuda/memory.c
  backends/cuda/rng.c
  backends/cuda/stream.c
  ops/cuda/fused_optim.c
)

set(ACCEL_CUDA_HINTS $ENV{CUDA_HOME}/include $ENV{CUDA_PATH}/include /usr/local/cuda/include)
find_path(ACCEL_CUDA_INCLUDE_DIR cuda.h HINTS ${ACCEL_CUDA_HINTS}
          DOC "CUDA toolkit headers (optional: declaration check only)")
find_path(ACCEL_NVTX3_INCLUDE_DIR nvtx3/nvToolsExt.h HINTS ${ACCEL_CUDA_HINTS}
          DOC "NVTX v3 headers (optional: NVTX ranges)")

# The backend's sources get the NVTX include path through this list, applied
# in src/CMakeLists.txt to accel_objects (SYSTEM: the header is not ours).
set(ACCEL_CUDA_NVTX_DEFINITIONS "")
if(ACCEL_NVTX3_INCLUDE_DIR)
  set_source_files_properties(backends/cuda/backend.c PROPERTIES
    COMPILE_DEFINITIONS ACCEL_CUDA_HAVE_NVTX3
    COMPILE_OPTIONS "-isystem;${ACCEL_NVTX3_INCLUDE_DIR}")
  message(STATUS "accel cuda: NVTX ranges via ${ACCEL_NVTX3_INCLUDE_DIR}/nvtx3")
else()
  message(STATUS "accel cuda: nvtx3/nvToolsExt.h not found; vendor profiler ranges are no-ops")
endif()

# Declaration check: our types.h/symbols.h against the real cuda.h and nvrtc.h.
# Building the target is the check; the test runs the (trivial) binary.
if(ACCEL_CUDA_INCLUDE_DIR AND EXISTS ${ACCEL_CUDA_INCLUDE_DIR}/nvrtc.h)
  add_executable(cuda_declarations_check backends/cuda/declarations_check.c)
  target_include_directories(cuda_declarations_check PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
    ${PROJECT_SOURCE_DIR}/include ${DLPACK_INCLUDE_DIR})
  target_include_directories(cuda_declarations_check SYSTEM PRIVATE ${ACCEL_CUDA_INCLUDE_DIR})
  target_compile_definitions(cuda_declarations_check PRIVATE _GNU_SOURCE)
  target_compile_options(cuda_declarations_check PRIVATE -Werror=incompatible-pointer-types)
  target_link_libraries(cuda_declarations_check PRIVATE accel_warnings)
  if(ACCEL_BUILD_TESTS)
    add_test(NAME cuda.declarations COMMAND cuda_declarations_check)
    set_tests_properties(cuda.declarations PROPERTIES LABELS "unit")
  endif()
  message(STATUS "accel cuda: declaration check against ${ACCEL_CUDA_INCLUDE_DIR}/cuda.h")
else()
  message(STATUS "accel cuda: cuda.h/nvrtc.h not found; no declaration check")
endif()

# NVRTC check: every CUDA C program of the backend (Philox fills, fused
# optimizer ops) compiles with this machine's NVRTC for sm_75, sm_80 and
# sm_90. Needs NVRTC, not a GPU; skips (77) where NVRTC cannot be loaded.
if(ACCEL_BUILD_TESTS)
  add_executable(cuda_nvrtc_check backends/cuda/nvrtc_check.c)
  target_compile_definitions(cuda_nvrtc_check PRIVATE _GNU_SOURCE)
  target_link_libraries(cuda_nvrtc_check PRIVATE accel_internal accel_warnings)
  add_test(NAME cuda.nvrtc_kernels COMMAND cuda_nvrtc_check)
  set_tests_properties(cuda.nvrtc_kernels PROPERTIES LABELS "unit" SKIP_RETURN_CODE 77
                       ENVIRONMENT "ACCEL_PLUGIN_PATH=")
endif()
