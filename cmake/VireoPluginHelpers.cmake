# vireo_add_plugin(): builds a device plugin as a loadable module. In-tree plugins and plugins
# built out of tree against the installed package use this same function.
#
#   vireo_add_plugin(NAME my_plugin DEVICE_NAME MY_DEVICE VERSION 1.0.0 [INSTALL]
#                    SOURCES src/plugin.cpp ... [LINK_LIBRARIES Vireo::reference ...]
#                    [XML_PROPERTIES KEY=VALUE ...])
#
# XML_PROPERTIES (inside Vireo's build) go into the device's plugins.xml entry as <property>
# defaults. The registry keys META_DEVICE and FALLBACK_DEVICES written this way override what the
# plugin itself declares; the in-tree meta-devices declare theirs in their property tables and
# pass none (docs/plugin_author_guide.md, "Declaring a meta-device").
#
# INSTALL installs the module into <libdir>/vireo (component `plugins`) and, inside Vireo's own
# build, lists it in the plugins.xml installed there, so an installed prefix (or the
# Debian packages) can run `hello_infer -d MY_DEVICE` with no further setup.
#
# The module has hidden visibility, exports only the entry symbol made by VIREO_DEFINE_PLUGIN,
# must resolve every symbol at link time, and is built without GNU-unique symbols so that
# dlclose really unloads it.
function(vireo_add_plugin)
  cmake_parse_arguments(ARG "INSTALL" "NAME;DEVICE_NAME;VERSION" "SOURCES;LINK_LIBRARIES;XML_PROPERTIES"
                        ${ARGN})
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
  # A version script makes every symbol but the entry local. Hidden visibility alone leaves the
  # std:: template instantiations the module compiles (libstdc++ declares them with default
  # visibility) exported, and a library the module pulled in (libvireo_reference) may then bind
  # its own calls to them, which pins the module in memory after unload_plugin.
  set(_exports ${CMAKE_CURRENT_BINARY_DIR}/${ARG_NAME}.exports.map)
  file(WRITE ${_exports} "{\n  global: vireo_plugin_entry;\n  local: *;\n};\n")
  target_link_options(${ARG_NAME} PRIVATE "-Wl,--version-script=${_exports}")
  set_property(TARGET ${ARG_NAME} APPEND PROPERTY LINK_DEPENDS ${_exports})
  # Inside Vireo's own build, list the plugin in the build tree's plugins.xml.
  if(VIREO_IN_TREE AND ARG_DEVICE_NAME)
    set_property(GLOBAL APPEND PROPERTY VIREO_BUILD_PLUGINS "${ARG_DEVICE_NAME}|${ARG_NAME}")
    set_property(GLOBAL PROPERTY VIREO_PLUGIN_XML_PROPERTIES_${ARG_DEVICE_NAME} ${ARG_XML_PROPERTIES})
  endif()
  if(ARG_INSTALL)
    include(GNUInstallDirs)
    # One level below libvireo: its RUNPATH points up to find libvireo_reference and the rest.
    set_target_properties(${ARG_NAME} PROPERTIES INSTALL_RPATH "$ORIGIN/..")
    install(TARGETS ${ARG_NAME} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/vireo COMPONENT plugins)
    if(VIREO_IN_TREE AND ARG_DEVICE_NAME)
      set_property(GLOBAL APPEND PROPERTY VIREO_INSTALL_PLUGINS "${ARG_DEVICE_NAME}|${ARG_NAME}")
    endif()
  endif()
endfunction()

# vireo_add_extension(): builds an extension library (custom ops; Core::add_extension) as a
# loadable module, with the same rules as plugins: hidden visibility, only the entry symbol
# (made by VIREO_DEFINE_EXTENSION) exported, every symbol resolved at link time.
#
#   vireo_add_extension(NAME my_ops SOURCES src/my_ops.cpp [LINK_LIBRARIES ...])
function(vireo_add_extension)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;LINK_LIBRARIES" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_SOURCES)
    message(FATAL_ERROR "vireo_add_extension: NAME and SOURCES are required")
  endif()
  add_library(${ARG_NAME} MODULE ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE Vireo::runtime Vireo::reference ${ARG_LINK_LIBRARIES})
  set_target_properties(${ARG_NAME} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${ARG_NAME} PRIVATE -fno-gnu-unique)
  endif()
  if(NOT VIREO_SANITIZE)
    target_link_options(${ARG_NAME} PRIVATE -Wl,--no-undefined)
  endif()
  set(_exports ${CMAKE_CURRENT_BINARY_DIR}/${ARG_NAME}.exports.map)
  file(WRITE ${_exports} "{\n  global: vireo_extension_entry;\n  local: *;\n};\n")
  target_link_options(${ARG_NAME} PRIVATE "-Wl,--version-script=${_exports}")
  set_property(TARGET ${ARG_NAME} APPEND PROPERTY LINK_DEPENDS ${_exports})
endfunction()

# Writes <lib dir>/plugins.xml listing every plugin added with vireo_add_plugin in this build,
# by file name (relative locations resolve against the XML's folder), and the plugins.xml that
# is installed with the plugins into <libdir>/vireo (where the core looks when there is none beside
# libvireo), listing the plugins added with INSTALL.
# Call once, at the end.
function(vireo_write_build_plugins_xml)
  foreach(_kind BUILD INSTALL)
    get_property(_plugins GLOBAL PROPERTY VIREO_${_kind}_PLUGINS)
    set(_xml "<ie>\n    <plugins>\n")
    foreach(_entry IN LISTS _plugins)
      string(REPLACE "|" ";" _parts "${_entry}")
      list(GET _parts 0 _device)
      list(GET _parts 1 _target)
      get_property(_properties GLOBAL PROPERTY VIREO_PLUGIN_XML_PROPERTIES_${_device})
      set(_location "name=\"${_device}\" location=\"$<TARGET_FILE_NAME:${_target}>\"")
      if(NOT _properties)
        string(APPEND _xml "        <plugin ${_location}/>\n")
        continue()
      endif()
      string(APPEND _xml "        <plugin ${_location}>\n            <properties>\n")
      foreach(_property IN LISTS _properties)
        string(FIND "${_property}" "=" _eq)
        string(SUBSTRING "${_property}" 0 ${_eq} _key)
        math(EXPR _eq "${_eq} + 1")
        string(SUBSTRING "${_property}" ${_eq} -1 _value)
        string(APPEND _xml "                <property key=\"${_key}\" value=\"${_value}\"/>\n")
      endforeach()
      string(APPEND _xml "            </properties>\n        </plugin>\n")
    endforeach()
    string(APPEND _xml "    </plugins>\n</ie>\n")
    if(_kind STREQUAL "BUILD")
      file(GENERATE OUTPUT ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/plugins.xml CONTENT "${_xml}")
    else()
      file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/package/plugins.xml CONTENT "${_xml}")
      install(FILES ${PROJECT_BINARY_DIR}/package/plugins.xml DESTINATION ${CMAKE_INSTALL_LIBDIR}/vireo
              COMPONENT plugins)
    endif()
  endforeach()
endfunction()
