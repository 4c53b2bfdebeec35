// Declares PluginDescriptor, what the core knows about a registered plugin before loading it,
// and the rules that turn a plugins.xml location or a register_plugin path into files to try.
#pragma once

#include <string>
#include <vector>

#include "vireo/any.hpp"

namespace vireo::runtime {

struct PluginDescriptor {
    std::string device_name;
    std::string location;  ///< as written in plugins.xml or given to register_plugin
    std::vector<std::string>
        candidates;             ///< files to try in order; one without '/' means dlopen's search
    AnyMap default_properties;  ///< plugins.xml <properties>, as text values
    std::string origin;         ///< "plugins.xml '<path>'" or "register_plugin", for messages
};

/// plugins.xml: absolute -> itself; with a '/' -> relative to the XML's folder; a bare file name
/// -> the XML's folder, then (no ".so" in it) "lib<name>.so" there, then dlopen's search.
std::vector<std::string> candidates_for_xml_location(const std::string& location,
                                                     const std::string& xml_dir);
/// register_plugin: with a '/' -> relative to the current directory; a bare name -> the current
/// directory, then next to libvireo (each also as "lib<name>.so" when it has no ".so"), then
/// dlopen's search.
std::vector<std::string> candidates_for_registered_path(const std::string& path);

/// Parses a plugins.xml: <ie><plugins><plugin name=".." location=".."><properties>
/// <property key=".." value=".."/></properties></plugin></plugins></ie> (the root's name is not
/// checked). Throws NotFound if the file does not exist and InvalidArgument naming the file and
/// line for malformed content. Names are not validated here.
std::vector<PluginDescriptor> parse_plugins_xml(const std::string& xml_path);

}  // namespace vireo::runtime
