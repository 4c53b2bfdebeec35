# Warning flags and sanitizer options shared by every target of the build.
add_compile_options(-Wall -Wextra -Wno-unused-parameter)
# Clang refuses a narrowing conversion in braced initialisation; GCC only warns. Making it an error
# for GCC too keeps the plain build from accepting code the clang fuzz build then rejects.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options(-Werror=narrowing)
endif()
# GCC 12 reports false positives for std::string concatenation at -O2/-O3 (GCC bug 105329).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  add_compile_options(-Wno-restrict -Wno-array-bounds -Wno-stringop-overflow)
endif()
if(VIREO_WERROR)
  add_compile_options(-Werror)
endif()

if(VIREO_SANITIZE)
  string(REPLACE "," ";" _vireo_sanitizers "${VIREO_SANITIZE}")
  foreach(_s IN LISTS _vireo_sanitizers)
    if(NOT _s MATCHES "^(address|undefined|thread|leak)$")
      message(FATAL_ERROR "VIREO_SANITIZE: unknown sanitizer '${_s}' (use address, undefined, thread or leak)")
    endif()
  endforeach()
  # -g1 (line tables, no variable or type info) is all a sanitizer report needs: its stack
  # frames, inlined ones included, still name function, file and line. Full -g cost ~25% more
  # compile time per object under ASan+UBSan (GCC 12) and larger objects to link.
  add_compile_options(-fsanitize=${VIREO_SANITIZE} -fno-omit-frame-pointer -g1)
  add_link_options(-fsanitize=${VIREO_SANITIZE})
  if(VIREO_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
  add_compile_definitions(VIREO_SANITIZER_BUILD=1)
endif()
