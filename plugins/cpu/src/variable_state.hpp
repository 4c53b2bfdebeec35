// Declares VariableState: one variable (ReadValue/Assign) of a CPU request.
#pragma once

#include <utility>

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
    /// Stores a copy of the value an Assign computed and marks the variable written. The buffer
    /// grows by half as much again when the value no longer fits (a KV cache gains a token per
    /// inference: a logarithmic number of reallocations, not one per token).
    void commit(const Tensor& value);
    /// Takes `value` as the new state without a copy (a buffer of `capacity` elements its owner
    /// gives up) and returns the previous state's buffer and capacity for the owner to reuse: an
    /// executor and its states swap two buffers instead of copying a KV cache every inference.
    /// The tensor get_state() returned before is then the owner's, valid until the next inference.
    std::pair<Tensor, size_t> exchange(Tensor value, size_t capacity);

  private:
    VariableInfo m_info;
    size_t m_capacity = 0;  ///< elements m_state's buffer holds (0: exactly its shape's)
};

}  // namespace vireo::cpu_plugin
