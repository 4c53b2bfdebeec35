// Declares CoreImpl, what Core forwards to: the plugin registry, property routing and merging,
// compile/import (through the model cache) and remote contexts.
#pragma once

#include <istream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "device_name.hpp"
#include "plugin_registry.hpp"
#include "vireo/remote_context.hpp"
#include "vireo/sdk/icore.hpp"

namespace vireo {

/// Thread-safe: the registry has its own locks; m_mutex guards the core-level properties.
///
/// It is also the sdk::ICore that plugins get from IPlugin::get_core(): the Core owns it by
/// shared_ptr and hands each plugin it loads a weak reference (bind_core_handle()). Its results
/// are the SDK handles ICore returns; Core wraps them in the public handles.
///
/// Device names: every method taking one accepts "NAME", "NAME.N" and the meta-device grammar
/// "META:A,B" / "META:A(N)" (runtime/device_name.hpp; the grammar META declares, META_DEVICE LIST
/// or BATCH, in its registration or else its plugin, which parsing "META:..." loads), which
/// becomes device META with
/// device::priorities = "A,B" (and device::batch_size = N) in the call's properties (for
/// set_property: META keeps the list as its own device::priorities). Every listed device must be
/// registered (InvalidArgument naming it), and a device::priorities given in the properties too
/// must say the same.
class CoreImpl : public sdk::ICore {
  public:
    explicit CoreImpl(const std::string& plugins_xml_path);
    /// Gives plugins (those loaded from now on) a weak handle to `self`, which must own this.
    void bind_core_handle(const std::shared_ptr<CoreImpl>& self);

    void register_plugins(const std::string& xml_path);
    void register_plugin(const std::string& library_path, const std::string& device_name,
                         const AnyMap& properties);
    void unload_plugin(const std::string& device_name);

    std::vector<std::string> list_available_devices() const;
    std::vector<std::string> get_available_devices() const override {
        return list_available_devices();
    }
    std::shared_ptr<Model> read_model(const std::string& path) const override;
    std::vector<PropertyName> supported_properties(const std::string& device_name) const override;
    std::map<std::string, Version> versions(const std::string& device_name) const;

    sdk::CompiledModelHandle compile_model(const std::shared_ptr<const Model>& model,
                                           const std::string& device_name,
                                           const AnyMap& properties) const override;
    sdk::CompiledModelHandle compile_model(const std::shared_ptr<const Model>& model,
                                           const RemoteContext& context,
                                           const AnyMap& properties) const;
    sdk::CompiledModelHandle import_model(std::istream& blob, const std::string& device_name,
                                          const AnyMap& properties) const override;
    std::map<std::string, std::string> query_model(const std::shared_ptr<const Model>& model,
                                                   const std::string& device_name,
                                                   const AnyMap& properties) const override;

    void set_property(const AnyMap& properties);
    void set_property(const std::string& device_name, const AnyMap& properties);
    Any get_property(const std::string& name) const;
    /// The Core's ENABLE_MMAP value (default true), which Core::read_model passes to the reader.
    bool mmap_enabled() const;
    Any get_property(const std::string& device_name, const std::string& name,
                     const AnyMap& arguments) const override;

    sdk::RemoteContextHandle create_context(const std::string& device_name,
                                            const AnyMap& params) const override;
    sdk::RemoteContextHandle get_default_context(const std::string& device_name) const;

  private:
    /// DeviceName::parse with the grammar each registered name declared (META_DEVICE).
    runtime::DeviceName parse_device(const std::string& device_name) const;
    /// `properties` plus what a meta-device name says (device::priorities, device::batch_size);
    /// checks that every listed device is registered and agrees with a device::priorities
    /// already in `properties`. Plain names return `properties` unchanged.
    AnyMap with_device_list(const runtime::DeviceName& device, const AnyMap& properties) const;
    /// What a call passes to the plugin: `call` with device::id from "NAME.N" and cache_dir
    /// taken out (returned in `cache_dir`: call > device > global). The plugin applies its own
    /// device and instance settings. Throws InvalidArgument if `call` has a device::id other
    /// than the name's.
    AnyMap plugin_config(const runtime::DeviceName& device, const AnyMap& call,
                         std::string* cache_dir) const;
    /// The device's read-write values as the plugin reports them (for the model cache's key).
    AnyMap device_settings(const runtime::Plugin& plugin, const runtime::DeviceName& device) const;
    /// Throws NotFound for a key the plugin does not list (listing the ones it does), and
    /// InvalidArgument for a read-only one. Core keys pass. Skipped if the plugin cannot list.
    void check_settable(const runtime::Plugin& plugin, const runtime::DeviceName& device,
                        const AnyMap& properties) const;
    /// hint::allow_fallback for `device`: the call's, else "NAME.N"'s, else "NAME"'s, else false.
    bool fallback_allowed(const runtime::DeviceName& device, const AnyMap& call) const;
    /// With fallback allowed and ops `device` cannot run: the name ("ROUTE:device,fallback") and
    /// properties to compile with instead (logged at INFO), ROUTE and the fallback candidates
    /// being what a registered device declared with FALLBACK_DEVICES (PluginRegistry::fallback:
    /// this may load registered plugins to ask them). Empty when the device runs
    /// everything, or no device declared a route, or none of its fallback devices loads.
    std::optional<std::pair<std::string, AnyMap>> fallback_route(
        const std::shared_ptr<const Model>& model, const runtime::DeviceName& device,
        const AnyMap& call) const;
    /// Moves ALLOW_FALLBACK out of registered plugins.xml defaults into m_device_fallback.
    std::vector<runtime::PluginDescriptor> take_core_defaults(
        std::vector<runtime::PluginDescriptor> descriptors);
    std::string global_cache_dir() const;
    /// cache_dir for `device`: "NAME.N" > "NAME" > global.
    std::string device_cache_dir(const runtime::DeviceName& device) const;

    runtime::PluginRegistry m_registry;
    mutable std::mutex m_mutex;  // guards the four below
    std::string m_cache_dir;
    std::map<std::string, std::string> m_device_cache_dirs;  // by "NAME" or "NAME.N"
    bool m_enable_mmap = true;                               // ENABLE_MMAP
    std::map<std::string, bool> m_device_fallback;           // ALLOW_FALLBACK by "NAME"/"NAME.N"
};

}  // namespace vireo
