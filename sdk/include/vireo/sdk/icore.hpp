// Declares ICore, the handle through which a plugin calls the core that loaded it: compile,
// query and import on other devices, their properties and contexts (what meta-devices need).
#pragma once

#include <istream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/model.hpp"
#include "vireo/properties.hpp"
#include "vireo/sdk/device_handles.hpp"

namespace vireo::sdk {

/// The core as a plugin sees it. A plugin gets it from IPlugin::get_core(); every call goes
/// through the core's own device-name parsing (the "HETERO:A,B" grammar included), plugin
/// loading, property checks and routing, and model cache (cache_dir: the call's, else the
/// device's, else the core's; pass cache_dir = "" to compile without the cache), exactly as the
/// same call on vireo::Core would.
///
/// Results are SDK objects with their module (device_handles.hpp): the other device's own
/// ICompiledModel in a CompiledModelHandle, its IRemoteContext in a RemoteContextHandle. A
/// meta-plugin drives them directly — its requests are the device's IAsyncInferRequests, with no
/// public CompiledModel or InferRequest around them — and each keeps the library of the device
/// that made it loaded, so a meta-plugin may keep them after the Core is gone (every handle holds
/// the module itself and releases it after its object: keep handles, not bare impl() pointers).
/// Errors are the core's (NotFound for an unregistered device, InvalidArgument for a malformed
/// name, the device's own errors prefixed with its name).
///
/// Thread safety: every method may be called from several threads at once. A plugin may call
/// the core from inside its own compile_model/query_model/import_model (that is the point), but
/// must not ask for itself in a way that recurses forever.
///
///     std::shared_ptr<sdk::ICore> core = get_core();       // in a plugin method
///     SupportedOpsMap ops = core->query_model(model, "TEMPLATE", {});
///     sdk::CompiledModelHandle sub =
///         core->compile_model(submodel, "TEMPLATE", {{cache_dir.name(), ""}});
///     sdk::InferRequestHandle request = sub.create_infer_request();
class ICore {
  public:
    virtual ~ICore() = default;

    /// The device's compiled model; loaded_from_cache() says whether the core's cache gave it.
    virtual CompiledModelHandle compile_model(const std::shared_ptr<const Model>& model,
                                              const std::string& device,
                                              const AnyMap& properties) const = 0;
    /// Op friendly name -> device, as Core::query_model.
    virtual std::map<std::string, std::string> query_model(
        const std::shared_ptr<const Model>& model, const std::string& device,
        const AnyMap& properties) const = 0;
    /// Reads a blob CompiledModel::export_model or CompiledModelHandle::export_model wrote
    /// (header included).
    virtual CompiledModelHandle import_model(std::istream& blob, const std::string& device,
                                             const AnyMap& properties) const = 0;
    virtual Any get_property(const std::string& device, const std::string& name,
                             const AnyMap& arguments) const = 0;
    /// The device's SUPPORTED_PROPERTIES (with the core's CACHE_DIR).
    virtual std::vector<PropertyName> supported_properties(const std::string& device) const = 0;
    virtual RemoteContextHandle create_context(const std::string& device,
                                               const AnyMap& params) const = 0;
    /// As Core::get_available_devices ("TEMPLATE", "MOCK_REMOTE.0", ...).
    virtual std::vector<std::string> get_available_devices() const = 0;
    /// As Core::read_model(path): any format the core reads (IR, and what frontend modules add).
    virtual std::shared_ptr<Model> read_model(const std::string& path) const = 0;
};

}  // namespace vireo::sdk
