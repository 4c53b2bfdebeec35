// Declares IVariableState, one variable of a stateful model (ReadValue/Assign) in one request.
#pragma once

#include <string>

#include "vireo/tensor.hpp"

namespace vireo::sdk {

/// A request's value of one variable. The default implementation keeps the value in a host
/// tensor; a device plugin may override to keep it in device memory.
/// Not thread-safe: used only while its request is idle.
class IVariableState {
public:
    IVariableState(std::string name, Tensor initial) : m_name(std::move(name)), m_state(std::move(initial)) {}
    virtual ~IVariableState() = default;
    virtual const std::string& get_name() const { return m_name; }
    /// Back to the initial value (zeros, or the ReadValue's init subgraph result).
    virtual void reset();
    /// Copies `state` in (same type; the shape may change if the variable's shape is dynamic).
    /// Throws InvalidArgument naming the variable on a type or shape mismatch.
    virtual void set_state(const Tensor& state);
    /// The current value (a handle to the state's storage).
    virtual Tensor get_state() const { return m_state; }
    bool is_reset() const { return m_reset; }
    void mark_written() { m_reset = false; }

protected:
    std::string m_name;
    Tensor m_state;
    bool m_reset = true;
};

}  // namespace vireo::sdk
