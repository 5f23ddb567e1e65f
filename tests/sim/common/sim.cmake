# sim.cmake: how a simulated vendor runtime is built (included by
# tests/sim/CMakeLists.txt). Sims live in the build tree only: never
# installed, never on a default search path; a test points
# ACCEL_<NAME>_LIBRARY at the file.
#
#   accel_sim_library(<target> OUTPUT_NAME <file stem> SOURCES <files...>
#                     [OMIT <symbol>...])
#
# builds lib<file stem>.so from SOURCES with the shared fault injection and
# stream queue (sim_fault: sim_fault.h, sim_queue.h) linked in. OMIT makes a
# variant of the same sources in which the named exported functions are left
# out of the dynamic symbol table (a version script makes them local), so
# dlsym finds nothing: the way a sim plays an older runtime that lacks a
# symbol. A variant goes in its own folder (<build>/tests/sim/<target>/)
# under the same file name as the runtime it stands for, since some backends
# look libraries up by name.

add_library(sim_fault STATIC ${CMAKE_CURRENT_LIST_DIR}/sim_fault.c
            ${CMAKE_CURRENT_LIST_DIR}/sim_queue.c)
target_include_directories(sim_fault PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_compile_definitions(sim_fault PRIVATE _GNU_SOURCE)
target_compile_options(sim_fault PRIVATE -fvisibility=hidden)
target_link_libraries(sim_fault PUBLIC Threads::Threads PRIVATE accel_warnings)
set_target_properties(sim_fault PROPERTIES POSITION_INDEPENDENT_CODE ON)

function(accel_sim_library target)
  cmake_parse_arguments(SIM "" "OUTPUT_NAME" "SOURCES;OMIT;INCLUDES;DEFINITIONS" ${ARGN})
  add_library(${target} SHARED ${SIM_SOURCES})
  target_link_libraries(${target} PRIVATE sim_fault accel_warnings Threads::Threads)
  target_compile_definitions(${target} PRIVATE _GNU_SOURCE ${SIM_DEFINITIONS})
  target_compile_options(${target} PRIVATE -fvisibility=hidden)
  if(SIM_INCLUDES)
    target_include_directories(${target} SYSTEM PRIVATE ${SIM_INCLUDES})
  endif()
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${SIM_OUTPUT_NAME}
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/${target})
  if(SIM_OMIT)
    set(script ${CMAKE_CURRENT_BINARY_DIR}/${target}.map)
    list(JOIN SIM_OMIT "; " locals)
    file(WRITE ${script} "{ global: *; local: ${locals}; };\n")
    target_link_options(${target} PRIVATE "-Wl,--version-script=${script}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${script})
  endif()
endfunction()
