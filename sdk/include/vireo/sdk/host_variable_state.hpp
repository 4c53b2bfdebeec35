// Declares HostVariableState: a request's value of one variable of a stateful model
// (ReadValue/Assign) in host memory — the state every host-memory plugin keeps.
#pragma once

#include <utility>

#include "vireo/model.hpp"
#include "vireo/sdk/ivariable_state.hpp"

namespace vireo::sdk {

/// A variable's value for one request, in host memory. Starts reset (zeros of the declared shape,
/// dynamic dimensions as 0); a ReadValue with an init input reads that input until the variable is
/// written by an Assign at the end of an inference (commit/exchange) or by set_state().
/// Not thread-safe: used by its request only while the request is idle or running it.
///
///     for (const VariableInfo& v : model->get_variables())
///         m_states.push_back(std::make_shared<sdk::HostVariableState>(v));
///     // ReadValue: is_reset() ? the init input (or zeros) : get_state()
///     // Assign, after the run: state.commit(value)
class HostVariableState : public IVariableState {
  public:
    explicit HostVariableState(const VariableInfo& info);

    /// Zeros of the declared shape; the variable counts as reset again.
    void reset() override;
    /// Copies `state` in. Throws InvalidArgument naming the variable on another element type or a
    /// shape that does not fit the declared one.
    void set_state(const Tensor& state) override;
    /// Stores a copy of the value an Assign computed and marks the variable written. The buffer
    /// grows by half as much again when the value no longer fits (a KV cache gains a token per
    /// inference: a logarithmic number of reallocations, not one per token). A value that is the
    /// state itself (read and written back unchanged) is not copied.
    void commit(const Tensor& value);
    /// Takes `value` as the new state without a copy (a buffer of `capacity` elements its owner
    /// gives up) and returns the previous state's buffer and capacity for the owner to reuse: an
    /// executor and its states swap two buffers instead of copying a KV cache every inference.
    /// The tensor get_state() returned before is then the owner's, valid until the next inference.
    std::pair<Tensor, size_t> exchange(Tensor value, size_t capacity);
    /// Takes `view` as the new state without a copy: a view into memory its owner keeps and goes
    /// on writing beyond the view's end (an executor that appends each token's keys to a cache
    /// with spare room along the sequence axis). The state never writes into it: reset(),
    /// set_state() and commit() give the state a buffer of its own first, and get_state() returns
    /// a copy, so no handle a user holds can change when the owner appends or the state changes.
    void share(Tensor view);
    /// The value as held, for the plugin that reads it during an inference (get_state() copies a
    /// shared value; this does not).
    const Tensor& stored() const { return m_state; }
    /// A copy when the value is shared (see share()), else a handle to the state's buffer.
    Tensor get_state() const override;

    const VariableInfo& info() const { return m_info; }

  private:
    VariableInfo m_info;
    size_t m_capacity = 0;  ///< elements m_state's buffer holds (0: exactly its shape's)
    bool m_shared = false;  ///< m_state is a view its owner may write beyond (share())
};

}  // namespace vireo::sdk
