// Implements CompiledModelHandle and with_module: another device's objects as a plugin holds them.
#include "vireo/sdk/device_handles.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

#include "vireo/exception.hpp"
#include "vireo/sdk/blob_container.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo::sdk {
namespace {

// The device name of the plugin that compiled `compiled`, which errors are prefixed with.
std::string device_of(const ICompiledModel& compiled) {
    auto plugin = compiled.get_plugin();
    return plugin ? plugin->get_device_name() : std::string("compiled model");
}

}  // namespace

Tensor with_module(const Tensor& tensor, const std::shared_ptr<void>& module) {
    if (!tensor || tensor.shared_object() || !module) return tensor;
    return Tensor(tensor.impl(), module);
}

CompiledModelHandle::CompiledModelHandle(std::shared_ptr<ICompiledModel> impl,
                                         std::shared_ptr<void> module, bool loaded_from_cache)
    : m_object(std::move(impl), std::move(module), device_of, "compiled model"),
      m_loaded_from_cache(loaded_from_cache) {}

const PluginObject<ICompiledModel>& CompiledModelHandle::checked() const {
    return m_object.checked("CompiledModelHandle");
}

const OutputVector& CompiledModelHandle::inputs() const {
    return checked().impl()->inputs();
}

const OutputVector& CompiledModelHandle::outputs() const {
    return checked().impl()->outputs();
}

InferRequestHandle CompiledModelHandle::create_infer_request() const {
    const auto& object = checked();
    auto request = object.call("create_infer_request", [](ICompiledModel& compiled) {
        return compiled.create_infer_request();
    });
    if (!request) throw_error<Exception>(object.name(), ": create_infer_request returned null");
    // The name is read once here, not per error: a request's errors name its device.
    return InferRequestHandle(std::move(request), object.module(), object.name());
}

Any CompiledModelHandle::get_property(const std::string& name) const {
    const auto& object = checked();
    if (name == vireo::loaded_from_cache.name()) {
        // True when the core imported this model from its cache. Otherwise the device may know
        // better: a meta-device (AUTO, MULTI) whose own device loaded its part from the cache.
        if (m_loaded_from_cache) return true;
        try {
            return object
                .call("get_property",
                      [&](ICompiledModel& compiled) { return compiled.get_property(name); })
                .as<bool>();
        } catch (const std::exception&) {
            return false;  // the device does not answer it
        }
    }
    Any value = object.call("get_property",
                            [&](ICompiledModel& compiled) { return compiled.get_property(name); });
    if (name == supported_properties.name()) {
        // loaded_from_cache is answered here, so it is always supported.
        auto names = value.as<std::vector<PropertyName>>();
        if (std::find(names.begin(), names.end(), vireo::loaded_from_cache.name()) == names.end())
            names.emplace_back(vireo::loaded_from_cache.name(), PropertyMutability::RO);
        value = Any(std::move(names));
    }
    value.set_shared_object(object.module());
    return value;
}

void CompiledModelHandle::set_property(const AnyMap& properties) const {
    checked().call("set_property",
                   [&](ICompiledModel& compiled) { compiled.set_property(properties); });
}

std::shared_ptr<const Model> CompiledModelHandle::get_runtime_model() const {
    const auto& object = checked();
    auto model = object.call("get_runtime_model",
                             [](ICompiledModel& compiled) { return compiled.get_runtime_model(); });
    if (!model || !object.module()) return model;
    // The model may hold the device's types (rt_info values): pair it with the module, which an
    // aliasing shared_ptr keeps loaded until after the model is released.
    struct Holder {
        std::shared_ptr<void> module;
        std::shared_ptr<const Model> model;
    };
    auto holder = std::make_shared<Holder>(Holder{object.module(), std::move(model)});
    return std::shared_ptr<const Model>(holder, holder->model.get());
}

void CompiledModelHandle::export_model(std::ostream& blob) const {
    const auto& object = checked();
    std::ostringstream payload(std::ios::binary);
    object.call("export_model", [&](ICompiledModel& compiled) { compiled.export_model(payload); });
    auto plugin = object.impl()->get_plugin();
    if (!plugin) throw_error<Exception>("export_model: the compiled model has no plugin");
    BlobContainer::write(blob, BlobIdentity::of(plugin->get_version()), payload.view());
}

}  // namespace vireo::sdk
