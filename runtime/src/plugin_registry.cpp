// Implements PluginRegistry: registration, lazy once-only loading and per-device properties.
#include "plugin_registry.hpp"

#include <algorithm>
#include <set>

#include "plugin_loader.hpp"
#include "vireo/exception.hpp"
#include "vireo/log.hpp"
#include "vireo/properties.hpp"
#include "vireo/sdk/device_list.hpp"

namespace vireo::runtime {

namespace {

bool has_route(const std::optional<std::vector<std::string>>& fallback) {
    return fallback && !fallback->empty();
}

// The loaded plugin's meta-device declaration under the registry's (which wins key by key).
// Throws InvalidArgument naming the device for a malformed value, or for a fallback route on a
// device whose grammar is not LIST.
MetaDeviceDeclaration declaration_of(const Plugin& plugin, const PluginDescriptor& d) {
    MetaDeviceDeclaration out{d.meta_device, d.fallback_devices};
    const bool ask_meta = out.grammar == MetaDeviceGrammar::kUndeclared;
    if (ask_meta || !out.fallback) {
        const std::vector<PropertyName> supported = plugin.supported_properties_or_empty();
        auto declares = [&](const char* key) {
            return std::find(supported.begin(), supported.end(), key) != supported.end();
        };
        const std::string where = "device '" + d.device_name + "', as its plugin '" +
                                  plugin.library_path() + "' declares";
        if (ask_meta && declares(kMetaDeviceKey))
            out.grammar = parse_meta_device(plugin.get_property(kMetaDeviceKey).to_string(), where);
        if (!out.fallback && declares(kFallbackDevicesKey))
            out.fallback =
                parse_fallback_devices(plugin.get_property(kFallbackDevicesKey).to_string(), where);
    }
    if (has_route(out.fallback) && out.grammar != MetaDeviceGrammar::kList)
        throw_error<InvalidArgument>(
            "device '", d.device_name, "': ", kFallbackDevicesKey, " '",
            sdk::join_device_list(*out.fallback), "' (from ",
            d.fallback_devices ? d.origin : "its plugin '" + plugin.library_path() + "'",
            ") needs ", kMetaDeviceKey, " LIST (the fallback compiles on \"", d.device_name,
            ":DEVICE,", out.fallback->front(), "\"), but the device's ", kMetaDeviceKey, " is ",
            out.grammar == MetaDeviceGrammar::kBatch ? "BATCH" : "not declared");
    return out;
}

}  // namespace

void PluginRegistry::add(std::vector<PluginDescriptor> descriptors) {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::set<std::string> seen;
    std::string fallback;  // the device declaring FALLBACK_DEVICES, registered or in this call
    for (const auto& [name, entry] : m_entries)
        if (has_route(entry->descriptor.fallback_devices)) fallback = name;
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
        if (!has_route(d.fallback_devices)) continue;
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
        m_order.push_back(d.device_name);
    }
}

MetaDeviceDeclaration PluginRegistry::declaration(const std::string& name) const {
    std::shared_ptr<Entry> entry = find(name);
    get(name);
    std::lock_guard<std::mutex> lock(entry->mutex);
    return entry->declared;
}

MetaDeviceGrammar PluginRegistry::meta_device_grammar(const std::string& name) const {
    std::shared_ptr<Entry> entry;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_entries.find(name);
        if (it == m_entries.end()) return MetaDeviceGrammar::kUndeclared;
        entry = it->second;
    }
    // The registration's word needs no plugin; otherwise ask the plugin (loading it).
    if (entry->descriptor.meta_device != MetaDeviceGrammar::kUndeclared)
        return entry->descriptor.meta_device;
    return declaration(name).grammar;
}

std::optional<std::pair<std::string, std::vector<std::string>>> PluginRegistry::fallback() const {
    std::vector<std::pair<std::string, std::shared_ptr<Entry>>> in_order;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        for (const auto& name : m_order) in_order.emplace_back(name, m_entries.at(name));
    }
    // A registration's FALLBACK_DEVICES (at most one device has it) wins over every plugin's.
    for (const auto& [name, entry] : in_order)
        if (has_route(entry->descriptor.fallback_devices))
            return std::make_pair(name, *declaration(name).fallback);
    // Else the first registered device whose plugin declares a route. The plugins are loaded in
    // registration order up to that one; a device that does not load cannot be the route.
    for (const auto& [name, entry] : in_order) {
        const PluginDescriptor& d = entry->descriptor;
        if (d.fallback_devices || d.meta_device == MetaDeviceGrammar::kBatch) continue;
        MetaDeviceDeclaration declared;
        try {
            declared = declaration(name);
        } catch (const Exception& e) {
            VIREO_LOG(DEBUG) << "the fallback route skips device '" << name
                             << "', which does not load: " << e.what();
            continue;
        }
        if (has_route(declared.fallback)) return std::make_pair(name, *declared.fallback);
    }
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
    entry->declared = declaration_of(*plugin, entry->descriptor);
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
