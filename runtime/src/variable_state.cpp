// Implements VariableState: the public handle over a plugin's IVariableState.
#include "vireo/variable_state.hpp"

#include "vireo/sdk/ivariable_state.hpp"

namespace vireo {
namespace {

// "variable 'x'", which errors are prefixed with; "variable state" if the name cannot be read.
std::string variable_of(const sdk::IVariableState& state) {
    return "variable '" + state.get_name() + "'";
}

}  // namespace

VariableState::VariableState(std::shared_ptr<sdk::IVariableState> impl, std::shared_ptr<void> so)
    : m_object(std::move(impl), std::move(so), variable_of, "variable state") {}

VariableState::~VariableState() = default;
VariableState& VariableState::operator=(const VariableState& other) = default;
VariableState& VariableState::operator=(VariableState&& other) noexcept = default;

const PluginObject<sdk::IVariableState>& VariableState::checked() const {
    return m_object.checked("VariableState");
}

std::string VariableState::get_name() const {
    return checked().call("get_name", [](sdk::IVariableState& state) { return state.get_name(); });
}

void VariableState::reset() {
    checked().call("reset", [](sdk::IVariableState& state) { state.reset(); });
}

void VariableState::set_state(const Tensor& state) {
    checked().call("set_state", [&](sdk::IVariableState& variable) { variable.set_state(state); });
}

Tensor VariableState::get_state() const {
    const auto& object = checked();
    Tensor state = object.call("get_state",
                               [](sdk::IVariableState& variable) { return variable.get_state(); });
    if (!state || state.shared_object()) return state;
    return Tensor(state.impl(), object.module());
}

}  // namespace vireo
