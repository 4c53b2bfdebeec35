# One layering case (see CMakeLists.txt): with the include directories of layer LAYER's target,
# OWN must compile and ABOVE must fail for want of the file, not for another reason.
string(REPLACE "|" ";" _dirs "${INCLUDES}")
set(_flags -std=c++17 -fsyntax-only)
foreach(_dir IN LISTS _dirs)
  list(APPEND _flags "-I${_dir}")
endforeach()
file(MAKE_DIRECTORY "${WORK}")
file(WRITE "${WORK}/own.cpp" "#include \"${OWN}\"\n")
file(WRITE "${WORK}/above.cpp" "#include \"${ABOVE}\"\n")

execute_process(COMMAND "${COMPILER}" ${_flags} "${WORK}/own.cpp"
                RESULT_VARIABLE _own_rc ERROR_VARIABLE _own_err)
if(NOT _own_rc EQUAL 0)
  message(FATAL_ERROR "control failed: ${OWN} does not compile with vireo_${LAYER}'s include "
                      "directories (${INCLUDES}):\n${_own_err}")
endif()
execute_process(COMMAND "${COMPILER}" ${_flags} "${WORK}/above.cpp"
                RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(_rc EQUAL 0)
  message(FATAL_ERROR "vireo_${LAYER} can include ${ABOVE}, a header of a layer above it: the "
                      "layer targets no longer keep the layering (core/CMakeLists.txt)")
endif()
if(NOT _err MATCHES "No such file or directory|file not found")
  message(FATAL_ERROR "including ${ABOVE} failed, but not because it is out of reach:\n${_err}")
endif()
message(STATUS "vireo_${LAYER}: ${OWN} compiles, ${ABOVE} is out of reach")
