# The dependencies of the KServe v2 code (vireo_server, the shared client library server/kserve and
# the REMOTE plugin), found once at the top level so that their imported targets are visible to
# plugins/ and server/ alike. Included when VIREO_BUILD_SERVER is ON; a missing one stops the
# configuration with the packages to install.
find_package(Protobuf QUIET)
find_package(gRPC CONFIG QUIET)
pkg_check_modules(HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
find_program(VIREO_GRPC_PYTHON_PLUGIN grpc_python_plugin)
set(_missing "")
if(NOT gRPC_FOUND OR NOT TARGET gRPC::grpc_cpp_plugin)
  list(APPEND _missing "gRPC C++ (libgrpc++-dev, protobuf-compiler-grpc)")
endif()
if(NOT Protobuf_FOUND)
  list(APPEND _missing "protobuf (libprotobuf-dev, protobuf-compiler)")
endif()
if(NOT HTTPLIB_FOUND)
  list(APPEND _missing "cpp-httplib (libcpp-httplib-dev)")
endif()
if(_missing)
  list(JOIN _missing ", " _missing_text)
  message(FATAL_ERROR "VIREO_BUILD_SERVER is ON but these are missing: ${_missing_text}. "
                      "Run scripts/install_deps.sh, or configure with -DVIREO_BUILD_SERVER=OFF.")
endif()
