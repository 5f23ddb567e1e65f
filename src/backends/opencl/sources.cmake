# The OpenCL backend's sources, relative to src/ (included by src/CMakeLists.txt
# when ACCEL_BACKEND_OPENCL is ON). No OpenCL SDK is needed to build it: the
# loader is opened with dlopen at run time.
list(APPEND ACCEL_BACKEND_SOURCES
  backends/opencl/backend.c
  backends/opencl/kernels.c
  backends/opencl/loader.c
  backends/opencl/memory.c
  backends/opencl/stream.c
  ops/opencl/fused_optim.c
)

# Where Khronos' headers are installed (Debian: opencl-c-headers), compile
# header_check.c: our declarations against the real <CL/cl.h>. Never linked.
find_path(ACCEL_OPENCL_INCLUDE_DIR CL/cl.h)
if(ACCEL_OPENCL_INCLUDE_DIR)
  add_library(accel_opencl_header_check OBJECT backends/opencl/header_check.c)
  target_include_directories(accel_opencl_header_check PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/include ${DLPACK_INCLUDE_DIR}
    ${ACCEL_OPENCL_INCLUDE_DIR})
  target_compile_options(accel_opencl_header_check PRIVATE -Werror=incompatible-pointer-types)
  target_link_libraries(accel_opencl_header_check PRIVATE accel_warnings)
else()
  message(STATUS "OpenCL headers not found: skipping the cl_types.h/symbols.h check")
endif()
