// Declares PluginRegistry: the registered devices, their per-device properties, and the plugins
// loaded so far (each loaded once, lazily, even when many threads ask at once).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "device_name.hpp"
#include "plugin.hpp"
#include "plugin_descriptor.hpp"

namespace vireo::runtime {

/// Thread-safe. A global mutex guards the map of entries; each entry has its own mutex that
/// serialises loading and its properties, so loading one plugin does not block the others.
/// What a device is as a meta-device: its registration's META_DEVICE / FALLBACK_DEVICES, each
/// else what its plugin declares (unset when neither says).
struct MetaDeviceDeclaration {
    MetaDeviceGrammar grammar = MetaDeviceGrammar::kUndeclared;
    std::optional<std::vector<std::string>> fallback;
};

class PluginRegistry {
  public:
    /// Registers every descriptor, or none: throws InvalidArgument (naming the origin) if a name
    /// is not registrable, appears twice, or is already registered, if a registry key is
    /// malformed (take_registry_keys), or if a second device declares FALLBACK_DEVICES.
    void add(std::vector<PluginDescriptor> descriptors);
    /// The meta-device grammar of `name`: its registration's META_DEVICE, else (loading the
    /// plugin) what the plugin declares; kUndeclared for an unregistered or undeclaring name.
    /// Throws what loading throws.
    MetaDeviceGrammar meta_device_grammar(const std::string& name) const;
    /// What `name` is as a meta-device, the registration's keys over the plugin's (loads it).
    MetaDeviceDeclaration declaration(const std::string& name) const;
    /// The device hint::allow_fallback routes through and the devices it falls back to, in
    /// order: the registered device whose registration declares FALLBACK_DEVICES, else the first
    /// registered whose plugin declares it (loading plugins in registration order up to it,
    /// skipping those that fail to load). Empty if none does.
    std::optional<std::pair<std::string, std::vector<std::string>>> fallback() const;
    /// The loaded plugin of device `name` (no ".N"), loading it on first use: load_plugin, then
    /// set_property with the plugins.xml defaults, then the recorded set_property calls. A failed
    /// load leaves the registry as it was. Throws NotFound listing the registered names.
    std::shared_ptr<Plugin> get(const std::string& name) const;
    /// Forgets the loaded plugin (objects it made keep their own holders). Throws NotFound for
    /// an unregistered name; no-op if not loaded.
    void unload(const std::string& name);
    /// The core handle given to each plugin loaded from now on (IPlugin::set_core).
    void set_core(std::weak_ptr<sdk::ICore> core);
    /// Registered names, sorted.
    std::vector<std::string> names() const;

    /// Records a set_property map the plugin of `name` accepted (with DEVICE_ID for "NAME.N"),
    /// to replay in order when the plugin is loaded again. Never read otherwise: the plugin owns
    /// its values.
    void record_set_property(const std::string& name, const AnyMap& properties);

  private:
    struct Entry {
        PluginDescriptor descriptor;
        mutable std::mutex mutex;        // serialises loading; guards the fields below
        std::shared_ptr<Plugin> plugin;  // null until loaded
        std::vector<AnyMap> replay;      // accepted set_property maps, in order
        MetaDeviceDeclaration declared;  // set when the plugin loads
    };
    std::shared_ptr<Entry> find(const std::string& name) const;

    mutable std::mutex m_mutex;  // guards the two below
    std::map<std::string, std::shared_ptr<Entry>> m_entries;
    std::vector<std::string> m_order;  // registered names, in registration order
    std::weak_ptr<sdk::ICore> m_core;
};

}  // namespace vireo::runtime
