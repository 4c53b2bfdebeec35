// Implements plugins.xml parsing and plugin location resolution.
#include "plugin_descriptor.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <filesystem>

#include "shared_library.hpp"
#include "vireo/exception.hpp"

namespace vireo::runtime {
namespace fs = std::filesystem;

namespace {
bool names_a_library(const std::string& file_name) {
    return file_name.find(".so") != std::string::npos;
}

void add_in_folder(std::vector<std::string>& out, const fs::path& folder, const std::string& name) {
    out.push_back((folder / name).lexically_normal().string());
    if (!names_a_library(name))
        out.push_back((folder / ("lib" + name + ".so")).lexically_normal().string());
}
}  // namespace

std::vector<std::string> candidates_for_xml_location(const std::string& location,
                                                     const std::string& xml_dir) {
    const fs::path path(location);
    if (path.is_absolute()) return {path.lexically_normal().string()};
    if (location.find('/') != std::string::npos)
        return {(fs::path(xml_dir) / path).lexically_normal().string()};
    std::vector<std::string> out;
    add_in_folder(out, xml_dir, location);
    out.push_back(location);
    return out;
}

std::vector<std::string> candidates_for_registered_path(const std::string& path) {
    if (path.find('/') != std::string::npos)
        return {fs::absolute(path).lexically_normal().string()};
    std::vector<std::string> out;
    add_in_folder(out, fs::current_path(), path);
    const std::string runtime_dir = runtime_library_directory();
    if (!runtime_dir.empty()) add_in_folder(out, runtime_dir, path);
    out.push_back(path);
    return out;
}

MetaDeviceGrammar parse_meta_device(const std::string& value, const std::string& where) {
    if (value == "LIST") return MetaDeviceGrammar::kList;
    if (value == "BATCH") return MetaDeviceGrammar::kBatch;
    throw_error<InvalidArgument>(where, ": ", kMetaDeviceKey, " is '", value,
                                 "'; expected LIST (\"NAME:A,B\") or BATCH (\"NAME:A(N)\")");
}

std::vector<std::string> parse_fallback_devices(const std::string& value,
                                                const std::string& where) {
    std::vector<std::string> devices;
    if (value.empty()) return devices;  // "": this device is not a fallback route
    size_t start = 0;
    while (start <= value.size()) {
        const size_t comma = std::min(value.find(',', start), value.size());
        const std::string name = value.substr(start, comma - start);
        if (name.empty() || name.find_first_of(".:() \t") != std::string::npos)
            throw_error<InvalidArgument>(where, ": ", kFallbackDevicesKey, " is '", value,
                                         "'; expected registered device names, \"A,B\", or "
                                         "\"\" for none");
        devices.push_back(name);
        start = comma + 1;
    }
    return devices;
}

void take_registry_keys(PluginDescriptor& d) {
    auto& properties = d.default_properties;
    const std::string where = d.origin + ": device '" + d.device_name + "'";
    if (auto it = properties.find(kMetaDeviceKey); it != properties.end()) {
        d.meta_device = parse_meta_device(it->second.to_string(), where);
        properties.erase(it);
    }
    if (auto it = properties.find(kFallbackDevicesKey); it != properties.end()) {
        d.fallback_devices = parse_fallback_devices(it->second.to_string(), where);
        // Without META_DEVICE here, the plugin's own declaration is checked when it loads.
        if (!d.fallback_devices->empty() && d.meta_device == MetaDeviceGrammar::kBatch)
            throw_error<InvalidArgument>(where, ": ", kFallbackDevicesKey, " needs ",
                                         kMetaDeviceKey, " LIST (the fallback compiles on \"",
                                         d.device_name, ":DEVICE,", d.fallback_devices->front(),
                                         "\"), not BATCH");
        properties.erase(it);
    }
}

std::vector<PluginDescriptor> parse_plugins_xml(const std::string& xml_path) {
    std::error_code ec;
    if (!fs::is_regular_file(xml_path, ec))
        throw_error<NotFound>("plugins file '", xml_path, "' does not exist or is not a file");
    tinyxml2::XMLDocument doc;
    if (doc.LoadFile(xml_path.c_str()) != tinyxml2::XML_SUCCESS)
        throw_error<InvalidArgument>("plugins file '", xml_path,
                                     "' is not valid XML: ", doc.ErrorStr());

    const fs::path absolute = fs::absolute(xml_path).lexically_normal();
    const std::string folder = absolute.parent_path().string();
    const std::string origin = "plugins.xml '" + absolute.string() + "'";
    const tinyxml2::XMLElement* root = doc.RootElement();
    const tinyxml2::XMLElement* plugins = root ? root->FirstChildElement("plugins") : nullptr;
    if (!plugins)
        throw_error<InvalidArgument>("plugins file '", xml_path,
                                     "': expected a <plugins> element under the root <",
                                     root ? root->Name() : "", ">, found none");

    std::vector<PluginDescriptor> out;
    for (auto* plugin = plugins->FirstChildElement("plugin"); plugin;
         plugin = plugin->NextSiblingElement("plugin")) {
        const char* name = plugin->Attribute("name");
        const char* location = plugin->Attribute("location");
        if (!name || !location)
            throw_error<InvalidArgument>(
                "plugins file '", xml_path, "' line ", plugin->GetLineNum(),
                ": <plugin> needs both 'name' and 'location' attributes, found ",
                name ? "" : "no name", !name && !location ? " and " : "",
                location ? "" : "no location");
        PluginDescriptor descriptor;
        descriptor.device_name = name;
        descriptor.location = location;
        descriptor.candidates = candidates_for_xml_location(location, folder);
        descriptor.origin = origin;
        if (auto* properties = plugin->FirstChildElement("properties")) {
            for (auto* p = properties->FirstChildElement("property"); p;
                 p = p->NextSiblingElement("property")) {
                const char* key = p->Attribute("key");
                const char* value = p->Attribute("value");
                if (!key || !value)
                    throw_error<InvalidArgument>("plugins file '", xml_path, "' line ",
                                                 p->GetLineNum(), ": <property> of plugin '", name,
                                                 "' needs both 'key' and 'value' attributes");
                descriptor.default_properties[key] = std::string(value);
            }
        }
        out.push_back(std::move(descriptor));
    }
    return out;
}

}  // namespace vireo::runtime
