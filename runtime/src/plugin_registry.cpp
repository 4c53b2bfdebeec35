// Implements PluginRegistry: registration, lazy once-only loading and per-device properties.
#include "plugin_registry.hpp"

#include <set>

#include "plugin_loader.hpp"
#include "vireo/exception.hpp"
#include "vireo/properties.hpp"

namespace vireo::runtime {

void PluginRegistry::add(std::vector<PluginDescriptor> descriptors) {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::set<std::string> seen;
    std::string fallback;  // the device declaring FALLBACK_DEVICES, registered or in this call
    for (const auto& [name, entry] : m_entries)
        if (!entry->descriptor.fallback_devices.empty()) fallback = name;
    for (auto& d : descriptors) {
        try {
            check_registrable_name(d.device_name);
        } catch (const Exception& e) {
            throw_error<InvalidArgument>(d.origin, ": ", e.what());
        }
        if (m_entries.count(d.device_name) || !seen.insert(d.device_name).second)
            throw_error<InvalidArgument>(
                d.origin, ": device '", d.device_name,
                "' is already registered; each device name may be registered once");
        take_registry_keys(d);
        if (d.fallback_devices.empty()) continue;
        if (!fallback.empty())
            throw_error<InvalidArgument>(d.origin, ": device '", d.device_name, "' declares ",
                                         kFallbackDevicesKey, ", but device '", fallback,
                                         "' already does; one device is the fallback route");
        fallback = d.device_name;
    }
    for (const auto& d : descriptors) {
        auto entry = std::make_shared<Entry>();
        entry->descriptor = d;
        m_entries.emplace(d.device_name, std::move(entry));
    }
}

MetaDeviceGrammar PluginRegistry::meta_device_grammar(const std::string& name) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_entries.find(name);
    return it == m_entries.end() ? MetaDeviceGrammar::kUndeclared
                                 : it->second->descriptor.meta_device;
}

std::optional<std::pair<std::string, std::vector<std::string>>> PluginRegistry::fallback() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const auto& [name, entry] : m_entries)
        if (!entry->descriptor.fallback_devices.empty())
            return std::make_pair(name, entry->descriptor.fallback_devices);
    return std::nullopt;
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
    {
        std::lock_guard<std::mutex> registry_lock(m_mutex);
        plugin->set_core(m_core);
    }
    // Defaults first, then what the application set for this device: later calls win.
    if (!entry->descriptor.default_properties.empty()) {
        try {
            plugin->set_property(entry->descriptor.default_properties);
        } catch (const Exception& e) {
            throw_error<InvalidArgument>("device '", name, "': a default property from ",
                                         entry->descriptor.origin, " was rejected: ", e.what());
        }
    }
    for (const AnyMap& properties : entry->replay) plugin->set_property(properties);
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

void PluginRegistry::set_core(std::weak_ptr<sdk::ICore> core) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_core = std::move(core);
}

std::vector<std::string> PluginRegistry::names() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<std::string> out;
    for (const auto& [name, entry] : m_entries) out.push_back(name);
    return out;
}

void PluginRegistry::record_set_property(const std::string& name, const AnyMap& properties) {
    if (properties.empty()) return;
    std::shared_ptr<Entry> entry = find(name);
    std::lock_guard<std::mutex> lock(entry->mutex);
    // Compact: a key set again (for every instance, or for the same one) makes its earlier
    // value dead, so the log stays bounded by keys x instances however often values change.
    const std::string id_key = device::id.name();
    auto id_of = [&](const AnyMap& m) {
        auto it = m.find(id_key);
        return it == m.end() ? std::string("\x01all") : it->second.to_string();
    };
    const std::string id = id_of(properties);
    const bool id_only = properties.size() == 1 && properties.count(id_key);
    for (auto it = entry->replay.begin(); it != entry->replay.end();) {
        AnyMap& earlier = *it;
        const bool earlier_id_only = earlier.size() == 1 && earlier.count(id_key);
        if (id_only || earlier_id_only) {
            it = (id_only && earlier_id_only) ? entry->replay.erase(it) : std::next(it);
            continue;
        }
        const bool same_scope = id == "\x01all" || id_of(earlier) == id;
        if (same_scope)
            for (const auto& [key, value] : properties)
                if (key != id_key) earlier.erase(key);
        const bool dead = earlier.empty() || (earlier.size() == 1 && earlier.count(id_key));
        it = dead ? entry->replay.erase(it) : std::next(it);
    }
    entry->replay.push_back(properties);
}

}  // namespace vireo::runtime
