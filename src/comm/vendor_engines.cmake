# vendor_engines.cmake: the vendor collectives engines (src/comm/<engine>/,
# dlopened at run time, nothing linked) and their declaration checks against
# the real headers where those can be had. Included by src/CMakeLists.txt
# after ACCEL_CORE_SOURCES is set: appends to it.
list(APPEND ACCEL_CORE_SOURCES
  comm/nccl/engine.c
  comm/hccl/engine.c
  comm/habana_hccl/engine.c
  comm/cncl/engine.c
  comm/tccl/engine.c
  comm/oneccl/engine.c
)

# nccl.declarations: our NCCL declarations against the real nccl.h (the CUDA
# toolkit's here). Building the target is the check.
find_path(ACCEL_NCCL_INCLUDE_DIR nccl.h
          HINTS $ENV{NCCL_HOME}/include $ENV{CUDA_HOME}/include $ENV{CUDA_PATH}/include
                /usr/local/cuda/include
          DOC "NCCL header (optional: nccl.declarations only)")
find_path(ACCEL_NCCL_CUDA_INCLUDE_DIR cuda_runtime.h
          HINTS $ENV{CUDA_HOME}/include $ENV{CUDA_PATH}/include /usr/local/cuda/include
          DOC "CUDA runtime header nccl.h includes (optional: nccl.declarations only)")
if(ACCEL_BUILD_TESTS AND ACCEL_NCCL_INCLUDE_DIR AND ACCEL_NCCL_CUDA_INCLUDE_DIR)
  add_executable(nccl_declarations_check comm/nccl/declarations_check.c)
  target_include_directories(nccl_declarations_check PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                             ${PROJECT_SOURCE_DIR}/include)
  target_include_directories(nccl_declarations_check SYSTEM PRIVATE ${ACCEL_NCCL_INCLUDE_DIR}
                             ${ACCEL_NCCL_CUDA_INCLUDE_DIR})
  target_compile_options(nccl_declarations_check PRIVATE -Werror=incompatible-pointer-types)
  target_link_libraries(nccl_declarations_check PRIVATE accel_warnings)
  add_test(NAME nccl.declarations COMMAND nccl_declarations_check)
  set_tests_properties(nccl.declarations PROPERTIES LABELS "unit")
  message(STATUS "accel comm: nccl declaration check against ${ACCEL_NCCL_INCLUDE_DIR}/nccl.h")
else()
  message(STATUS "accel comm: nccl.h not found; no nccl declaration check")
endif()

# hccl.declarations: our Ascend HCCL declarations against hccl.h from the
# torch-npu wheel (fetched once, shared with npu.declarations). HCCL's
# headers are C++ only: the script compiles the check with the C++ compiler.
if(ACCEL_BUILD_TESTS)
  add_test(NAME hccl.declarations
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/comm/hccl/hccl_declarations.sh
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/hccl-declarations)
  set_tests_properties(hccl.declarations PROPERTIES LABELS "unit" SKIP_RETURN_CODE 77)
endif()

# habana_hccl.declarations: our Habana HCCL declarations against HabanaAI/HCL's
# hccl.h (C++), fetched once with curl; skipped (77) with the reason offline.
if(ACCEL_BUILD_TESTS)
  add_test(NAME habana_hccl.declarations
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/comm/habana_hccl/habana_hccl_declarations.sh
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/habana-hccl-declarations)
  set_tests_properties(habana_hccl.declarations PROPERTIES LABELS "unit" SKIP_RETURN_CODE 77)
endif()
