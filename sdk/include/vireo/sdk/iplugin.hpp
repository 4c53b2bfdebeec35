// Declares IPlugin, the object a backend module's entry point creates: one per registered device.
#pragma once

#include <istream>
#include <map>
#include <memory>
#include <string>

#include "vireo/any.hpp"
#include "vireo/model.hpp"
#include "vireo/version.hpp"

namespace vireo::sdk {

class ICompiledModel;
class ICore;
class IRemoteContext;

/// Op friendly name -> device name that supports it.
using SupportedOpsMap = std::map<std::string, std::string>;

/// A device backend. The core creates it once per registered device name through the module's
/// entry point (VIREO_DEFINE_PLUGIN), then calls set_device_name(), set_version() and set_core().
///
/// Lifetime: every object a plugin returns (compiled models, requests, tensors, contexts,
/// states) may outlive the Core and this IPlugin; the core keeps the module loaded for as long
/// as any of them lives, so code and data of the module stay valid. A compiled model should
/// hold the plugin (shared_from_this()) if it needs it later.
///
/// Thread safety: every method may be called from several threads at once.
///
/// Errors: throw vireo exceptions (InvalidArgument for bad properties or models, NotFound for
/// unknown keys, NotImplemented for optional features). The core adds the device name.
class IPlugin : public std::enable_shared_from_this<IPlugin> {
  public:
    virtual ~IPlugin() = default;

    /// Compiles `model` with `properties`: the call's arguments only. The plugin merges them over
    /// its own stored settings (set_property, plugins.xml defaults), as PropertyTable::resolve
    /// does; the core no longer merges (ABI 3). The model is the caller's: clone it before
    /// changing it.
    virtual std::shared_ptr<ICompiledModel> compile_model(const std::shared_ptr<const Model>& model,
                                                          const AnyMap& properties) const = 0;
    /// Optional: compile for a specific remote context. Default throws NotImplemented.
    virtual std::shared_ptr<ICompiledModel> compile_model(
        const std::shared_ptr<const Model>& model, const AnyMap& properties,
        const std::shared_ptr<IRemoteContext>& context) const;
    /// Rebuilds a compiled model from what ICompiledModel::export_model wrote. Throws
    /// InvalidArgument on a blob of another plugin, version or a damaged blob.
    virtual std::shared_ptr<ICompiledModel> import_model(std::istream& blob,
                                                         const AnyMap& properties) const = 0;
    /// Which ops of `model` this device runs.
    virtual SupportedOpsMap query_model(const std::shared_ptr<const Model>& model,
                                        const AnyMap& properties) const = 0;
    /// Sets device-wide properties. Throws NotFound for an unknown key (listing the supported
    /// ones) and InvalidArgument for a bad value.
    virtual void set_property(const AnyMap& properties) = 0;
    /// Reads a property; `arguments` may qualify it (e.g. device::id). Throws NotFound.
    virtual Any get_property(const std::string& name, const AnyMap& arguments) const = 0;
    /// Optional remote-memory support. Defaults throw NotImplemented.
    virtual std::shared_ptr<IRemoteContext> create_context(const AnyMap& params) const;
    virtual std::shared_ptr<IRemoteContext> get_default_context(const AnyMap& params) const;

    /// The name the device was registered under ("TEMPLATE"); set by the core.
    const std::string& get_device_name() const { return m_device_name; }
    void set_device_name(const std::string& name) { m_device_name = name; }
    const Version& get_version() const { return m_version; }
    void set_version(const Version& version) { m_version = version; }
    /// The core that loaded this plugin, for calls on other devices (meta-devices such as
    /// HETERO compile their parts through it). The plugin holds it weakly, so it never keeps the
    /// Core alive: call get_core() when needed and do not store the result in objects that may
    /// outlive the Core. Throws Unavailable when the Core is gone (or was never set: a plugin
    /// created outside a Core, as in a unit test).
    std::shared_ptr<ICore> get_core() const;
    /// Set by the core when it creates the plugin.
    void set_core(std::weak_ptr<ICore> core) { m_core = std::move(core); }

  private:
    // Identity only, set once by the core before any other call (as OpenVINO's IPlugin).
    std::string m_device_name;
    Version m_version;
    std::weak_ptr<ICore> m_core;
};

}  // namespace vireo::sdk
