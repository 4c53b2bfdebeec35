// Implements VariableState: the public handle over a plugin's IVariableState.
#include "vireo/variable_state.hpp"

#include "guard.hpp"
#include "vireo/sdk/ivariable_state.hpp"

namespace vireo {
using runtime::guarded;

namespace {
std::string variable_context() {
    return "variable state";
}
}  // namespace

VariableState::VariableState(std::shared_ptr<sdk::IVariableState> impl, std::shared_ptr<void> so)
    : m_so(std::move(so)), m_impl(std::move(impl)) {}

VariableState::~VariableState() = default;

VariableState& VariableState::operator=(const VariableState& other) {
    m_impl = other.m_impl;
    m_so = other.m_so;
    return *this;
}

VariableState& VariableState::operator=(VariableState&& other) noexcept {
    m_impl = std::move(other.m_impl);
    m_so = std::move(other.m_so);
    return *this;
}

const std::shared_ptr<sdk::IVariableState>& VariableState::checked_impl() const {
    if (!m_impl)
        throw_error<InvalidArgument>("VariableState is empty (default-constructed or moved from)");
    return m_impl;
}

std::string VariableState::get_name() const {
    const auto& impl = checked_impl();
    return guarded(variable_context, [&] { return impl->get_name(); });
}

void VariableState::reset() {
    const auto& impl = checked_impl();
    guarded([&] { return "variable '" + impl->get_name() + "'"; }, [&] { impl->reset(); });
}

void VariableState::set_state(const Tensor& state) {
    const auto& impl = checked_impl();
    guarded([&] { return "variable '" + impl->get_name() + "'"; }, [&] { impl->set_state(state); });
}

Tensor VariableState::get_state() const {
    const auto& impl = checked_impl();
    Tensor state = guarded([&] { return "variable '" + impl->get_name() + "'"; },
                           [&] { return impl->get_state(); });
    if (!state || state.shared_object()) return state;
    return Tensor(state.impl(), m_so);
}

}  // namespace vireo
