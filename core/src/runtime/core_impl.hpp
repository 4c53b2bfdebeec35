// Declares CoreImpl, what Core forwards to: the plugin registry, property routing and merging,
// compile/import (through the model cache) and remote contexts.
#pragma once

#include <istream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/blob_format.hpp"
#include "runtime/device_name.hpp"
#include "runtime/plugin_registry.hpp"
#include "vireo/compiled_model.hpp"
#include "vireo/remote_context.hpp"

namespace vireo {

/// Thread-safe: the registry has its own locks; m_mutex guards the core-level properties.
class CoreImpl {
  public:
    explicit CoreImpl(const std::string& plugins_xml_path);

    void register_plugins(const std::string& xml_path);
    void register_plugin(const std::string& library_path, const std::string& device_name,
                         const AnyMap& properties);
    void unload_plugin(const std::string& device_name);

    std::vector<std::string> list_available_devices() const;
    std::map<std::string, Version> versions(const std::string& device_name) const;

    CompiledModel compile_model(const std::shared_ptr<const Model>& model,
                                const std::string& device_name, const AnyMap& properties) const;
    CompiledModel compile_model(const std::shared_ptr<const Model>& model,
                                const RemoteContext& context, const AnyMap& properties) const;
    CompiledModel import_model(std::istream& blob, const std::string& device_name,
                               const AnyMap& properties) const;
    std::map<std::string, std::string> query_model(const std::shared_ptr<const Model>& model,
                                                   const std::string& device_name,
                                                   const AnyMap& properties) const;

    void set_property(const AnyMap& properties);
    void set_property(const std::string& device_name, const AnyMap& properties);
    Any get_property(const std::string& name) const;
    /// The Core's ENABLE_MMAP value (default true), which Core::read_model passes to the reader.
    bool mmap_enabled() const;
    Any get_property(const std::string& device_name, const std::string& name,
                     const AnyMap& arguments) const;

    RemoteContext create_context(const std::string& device_name, const AnyMap& params) const;
    RemoteContext get_default_context(const std::string& device_name) const;

  private:
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
    std::string global_cache_dir() const;
    /// cache_dir for `device`: "NAME.N" > "NAME" > global.
    std::string device_cache_dir(const runtime::DeviceName& device) const;

    runtime::PluginRegistry m_registry;
    mutable std::mutex m_mutex;  // guards the three below
    std::string m_cache_dir;
    std::map<std::string, std::string> m_device_cache_dirs;  // by "NAME" or "NAME.N"
    bool m_enable_mmap = true;                               // ENABLE_MMAP
};

}  // namespace vireo
