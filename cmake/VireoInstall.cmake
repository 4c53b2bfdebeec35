# Installation of the runtime, the SDK headers and the reference kernels.
install(TARGETS vireo vireo_reference EXPORT VireoTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY core/include/ sdk/include/ sdk/reference/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
