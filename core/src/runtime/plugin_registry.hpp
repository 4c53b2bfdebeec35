// Declares PluginRegistry: the registered devices, their per-device properties, and the plugins
// loaded so far (each loaded once, lazily, even when many threads ask at once).
#pragma once

#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/device_name.hpp"
#include "runtime/plugin.hpp"
#include "runtime/plugin_descriptor.hpp"

namespace vireo::runtime {

/// Thread-safe. A global mutex guards the map of entries; each entry has its own mutex that
/// serialises loading and its properties, so loading one plugin does not block the others.
class PluginRegistry {
  public:
    /// Registers every descriptor, or none: throws InvalidArgument (naming the origin) if a name
    /// is not registrable, appears twice, or is already registered.
    void add(const std::vector<PluginDescriptor>& descriptors);
    /// The loaded plugin of device `name` (no ".N"), loading it on first use: load_plugin, then
    /// set_property with the plugins.xml defaults, then with the values set for "NAME". A failed
    /// load leaves the registry as it was. Throws NotFound listing the registered names.
    std::shared_ptr<Plugin> get(const std::string& name) const;
    /// Forgets the loaded plugin (objects it made keep their own holders). Throws NotFound for
    /// an unregistered name; no-op if not loaded.
    void unload(const std::string& name);
    /// Registered names, sorted.
    std::vector<std::string> names() const;

    /// Stores properties set for "NAME" or "NAME.N" (reapplied when the plugin is loaded again;
    /// "NAME" values are also pushed to a loaded plugin with set_property by the caller).
    void store_properties(const DeviceName& device, const AnyMap& properties);
    /// plugins.xml defaults, overridden by "NAME" values, overridden by "NAME.N" values.
    AnyMap merged_properties(const DeviceName& device) const;
    /// The value set with set_property("NAME.N", {key: ...}) for `device` ("NAME.N"), if any.
    std::optional<Any> instance_property(const DeviceName& device, const std::string& key) const;

  private:
    struct Entry {
        PluginDescriptor descriptor;
        mutable std::mutex mutex;                 // serialises loading; guards the fields below
        std::shared_ptr<Plugin> plugin;           // null until loaded
        AnyMap properties;                        // set_property("NAME", ...)
        std::map<std::string, AnyMap> instances;  // set_property("NAME.N", ...), by id
    };
    std::shared_ptr<Entry> find(const std::string& name) const;

    mutable std::mutex m_mutex;
    std::map<std::string, std::shared_ptr<Entry>> m_entries;
};

}  // namespace vireo::runtime
