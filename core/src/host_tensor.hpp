// Declares HostTensor, the implementation of every host-memory Tensor (owning, wrapping, views).
#pragma once

#include <memory>

#include "vireo/dev/itensor.hpp"

namespace vireo {

/// Host memory. Owning tensors keep their buffer in m_memory and may grow on set_shape;
/// wrapping tensors point into memory someone else keeps alive (m_memory may hold a keep-alive
/// such as a mapped file or the tensor a view was cut from).
class HostTensor final : public sdk::ITensor {
  public:
    /// Owning, zero-filled.
    HostTensor(element::Type type, const Shape& shape);
    /// Wrapping `ptr`; `strides` empty means contiguous. `keep_alive` is held, not used.
    HostTensor(element::Type type, const Shape& shape, void* ptr, const Strides& strides,
               std::shared_ptr<void> keep_alive);

    element::Type get_element_type() const override { return m_type; }
    const Shape& get_shape() const override { return m_shape; }
    void set_shape(const Shape& shape) override;
    const Strides& get_strides() const override { return m_strides; }
    void* data() const override { return m_ptr; }

  private:
    void allocate(size_t bytes);

    element::Type m_type;
    Shape m_shape;
    Strides m_strides;
    void* m_ptr = nullptr;
    size_t m_capacity = 0;  // bytes usable from m_ptr
    bool m_owning = false;
    std::shared_ptr<void> m_memory;
};

}  // namespace vireo
