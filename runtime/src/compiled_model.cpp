// Implements CompiledModel: the public handle over a plugin's ICompiledModel.
#include "vireo/compiled_model.hpp"

#include <algorithm>
#include <sstream>

#include "port_lookup.hpp"
#include "vireo/sdk/blob_container.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo {
namespace {

// The device name of the plugin that compiled `compiled`, which errors are prefixed with.
std::string device_of(const sdk::ICompiledModel& compiled) {
    auto plugin = compiled.get_plugin();
    return plugin ? plugin->get_device_name() : std::string("compiled model");
}

}  // namespace

CompiledModel::CompiledModel(std::shared_ptr<sdk::ICompiledModel> impl, std::shared_ptr<void> so,
                             bool loaded_from_cache)
    : m_object(std::move(impl), std::move(so), device_of, "compiled model"),
      m_loaded_from_cache(loaded_from_cache) {}

CompiledModel::~CompiledModel() = default;
CompiledModel& CompiledModel::operator=(const CompiledModel& other) = default;
CompiledModel& CompiledModel::operator=(CompiledModel&& other) noexcept = default;

const PluginObject<sdk::ICompiledModel>& CompiledModel::checked() const {
    return m_object.checked("CompiledModel");
}

// inputs() and outputs() are the SDK base class's stored ports, not plugin code: no guard.
const OutputVector& CompiledModel::inputs() const {
    return checked().impl()->inputs();
}
const OutputVector& CompiledModel::outputs() const {
    return checked().impl()->outputs();
}

Output CompiledModel::input() const {
    return runtime::single_port(inputs(), "input");
}
Output CompiledModel::input(size_t index) const {
    return runtime::port_at(inputs(), index, "input");
}
Output CompiledModel::input(const std::string& tensor_name) const {
    return runtime::port_named(inputs(), tensor_name, "input");
}
Output CompiledModel::output() const {
    return runtime::single_port(outputs(), "output");
}
Output CompiledModel::output(size_t index) const {
    return runtime::port_at(outputs(), index, "output");
}
Output CompiledModel::output(const std::string& tensor_name) const {
    return runtime::port_named(outputs(), tensor_name, "output");
}

InferRequest CompiledModel::create_infer_request() const {
    const auto& object = checked();
    auto request = object.call("create_infer_request", [](sdk::ICompiledModel& compiled) {
        return compiled.create_infer_request();
    });
    if (!request) throw_error<Exception>(object.name(), ": create_infer_request returned null");
    return InferRequest(std::move(request), object.module(), object.impl(), m_loaded_from_cache);
}

void CompiledModel::export_model(std::ostream& blob) const {
    const auto& object = checked();
    std::ostringstream payload(std::ios::binary);
    object.call("export_model",
                [&](sdk::ICompiledModel& compiled) { compiled.export_model(payload); });
    auto plugin = object.impl()->get_plugin();
    if (!plugin) throw_error<Exception>("export_model: the compiled model has no plugin");
    sdk::BlobContainer::write(blob, sdk::BlobIdentity::of(plugin->get_version()), payload.view());
}

std::shared_ptr<const Model> CompiledModel::get_runtime_model() const {
    const auto& object = checked();
    auto model = object.call("get_runtime_model", [](sdk::ICompiledModel& compiled) {
        return compiled.get_runtime_model();
    });
    if (!model) return model;
    // The model may hold plugin types (rt_info values): pair it with the library, which an
    // aliasing shared_ptr keeps alive until after the model is released.
    struct Holder {
        std::shared_ptr<void> so;
        std::shared_ptr<const Model> model;
    };
    auto holder = std::make_shared<Holder>(Holder{object.module(), model});
    return std::shared_ptr<const Model>(holder, holder->model.get());
}

void CompiledModel::set_property(const AnyMap& properties) {
    checked().call("set_property",
                   [&](sdk::ICompiledModel& compiled) { compiled.set_property(properties); });
}

Any CompiledModel::get_property(const std::string& name) const {
    const auto& object = checked();
    if (name == loaded_from_cache.name()) {
        // True when the core imported this model from its cache. Otherwise the plugin may know
        // better: a meta-device (AUTO, MULTI) whose device loaded its part from the cache.
        if (m_loaded_from_cache) return true;
        try {
            return object
                .call("get_property",
                      [&](sdk::ICompiledModel& compiled) { return compiled.get_property(name); })
                .as<bool>();
        } catch (const std::exception&) {
            return false;  // the plugin does not answer it
        }
    }
    Any value = object.call(
        "get_property", [&](sdk::ICompiledModel& compiled) { return compiled.get_property(name); });
    if (name == supported_properties.name()) {
        // loaded_from_cache is answered here, so it is always supported.
        auto names = value.as<std::vector<PropertyName>>();
        if (std::find(names.begin(), names.end(), loaded_from_cache.name()) == names.end())
            names.emplace_back(loaded_from_cache.name(), PropertyMutability::RO);
        value = Any(std::move(names));
    }
    value.set_shared_object(object.module());
    return value;
}

}  // namespace vireo
