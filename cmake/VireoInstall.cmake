# Installation of the runtime, the reference kernels, every public header, and the package
# files that let other projects build against Vireo: VireoConfig.cmake (find_package(Vireo)),
# VireoTargets.cmake (Vireo::runtime, Vireo::reference), VireoPluginHelpers.cmake
# (vireo_add_plugin) and vireo.pc (pkg-config).
include(CMakePackageConfigHelpers)

set(VIREO_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Vireo CACHE STRING
    "Where VireoConfig.cmake is installed, relative to the prefix")

# Install components (docs/install.md; each is one Debian package, see VireoPackaging.cmake):
# runtime (the shared libraries and the ONNX frontend), dev (headers, CMake package, pkg-config,
# the .so links), plugins (the in-tree devices and plugins.xml), tools (samples, conformance and
# ONNX backend runners), python (the vireo package).
install(TARGETS vireo vireo_reference EXPORT VireoTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The three header tiers: application API (core's and the runtime's headers, both into
# include/vireo/), plugin SDK, reference kernels.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/
                  ${PROJECT_SOURCE_DIR}/runtime/include/
                  ${PROJECT_SOURCE_DIR}/sdk/include/
                  ${PROJECT_SOURCE_DIR}/sdk/reference/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")

install(EXPORT VireoTargets NAMESPACE Vireo:: DESTINATION ${VIREO_INSTALL_CMAKEDIR} COMPONENT dev)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/VireoConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/VireoConfig.cmake
                              INSTALL_DESTINATION ${VIREO_INSTALL_CMAKEDIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# The library's SONAME carries major.minor, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/VireoConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/VireoConfig.cmake
              ${PROJECT_BINARY_DIR}/package/VireoConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/VireoPluginHelpers.cmake
        DESTINATION ${VIREO_INSTALL_CMAKEDIR} COMPONENT dev)

# pkg-config: the prefix is found relative to the .pc file, so `cmake --install --prefix X`
# (which cannot re-run configure_file) still yields a correct file.
set(_vireo_pc_up "..")  # from <libdir>/pkgconfig up to <libdir>
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(VIREO_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(VIREO_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  string(REPLACE "/" ";" _vireo_libdir_parts "${CMAKE_INSTALL_LIBDIR}")
  foreach(_part IN LISTS _vireo_libdir_parts)
    string(APPEND _vireo_pc_up "/..")
  endforeach()
  set(VIREO_PC_PREFIX "\${pcfiledir}/${_vireo_pc_up}")
  set(VIREO_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(VIREO_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(VIREO_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/vireo.pc.in ${PROJECT_BINARY_DIR}/package/vireo.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/vireo.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)
