# declarations.cmake: every vendor backend's declaration check, registered
# here and nowhere else in tests/sim. A check compiles the backend's own
# vendor declarations (src/backends/<name>/declarations_check.c) against the
# vendor's real headers, so a wrong name, type or value fails the build of
# the check. Headers that must be fetched or installed are looked for at test
# time by a script, which exits 77 (skipped, saying why) where there are
# none; Level Zero's come from a Debian package, so xpu's check is a target.
# (cuda.declarations and the comm engines' checks live beside their code in
# src/.)

# <backend>.declarations: `sh <script> <C compiler> <source dir> <work dir>`.
function(accel_sim_declarations_script backend script)
  add_test(NAME ${backend}.declarations
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/${script} ${CMAKE_C_COMPILER}
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/${backend}-declarations)
  set_tests_properties(${backend}.declarations PROPERTIES LABELS "unit" SKIP_RETURN_CODE 77)
endfunction()

function(accel_sim_register_declarations)
  # ACL against CANN's headers from the torch-npu wheel (fetched once).
  if(ACCEL_BACKEND_NPU)
    accel_sim_declarations_script(npu npu_declarations.sh)
  endif()
  # Synapse against SynapseAI's headers, HLML against the habana-pyhlml
  # wheel (both fetched once).
  if(ACCEL_BACKEND_HPU)
    accel_sim_declarations_script(hpu hpu_declarations.sh)
  endif()
  # CNRT against an installed cnrt.h (NEUWARE_HOME/include): no public
  # package this build can fetch ships it.
  if(ACCEL_BACKEND_MLU)
    accel_sim_declarations_script(mlu mlu_declarations.sh)
  endif()
  # Level Zero against the real ze_api.h (libze-dev), when it is installed;
  # without it the xpu tests are one skipped test (ze_driver/xpu_sim.cmake).
  # No declarations test for sdaa: the Teco SDK's headers are in no package.
  if(ACCEL_BACKEND_XPU)
    find_path(ACCEL_ZE_INCLUDE_DIR level_zero/ze_ddi.h DOC "Level Zero headers (libze-dev)")
    find_library(ACCEL_ZE_LOADER NAMES libze_loader.so.1 ze_loader
                 DOC "the Level Zero loader (libze1)")
    if(ACCEL_ZE_INCLUDE_DIR AND ACCEL_ZE_LOADER)
      set(xpu ${PROJECT_SOURCE_DIR}/src/backends/xpu)
      add_executable(xpu_declarations_check ${xpu}/declarations_check.c
                     ${xpu}/declarations_layout.c)
      target_include_directories(xpu_declarations_check PRIVATE ${PROJECT_SOURCE_DIR}/src
                                 ${PROJECT_SOURCE_DIR}/include)
      target_include_directories(xpu_declarations_check SYSTEM PRIVATE ${ACCEL_ZE_INCLUDE_DIR})
      target_compile_options(xpu_declarations_check PRIVATE -Werror=incompatible-pointer-types)
      target_link_libraries(xpu_declarations_check PRIVATE accel_warnings)
      add_test(NAME xpu.declarations COMMAND xpu_declarations_check)
      set_tests_properties(xpu.declarations PROPERTIES LABELS "unit")
    endif()
  endif()
endfunction()
