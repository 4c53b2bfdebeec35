// Declares IVariableState, one variable of a stateful model (ReadValue/Assign) in one request.
#pragma once

#include <optional>
#include <string>

#include "vireo/partial_shape.hpp"
#include "vireo/tensor.hpp"

namespace vireo::sdk {

/// A request's value of one variable. The default implementation keeps the value in a host
/// tensor; a device plugin may override to keep it in device memory.
/// Not thread-safe: used only while its request is idle.
class IVariableState {
  public:
    /// `initial` is the storage (kept, not copied). `shape` is the variable's declared shape,
    /// which set_state() checks against; default: the initial tensor's shape (static).
    /// Throws InvalidArgument if `initial` is empty.
    IVariableState(std::string name, Tensor initial,
                   std::optional<PartialShape> shape = std::nullopt);
    virtual ~IVariableState() = default;
    virtual const std::string& get_name() const { return m_name; }
    /// Back to the initial value. Default: zero-fills the current storage (keeping its shape);
    /// a plugin with a ReadValue init subgraph overrides this to compute it.
    virtual void reset();
    /// Copies `state` in (same type; the shape must fit the declared shape, and the storage is
    /// resized when it differs: the storage must then be an owning tensor).
    /// Throws InvalidArgument naming the variable on a type or shape mismatch.
    virtual void set_state(const Tensor& state);
    /// The current value (a handle to the state's storage).
    virtual Tensor get_state() const { return m_state; }
    bool is_reset() const { return m_reset; }
    void mark_written() { m_reset = false; }

  protected:
    std::string m_name;
    Tensor m_state;
    PartialShape m_shape;  ///< declared shape of the variable
    bool m_reset = true;
};

}  // namespace vireo::sdk
