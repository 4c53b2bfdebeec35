// Declares VariableState: one variable (ReadValue/Assign) of a CPU request.
#pragma once

#include "vireo/model.hpp"
#include "vireo/sdk/ivariable_state.hpp"

namespace vireo::cpu_plugin {

/// A variable's value for one request, in host memory. Starts reset (zeros of the declared shape,
/// dynamic dimensions as 0); a ReadValue with an init input reads that input until the variable is
/// written by an Assign at the end of an inference or by set_state().
/// Not thread-safe: used by its request only while the request is idle or running it.
class VariableState : public sdk::IVariableState {
  public:
    explicit VariableState(const VariableInfo& info);

    void reset() override;
    /// Throws InvalidArgument naming the variable on another element type or a shape that does not
    /// fit the declared one.
    void set_state(const Tensor& state) override;
    /// Stores a copy of the value an Assign computed and marks the variable written.
    void commit(const Tensor& value);

  private:
    VariableInfo m_info;
};

}  // namespace vireo::cpu_plugin
