// Declares PluginDescriptor, what the core knows about a registered plugin before loading it,
// and the rules that turn a plugins.xml location or a register_plugin path into files to try.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/sdk/property_table.hpp"  // kMetaDeviceKey, kFallbackDevicesKey

namespace vireo::runtime {

/// What a device's name may say after a ':' (META_DEVICE; DeviceName::parse).
enum class MetaDeviceGrammar {
    kUndeclared,  ///< not declared: "NAME:A,B" is accepted, as kList
    kList,        ///< "NAME:A,B": a list of devices ("HETERO", "AUTO", "MULTI")
    kBatch,       ///< "NAME:A" or "NAME:A(N)": exactly one device and a batch size ("BATCH")
};

/// Registry keys: set in plugins.xml <properties> (or register_plugin's properties) like any
/// default, but read by the core and never passed to the plugin. Each overrides what the loaded
/// plugin declares under the same key (sdk::common::meta_device, sdk::common::fallback_devices).
///   META_DEVICE       "LIST" or "BATCH": the device's meta-device grammar
///   FALLBACK_DEVICES  "A,B": this device (META_DEVICE LIST) is the one hint::allow_fallback
///                     routes through, and ops the requested device cannot run go to the first
///                     of A, B that is registered and loads; "" : this device is not a route
using sdk::kFallbackDevicesKey;
using sdk::kMetaDeviceKey;

struct PluginDescriptor {
    std::string device_name;
    std::string location;  ///< as written in plugins.xml or given to register_plugin
    std::vector<std::string>
        candidates;             ///< files to try in order; one without '/' means dlopen's search
    AnyMap default_properties;  ///< plugins.xml <properties>, as text values
    std::string origin;         ///< "plugins.xml '<path>'" or "register_plugin", for messages
    MetaDeviceGrammar meta_device = MetaDeviceGrammar::kUndeclared;  ///< META_DEVICE
    /// FALLBACK_DEVICES: unset when the registration does not say; set and empty for "".
    std::optional<std::vector<std::string>> fallback_devices;
};

/// The value of META_DEVICE / FALLBACK_DEVICES, from the registry or a plugin. Throws
/// InvalidArgument starting with `where` (the origin and device) for a malformed value.
MetaDeviceGrammar parse_meta_device(const std::string& value, const std::string& where);
std::vector<std::string> parse_fallback_devices(const std::string& value, const std::string& where);

/// Moves META_DEVICE and FALLBACK_DEVICES out of `descriptor.default_properties` into its
/// fields. Throws InvalidArgument naming the origin and device for a value other than LIST or
/// BATCH, a malformed device list, or FALLBACK_DEVICES with META_DEVICE BATCH (FALLBACK_DEVICES
/// without META_DEVICE is checked against the plugin's declaration when it loads).
void take_registry_keys(PluginDescriptor& descriptor);

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
