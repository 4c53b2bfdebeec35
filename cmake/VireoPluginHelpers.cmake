# vireo_add_plugin(): builds a device plugin as a loadable module. In-tree plugins and plugins
# built out of tree against the installed package use this same function.
#
#   vireo_add_plugin(NAME my_plugin DEVICE_NAME MY_DEVICE VERSION 1.0.0
#                    SOURCES src/plugin.cpp ... [LINK_LIBRARIES Vireo::reference ...])
#
# The module has hidden visibility, exports only the entry symbol made by VIREO_DEFINE_PLUGIN,
# must resolve every symbol at link time, and is built without GNU-unique symbols so that
# dlclose really unloads it.
function(vireo_add_plugin)
  cmake_parse_arguments(ARG "" "NAME;DEVICE_NAME;VERSION" "SOURCES;LINK_LIBRARIES" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_SOURCES)
    message(FATAL_ERROR "vireo_add_plugin: NAME and SOURCES are required")
  endif()
  if(NOT ARG_VERSION)
    set(ARG_VERSION "${PROJECT_VERSION}")
  endif()
  add_library(${ARG_NAME} MODULE ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE Vireo::runtime ${ARG_LINK_LIBRARIES})
  target_compile_definitions(${ARG_NAME} PRIVATE
      VIREO_PLUGIN_VERSION="${ARG_VERSION}" VIREO_PLUGIN_DEVICE_NAME="${ARG_DEVICE_NAME}")
  set_target_properties(${ARG_NAME} PROPERTIES
      CXX_VISIBILITY_PRESET hidden
      VISIBILITY_INLINES_HIDDEN ON)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${ARG_NAME} PRIVATE -fno-gnu-unique)
  endif()
  if(NOT VIREO_SANITIZE)
    target_link_options(${ARG_NAME} PRIVATE -Wl,--no-undefined)
  endif()
endfunction()
