# Debian packages made by CPack from the install components (`cmake --build build --target
# package`, or scripts/out_of_tree_check.sh, which builds, unpacks and uses them). Installed under
# /usr; docs/install.md lists the packages and their layout.
#
#   libvireo0.1    runtime: libvireo, libvireo_reference, the ONNX frontend module
#   libvireo-dev   headers, CMake package (find_package(Vireo)), pkg-config, the .so links
#   vireo-plugins  the in-tree devices (<libdir>/vireo/) and the plugins.xml that lists them
#   vireo-tools    samples (hello_infer, benchmark_app, vireo_convert, ...) and the test runners
#   python3-vireo  the vireo Python package (when the Python build is on)
#   vireo-server   vireo_server, the KServe v2 model server (when VIREO_BUILD_SERVER is on)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME vireo)
set(CPACK_PACKAGE_VENDOR "Vireo")
set(CPACK_PACKAGE_CONTACT "Vireo developers <vireo-dev@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Vireo inference runtime with device plugins")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)  # quickest to build; the packages are a few MB
set(CPACK_STRIP_FILES ON)
# Dependencies on Debian's libraries come from dpkg-shlibdeps; our own libraries resolve in the
# build tree and become the dependency on libvireo0.1 below.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(_components runtime dev plugins tools)
if(VIREO_BUILD_PYTHON AND TARGET _vireo)
  list(APPEND _components python)
endif()
if(TARGET vireo_server)
  list(APPEND _components server)
endif()
set(CPACK_COMPONENTS_ALL ${_components})

string(REGEX MATCH "^[0-9]+\\.[0-9]+" _soversion "${PROJECT_VERSION}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libvireo${_soversion})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "Vireo inference runtime: the application API, the plugin SDK and the ONNX reader")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libvireo-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DEPENDS runtime)
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "Vireo development files: headers, CMake package with vireo_add_plugin, pkg-config")

set(CPACK_DEBIAN_PLUGINS_PACKAGE_NAME vireo-plugins)
set(CPACK_DEBIAN_PLUGINS_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_PLUGINS_DEPENDS runtime)
set(CPACK_COMPONENT_PLUGINS_DESCRIPTION
    "Vireo's in-tree device plugins and the plugins.xml that registers them")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME vireo-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION science)
set(CPACK_COMPONENT_TOOLS_DEPENDS runtime plugins)
set(CPACK_COMPONENT_TOOLS_DESCRIPTION
    "Vireo tools: hello_infer, benchmark_app, vireo_convert, the conformance and ONNX runners")

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-vireo)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_COMPONENT_PYTHON_DEPENDS runtime plugins)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3 (>= 3.11), python3-numpy")
# vireo_quantize reads and writes ONNX files; the bindings themselves do not need it.
set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS "python3-onnx")
set(CPACK_COMPONENT_PYTHON_DESCRIPTION
    "Python bindings of Vireo, shaped like OpenVINO's, and the vireo_quantize tool")

set(CPACK_DEBIAN_SERVER_PACKAGE_NAME vireo-server)
set(CPACK_DEBIAN_SERVER_PACKAGE_SECTION net)
set(CPACK_COMPONENT_SERVER_DEPENDS runtime plugins)
set(CPACK_COMPONENT_SERVER_DESCRIPTION
    "vireo_server: serves Vireo models over the KServe v2 protocol (gRPC and REST)")

include(CPack)
