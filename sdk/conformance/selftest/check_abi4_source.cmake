# The vireo_conformance_abi4_source check: compiles SOURCE (a request written for plugin ABI 4)
# with the SDK's include directories INCLUDES ("|"-separated). It must not compile, and the
# compiler's messages must name CHANGELOG.md (where the migration note is).
string(REPLACE "|" ";" _dirs "${INCLUDES}")
set(_flags -std=c++17 -fsyntax-only)
foreach(_dir IN LISTS _dirs)
  list(APPEND _flags "-I${_dir}")
endforeach()
execute_process(COMMAND "${COMPILER}" ${_flags} "${SOURCE}"
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(_rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE}, written for plugin ABI 4, compiles against this SDK")
endif()
if(NOT _err MATCHES "CHANGELOG\\.md")
  message(FATAL_ERROR "the compiler refuses ${SOURCE} without pointing at CHANGELOG.md:\n${_err}")
endif()
string(REGEX MATCHALL "CHANGELOG\\.md" _mentions "${_err}")
list(LENGTH _mentions _count)
message(STATUS "an ABI 4 request does not compile; the messages name CHANGELOG.md ${_count} time(s)")
