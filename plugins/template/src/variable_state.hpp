// Declares VariableState: one request's value of one variable of a stateful model
// (ReadValue/Assign), kept in host memory.
#pragma once

#include "vireo/model.hpp"
#include "vireo/sdk/ivariable_state.hpp"

namespace vireo::template_plugin {

/// A variable's value for one request. Starts reset: zeros of the variable's shape (dynamic
/// dimensions count as 0), and a ReadValue with an init input reads that input instead until
/// the variable is written (by an Assign at the end of an inference, or by set_state).
/// Not thread-safe: used by its request only while the request is idle or running it.
class VariableState : public sdk::IVariableState {
  public:
    explicit VariableState(const VariableInfo& info);

    /// Zeros, and the variable counts as reset again.
    void reset() override;
    /// Copies `state` in. Throws InvalidArgument naming the variable when the element type
    /// differs or the shape does not fit the variable's shape.
    void set_state(const Tensor& state) override;
    /// Stores the value an Assign computed (a copy) and marks the variable written.
    void commit(const Tensor& value);
    const VariableInfo& info() const { return m_info; }

  private:
    VariableInfo m_info;
};

}  // namespace vireo::template_plugin
