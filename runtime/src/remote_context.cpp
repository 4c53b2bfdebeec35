// Implements RemoteContext: the public handle over a plugin's IRemoteContext.
#include "vireo/remote_context.hpp"

#include <string>

#include "vireo/sdk/iremote_context.hpp"

namespace vireo {
namespace {

// The device's name, which errors are prefixed with. Read only while an error is reported; if it
// throws too, PluginObject uses the fallback name instead, so the plugin's first error survives.
std::string device_of(const sdk::IRemoteContext& context) {
    return context.get_device_name();
}

}  // namespace

RemoteContext::RemoteContext(std::shared_ptr<sdk::IRemoteContext> impl, std::shared_ptr<void> so)
    : m_object(std::move(impl), std::move(so), device_of,
               "remote context (its device name could not be read)") {}

RemoteContext::~RemoteContext() = default;
RemoteContext& RemoteContext::operator=(const RemoteContext& other) = default;
RemoteContext& RemoteContext::operator=(RemoteContext&& other) noexcept = default;

const PluginObject<sdk::IRemoteContext>& RemoteContext::checked() const {
    return m_object.checked("RemoteContext");
}

std::string RemoteContext::get_device_name() const {
    return checked().call("get_device_name",
                          [](sdk::IRemoteContext& context) { return context.get_device_name(); });
}

AnyMap RemoteContext::get_params() const {
    const auto& object = checked();
    AnyMap params = object.call(
        "get_params", [](sdk::IRemoteContext& context) { return context.get_property(); });
    for (auto& [key, value] : params) value.set_shared_object(object.module());
    return params;
}

Tensor RemoteContext::create_tensor(element::Type type, const Shape& shape, const AnyMap& params) {
    const auto& object = checked();
    Tensor tensor = object.call("create_tensor", [&](sdk::IRemoteContext& context) {
        return context.create_tensor(type, shape, params);
    });
    return tensor.shared_object() ? tensor : Tensor(tensor.impl(), object.module());
}

Tensor RemoteContext::create_host_tensor(element::Type type, const Shape& shape) {
    const auto& object = checked();
    Tensor tensor = object.call("create_host_tensor", [&](sdk::IRemoteContext& context) {
        return context.create_host_tensor(type, shape);
    });
    return tensor.shared_object() ? tensor : Tensor(tensor.impl(), object.module());
}

}  // namespace vireo
