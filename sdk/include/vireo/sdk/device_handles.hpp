// Declares the handles sdk::ICore gives a plugin for objects of other devices: a compiled model,
// its requests and a remote context, each the SDK object itself paired with the module (shared
// library) whose code implements it.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "vireo/any.hpp"
#include "vireo/model.hpp"
#include "vireo/plugin_object.hpp"
#include "vireo/properties.hpp"
#include "vireo/tensor.hpp"

namespace vireo::sdk {

class ICompiledModel;
class IAsyncInferRequest;
class IRemoteContext;

/// A request of another device's compiled model: its IAsyncInferRequest, driven directly (no
/// public InferRequest around it), and the module that implements it. The module outlives the
/// request in every destruction and assignment order (PluginObject), so a plugin that holds the
/// handle can never unload the other device's code under it. call() guards a call as the public
/// handles do: a vireo::Exception keeps its kind and gets the device name in front, anything else
/// becomes the general kind naming the device and the operation:
///
///     part.call("infer", [](sdk::IAsyncInferRequest& r) { r.infer(); });
///     Tensor out = with_module(part.impl()->get_tensor(port), part.module());
using InferRequestHandle = PluginObject<IAsyncInferRequest>;

/// A remote context of another device (ICore::create_context), named by its device name.
using RemoteContextHandle = PluginObject<IRemoteContext>;

/// `tensor` holding `module` when it holds no module of its own: how a tensor that another
/// device's request or context made is handed on (to the user, or kept past that request), so
/// that the code behind it stays loaded. An empty tensor is returned as it is.
Tensor with_module(const Tensor& tensor, const std::shared_ptr<void>& module);

/// Another device's compiled model, as ICore::compile_model and ICore::import_model return it:
/// the device's ICompiledModel, the module that implements it (PluginObject: the module is
/// released after the model, on destruction and on assignment), and whether the core loaded it
/// from its model cache. Errors of the guarded calls below are prefixed with the device name, as
/// the public CompiledModel's are; a default-constructed handle throws InvalidArgument.
///
///     sdk::CompiledModelHandle part = get_core()->compile_model(submodel, "TEMPLATE", {});
///     sdk::InferRequestHandle request = part.create_infer_request();
///     request.impl()->set_tensor(part.inputs()[0], input);
///     request.call("infer", [](sdk::IAsyncInferRequest& r) { r.infer(); });
///
/// Thread safety: as ICompiledModel; copies share the compiled model.
class CompiledModelHandle {
  public:
    CompiledModelHandle() = default;
    /// Adopts `impl`, which `module` keeps loaded (null for an object of libvireo or a test).
    CompiledModelHandle(std::shared_ptr<ICompiledModel> impl, std::shared_ptr<void> module,
                        bool loaded_from_cache = false);

    explicit operator bool() const noexcept { return static_cast<bool>(m_object); }
    const std::shared_ptr<ICompiledModel>& impl() const noexcept { return m_object.impl(); }
    const std::shared_ptr<void>& module() const noexcept { return m_object.module(); }
    /// The guarded object, for a call this class does not wrap: object().call("what", f).
    const PluginObject<ICompiledModel>& object() const noexcept { return m_object; }
    /// The device name errors are prefixed with (the plugin's registered name).
    std::string device_name() const { return m_object.name(); }
    /// True when the core imported it from its model cache.
    bool loaded_from_cache() const noexcept { return m_loaded_from_cache; }

    /// The compiled model's ports (ICompiledModel::inputs/outputs: stored, not plugin code).
    const OutputVector& inputs() const;
    const OutputVector& outputs() const;

    /// A new request of the device's own pipeline, holding the module. Throws Exception when
    /// the device returns none.
    InferRequestHandle create_infer_request() const;
    /// The device's answer, holding the module, as CompiledModel::get_property answers:
    /// LOADED_FROM_CACHE is true when the core loaded it from the cache (else the device's answer,
    /// false when it has none) and is always in SUPPORTED_PROPERTIES.
    Any get_property(const std::string& name) const;
    template <typename T, PropertyMutability M>
    T get_property(const Property<T, M>& property) const {
        return get_property(std::string(property.name())).template as<T>();
    }
    void set_property(const AnyMap& properties) const;
    /// The device's runtime model; the returned pointer keeps the module loaded.
    std::shared_ptr<const Model> get_runtime_model() const;
    /// What CompiledModel::export_model writes: the core's blob header naming the device's plugin,
    /// its version and ABI, the device's own payload, one checksum. ICore::import_model reads it
    /// back. Throws NotImplemented when the device cannot export.
    void export_model(std::ostream& blob) const;

  private:
    const PluginObject<ICompiledModel>& checked() const;

    PluginObject<ICompiledModel> m_object;  // named by its plugin's device name
    bool m_loaded_from_cache = false;
};

}  // namespace vireo::sdk
