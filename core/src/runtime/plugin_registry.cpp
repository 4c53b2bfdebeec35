// Implements PluginRegistry: registration, lazy once-only loading and per-device properties.
#include "runtime/plugin_registry.hpp"

#include <set>

#include "runtime/plugin_loader.hpp"
#include "vireo/exception.hpp"

namespace vireo::runtime {

void PluginRegistry::add(const std::vector<PluginDescriptor>& descriptors) {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::set<std::string> seen;
    for (const auto& d : descriptors) {
        try {
            check_registrable_name(d.device_name);
        } catch (const Exception& e) {
            throw_error<InvalidArgument>(d.origin, ": ", e.what());
        }
        if (m_entries.count(d.device_name) || !seen.insert(d.device_name).second)
            throw_error<InvalidArgument>(
                d.origin, ": device '", d.device_name,
                "' is already registered; each device name may be registered once");
    }
    for (const auto& d : descriptors) {
        auto entry = std::make_shared<Entry>();
        entry->descriptor = d;
        m_entries.emplace(d.device_name, std::move(entry));
    }
}

std::shared_ptr<PluginRegistry::Entry> PluginRegistry::find(const std::string& name) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_entries.find(name);
    if (it != m_entries.end()) return it->second;
    std::string known;
    for (const auto& [n, e] : m_entries) known += (known.empty() ? "" : ", ") + n;
    throw_error<NotFound>(
        "device '", name, "' is not registered; registered devices: ",
        known.empty() ? "none (no plugins.xml found and none registered)" : known);
}

std::shared_ptr<Plugin> PluginRegistry::get(const std::string& name) const {
    std::shared_ptr<Entry> entry = find(name);
    std::lock_guard<std::mutex> lock(entry->mutex);
    if (entry->plugin) return entry->plugin;

    std::shared_ptr<Plugin> plugin = load_plugin(entry->descriptor);
    // Defaults first, then what the application set for this device: later calls win.
    if (!entry->descriptor.default_properties.empty()) {
        try {
            plugin->set_property(entry->descriptor.default_properties);
        } catch (const Exception& e) {
            throw_error<InvalidArgument>("device '", name, "': a default property from ",
                                         entry->descriptor.origin, " was rejected: ", e.what());
        }
    }
    if (!entry->properties.empty()) plugin->set_property(entry->properties);
    entry->plugin = plugin;
    return plugin;
}

void PluginRegistry::unload(const std::string& name) {
    std::shared_ptr<Entry> entry = find(name);
    std::shared_ptr<Plugin> dropped;
    {
        std::lock_guard<std::mutex> lock(entry->mutex);
        dropped = std::move(entry->plugin);
    }
    // `dropped` dies here, outside the lock: the plugin's destructor may take a while.
}

std::vector<std::string> PluginRegistry::names() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<std::string> out;
    for (const auto& [name, entry] : m_entries) out.push_back(name);
    return out;
}

void PluginRegistry::store_properties(const DeviceName& device, const AnyMap& properties) {
    std::shared_ptr<Entry> entry = find(device.name);
    std::lock_guard<std::mutex> lock(entry->mutex);
    AnyMap& target = device.id.empty() ? entry->properties : entry->instances[device.id];
    for (const auto& [key, value] : properties) target[key] = value;
}

AnyMap PluginRegistry::merged_properties(const DeviceName& device) const {
    std::shared_ptr<Entry> entry = find(device.name);
    std::lock_guard<std::mutex> lock(entry->mutex);
    AnyMap out = entry->descriptor.default_properties;
    for (const auto& [key, value] : entry->properties) out[key] = value;
    if (!device.id.empty()) {
        auto it = entry->instances.find(device.id);
        if (it != entry->instances.end())
            for (const auto& [key, value] : it->second) out[key] = value;
    }
    return out;
}

std::optional<Any> PluginRegistry::instance_property(const DeviceName& device, const std::string& key) const {
    if (device.id.empty()) return std::nullopt;
    std::shared_ptr<Entry> entry = find(device.name);
    std::lock_guard<std::mutex> lock(entry->mutex);
    auto instance = entry->instances.find(device.id);
    if (instance == entry->instances.end()) return std::nullopt;
    auto value = instance->second.find(key);
    if (value == instance->second.end()) return std::nullopt;
    return value->second;
}

}  // namespace vireo::runtime
