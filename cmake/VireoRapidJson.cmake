# RapidJSON (Debian's rapidjson-dev, header-only): the one JSON reader of the tree. vireo_server
# reads configs and REST bodies with it, genai/ reads tokenizer and generation configs, and the
# samples read -load_config files and check their own reports. Targets link vireo_rapidjson.
find_path(VIREO_RAPIDJSON_INCLUDE_DIR rapidjson/document.h)
if(NOT VIREO_RAPIDJSON_INCLUDE_DIR)
  message(FATAL_ERROR "RapidJSON is missing: install rapidjson-dev (scripts/install_deps.sh).")
endif()
add_library(vireo_rapidjson INTERFACE)
target_include_directories(vireo_rapidjson SYSTEM INTERFACE ${VIREO_RAPIDJSON_INCLUDE_DIR})
# Under clang's UBSan (the fuzz build), RapidJSON 1.1.0's own pointer arithmetic on a null stack
# is ignored in every target that uses it (rapidjson_ubsan_ignorelist.txt says why); every other
# check stays on.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND (VIREO_SANITIZE MATCHES "undefined" OR VIREO_BUILD_FUZZERS))
  target_compile_options(vireo_rapidjson INTERFACE
      -fsanitize-ignorelist=${CMAKE_CURRENT_LIST_DIR}/rapidjson_ubsan_ignorelist.txt)
endif()
