# Installs libsgemm_dispatch with its header, a CMake package (sgemm_dispatch::sgemm_dispatch)
# and a pkg-config file, and the interposer libsgemm_cublas beside it (it opens the dispatcher from
# its own folder).
include(CMakePackageConfigHelpers)

install(TARGETS sgemm_dispatch EXPORT sgemm_dispatch_targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS sgemm_cublas LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT sgemm_dispatch_targets NAMESPACE sgemm_dispatch::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sgemm_dispatch)
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/sgemm_dispatchConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/sgemm_dispatchConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sgemm_dispatch)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/sgemm_dispatchConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/sgemm_dispatchConfig.cmake"
              "${PROJECT_BINARY_DIR}/sgemm_dispatchConfigVersion.cmake"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sgemm_dispatch)

configure_file("${PROJECT_SOURCE_DIR}/cmake/sgemm_dispatch.pc.in"
               "${PROJECT_BINARY_DIR}/sgemm_dispatch.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/sgemm_dispatch.pc"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
