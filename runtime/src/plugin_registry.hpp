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
class PluginRegistry {
  public:
    /// Registers every descriptor, or none: throws InvalidArgument (naming the origin) if a name
    /// is not registrable, appears twice, or is already registered, if a registry key is
    /// malformed (take_registry_keys), or if a second device declares FALLBACK_DEVICES.
    void add(std::vector<PluginDescriptor> descriptors);
    /// The meta-device grammar `name` declared (kUndeclared for an unregistered name).
    MetaDeviceGrammar meta_device_grammar(const std::string& name) const;
    /// The device hint::allow_fallback routes through and the devices it falls back to, in
    /// order: the one registered device that declared FALLBACK_DEVICES. Empty if none did.
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
    };
    std::shared_ptr<Entry> find(const std::string& name) const;

    mutable std::mutex m_mutex;  // guards the two below
    std::map<std::string, std::shared_ptr<Entry>> m_entries;
    std::weak_ptr<sdk::ICore> m_core;
};

}  // namespace vireo::runtime
