# vireo_enable_unity_builds(): with VIREO_UNITY_BUILD on, compiles each GoogleTest executable of
# the build as a unity build (a few generated .cpp files that each #include up to 8 of its
# sources). Called once at the end of the top-level CMakeLists.txt, after every target exists.
#
# Why: a test source is mostly gtest/gmock and Vireo headers plus their inline and template code;
# compiled one file at a time, every file parses and (under the sanitizers, instruments and emits)
# the same code again. Measured on vireo_runtime_tests under ASan+UBSan at -O1 -g1 (GCC 12): 75 s
# of compiler CPU for its 9 files one by one, 36 s as one unity file (docs/reliability.md, CI budget).
# Only test executables: they are leaf targets whose sources share no code with other targets,
# so what a unity build can change (name clashes between files' internal helpers, a missing
# #include hidden by an earlier file) stays in the tests and shows as a compile error.
#
# test.sh turns it on for every CI build; it is off by default so that an edit-compile loop
# recompiles one file, and so that each test file is still compiled on its own (which checks it
# includes what it uses). Two files of one test target must therefore not define the same name
# at namespace scope, anonymous namespaces included: the CI build fails to compile if they do.

option(VIREO_UNITY_BUILD "Compile the GoogleTest executables as unity builds (test.sh: ON)" OFF)

# Test files compiled on their own even in a unity build: each defines a helper under the same
# name as another file of its target (anonymous namespaces do not separate files that share one
# unity file). Renaming the helpers lets a file leave this list.
set(VIREO_UNITY_BUILD_SKIP
    plugins/cpu/tests/runtime_test.cpp          # weights(), count_type()
    plugins/hetero/tests/requests_test.cpp      # named(), three_parts() (as in export_test)
    plugins/hetero/tests/split_test.cpp         # named()
    tests/unit/reference_math/unary_math_test.cpp       # struct UnaryCase (as in unary_extra)
    tests/unit/reference_tensor/scatter_nd_test.cpp     # eval() (as in one_hot_nonzero)
    tests/unit/reference_tensor/sequence_space_test.cpp # eval()
    tests/unit/onnx/onnx_bad_values_test.cpp    # kF32, kI64 (as in onnx_control_flow_test)
    tests/unit/onnx/onnx_recurrent_test.cpp     # kF32, int_attribute()
    tests/unit/onnx/onnx_semantics_test.cpp     # kF32, kI64, int_attribute()
)

# Appends to the list <out> the targets defined in <dir> and every directory below it.
function(_vireo_targets_below dir out)
  get_property(_here DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(_subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  set(_found ${${out}} ${_here})
  foreach(_sub IN LISTS _subdirs)
    _vireo_targets_below(${_sub} _found)
  endforeach()
  set(${out} ${_found} PARENT_SCOPE)
endfunction()

function(vireo_enable_unity_builds)
  if(NOT VIREO_UNITY_BUILD)
    return()
  endif()
  _vireo_targets_below(${PROJECT_SOURCE_DIR} _all)
  set(_count 0)
  foreach(_target IN LISTS _all)
    get_target_property(_type ${_target} TYPE)
    get_target_property(_libs ${_target} LINK_LIBRARIES)
    if(_type STREQUAL "EXECUTABLE" AND _libs MATCHES "GTest::")
      # 8 files a batch (CMake's default), so a 20-file target still compiles on both cores.
      set_target_properties(${_target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
      get_target_property(_sources ${_target} SOURCES)
      get_target_property(_dir ${_target} SOURCE_DIR)
      foreach(_source IN LISTS _sources)
        get_filename_component(_absolute ${_source} ABSOLUTE BASE_DIR ${_dir})
        file(RELATIVE_PATH _relative ${PROJECT_SOURCE_DIR} ${_absolute})
        if(_relative IN_LIST VIREO_UNITY_BUILD_SKIP)
          set_source_files_properties(${_source} TARGET_DIRECTORY ${_target}
                                      PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
        endif()
      endforeach()
      math(EXPR _count "${_count} + 1")
    endif()
  endforeach()
  message(STATUS "VIREO_UNITY_BUILD: ${_count} test executables compiled as unity builds")
endfunction()
