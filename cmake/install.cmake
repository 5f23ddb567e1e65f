# Installs headers, both libraries, the CLI, accelConfig.cmake and accel.pc.
include(CMakePackageConfigHelpers)
install(DIRECTORY include/accel DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS accel accel_static accel_cli EXPORT accelTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT accelTargets NAMESPACE accel:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/accel)
configure_package_config_file(cmake/accelConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/accelConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/accel)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/accelConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/accelConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/accelConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/accel)
configure_file(cmake/accel.pc.in ${CMAKE_CURRENT_BINARY_DIR}/accel.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/accel.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# The schema of `accel selftest --json` reports (docs/selftest.md).
install(FILES src/selftest/report.schema.json DESTINATION ${CMAKE_INSTALL_DATADIR}/accel)
