# ACCEL_SANITIZE=address builds everything with ASan+UBSan; =thread with TSan.
# ACCEL_BUILD_FUZZERS=ON (clang only) adds the libFuzzer harnesses of
# tests/fuzz: an ASan+UBSan build whose code all carries libFuzzer coverage.
option(ACCEL_BUILD_FUZZERS "Build the libFuzzer harnesses (clang; implies ACCEL_SANITIZE=address)" OFF)
if(ACCEL_BUILD_FUZZERS)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ACCEL_BUILD_FUZZERS needs clang (libFuzzer): configure with CC=clang")
  endif()
  set(ACCEL_SANITIZE "address" CACHE STRING "" FORCE)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
if(ACCEL_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
elseif(ACCEL_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT ACCEL_SANITIZE STREQUAL "")
  message(FATAL_ERROR "ACCEL_SANITIZE must be '', 'address' or 'thread'")
endif()

# Tests of a sanitizer build get the runtime options from one ctest include.
if(NOT ACCEL_SANITIZE STREQUAL "")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/sanitizer_env.cmake.in
                 ${PROJECT_BINARY_DIR}/sanitizer_env.cmake @ONLY)
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY TEST_INCLUDE_FILES
               ${PROJECT_BINARY_DIR}/sanitizer_env.cmake)
endif()
