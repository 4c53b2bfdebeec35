// Implements CompiledModel: the public handle over a plugin's ICompiledModel.
#include "vireo/compiled_model.hpp"

#include "port_lookup.hpp"
#include "vireo/sdk/device_handles.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo {
namespace {

// export_model, get_runtime_model and get_property answer as the SDK handle that plugins get from
// sdk::ICore does: one implementation for both (the blob header, the module held by the runtime
// model and by property values, LOADED_FROM_CACHE).
sdk::CompiledModelHandle sdk_handle(const PluginObject<sdk::ICompiledModel>& object,
                                    bool loaded_from_cache) {
    return sdk::CompiledModelHandle(object.impl(), object.module(), loaded_from_cache);
}

}  // namespace

CompiledModel::CompiledModel(std::shared_ptr<sdk::ICompiledModel> impl, std::shared_ptr<void> so,
                             bool loaded_from_cache)
    // Named as the SDK handle names it: by its plugin's device name.
    : m_object(sdk::CompiledModelHandle(std::move(impl), std::move(so)).object()),
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
    sdk_handle(checked(), m_loaded_from_cache).export_model(blob);
}

std::shared_ptr<const Model> CompiledModel::get_runtime_model() const {
    return sdk_handle(checked(), m_loaded_from_cache).get_runtime_model();
}

void CompiledModel::set_property(const AnyMap& properties) {
    checked().call("set_property",
                   [&](sdk::ICompiledModel& compiled) { compiled.set_property(properties); });
}

Any CompiledModel::get_property(const std::string& name) const {
    return sdk_handle(checked(), m_loaded_from_cache).get_property(name);
}

}  // namespace vireo
