// Declares VariableState, the application's handle to one variable of a stateful model
// (a ReadValue/Assign pair) inside one infer request.
#pragma once

#include <memory>
#include <string>

#include "vireo/plugin_object.hpp"
#include "vireo/tensor.hpp"

namespace vireo {
namespace sdk {
class IVariableState;
}

/// One variable's value in one infer request, from InferRequest::query_state().
///
///     for (VariableState& state : request.query_state())
///         if (state.get_name() == "h0") state.reset();
///
/// Ownership: a handle; copies share the same state. It keeps the request's plugin library
/// loaded, so it may outlive the Core, the compiled model and the request.
/// Thread safety: use it only while its request is idle (not between start_async and wait).
/// Errors: plugin errors are rethrown as vireo::Exception of the same kind, prefixed with
/// "variable '<id>'" (a foreign exception as the general kind, also naming the operation; see
/// PluginObject); a default-constructed handle throws InvalidArgument.
class VariableState {
  public:
    VariableState() = default;
    /// Used by the core: adopts a plugin's state; `so` keeps the plugin library loaded.
    VariableState(std::shared_ptr<sdk::IVariableState> impl, std::shared_ptr<void> so);
    ~VariableState();
    VariableState(const VariableState&) = default;
    VariableState(VariableState&&) noexcept = default;
    /// Assignments release the old implementation before the old library reference
    /// (PluginObject's assignment order).
    VariableState& operator=(const VariableState& other);
    VariableState& operator=(VariableState&& other) noexcept;

    /// The variable id (ReadValue's variable_id).
    std::string get_name() const;
    /// Back to the initial value (zeros, or the ReadValue's initialiser).
    void reset();
    /// Copies `state` in. Throws InvalidArgument naming the variable on a type or shape mismatch.
    void set_state(const Tensor& state);
    /// The current value, a handle to the state's storage (keeps the plugin library loaded).
    Tensor get_state() const;

    explicit operator bool() const { return static_cast<bool>(m_object); }

  private:
    const PluginObject<sdk::IVariableState>& checked() const;

    PluginObject<sdk::IVariableState> m_object;  // named "variable '<name>'"
};

}  // namespace vireo
