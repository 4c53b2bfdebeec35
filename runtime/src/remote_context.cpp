// Implements RemoteContext: the public handle over a plugin's IRemoteContext.
#include "vireo/remote_context.hpp"

#include <string>

#include "guard.hpp"
#include "vireo/sdk/iremote_context.hpp"

namespace vireo {
using runtime::guarded;

namespace {

// The device's name as the context of an error the plugin threw. Called while that error is being
// reported, so it lets nothing out: a get_device_name that throws too would replace the first
// error.
std::string context_of(const sdk::IRemoteContext& impl) {
    try {
        return impl.get_device_name();
    } catch (...) {
        return "remote context (its device name could not be read)";
    }
}

}  // namespace

RemoteContext::RemoteContext(std::shared_ptr<sdk::IRemoteContext> impl, std::shared_ptr<void> so)
    : m_so(std::move(so)), m_impl(std::move(impl)) {}

RemoteContext::~RemoteContext() = default;

RemoteContext& RemoteContext::operator=(const RemoteContext& other) {
    m_impl = other.m_impl;
    m_so = other.m_so;
    return *this;
}

RemoteContext& RemoteContext::operator=(RemoteContext&& other) noexcept {
    m_impl = std::move(other.m_impl);
    m_so = std::move(other.m_so);
    return *this;
}

const std::shared_ptr<sdk::IRemoteContext>& RemoteContext::checked_impl() const {
    if (!m_impl)
        throw_error<InvalidArgument>("RemoteContext is empty (default-constructed or moved from)");
    return m_impl;
}

std::string RemoteContext::get_device_name() const {
    const auto& impl = checked_impl();
    return guarded([] { return std::string("remote context"); },
                   [&] { return impl->get_device_name(); });
}

AnyMap RemoteContext::get_params() const {
    const auto& impl = checked_impl();
    AnyMap params =
        guarded([&] { return context_of(*impl); }, [&] { return impl->get_property(); });
    for (auto& [key, value] : params) value.set_shared_object(m_so);
    return params;
}

Tensor RemoteContext::create_tensor(element::Type type, const Shape& shape, const AnyMap& params) {
    const auto& impl = checked_impl();
    Tensor tensor = guarded([&] { return context_of(*impl); },
                            [&] { return impl->create_tensor(type, shape, params); });
    return tensor.shared_object() ? tensor : Tensor(tensor.impl(), m_so);
}

Tensor RemoteContext::create_host_tensor(element::Type type, const Shape& shape) {
    const auto& impl = checked_impl();
    Tensor tensor = guarded([&] { return context_of(*impl); },
                            [&] { return impl->create_host_tensor(type, shape); });
    return tensor.shared_object() ? tensor : Tensor(tensor.impl(), m_so);
}

}  // namespace vireo
