// Declares RemoteTensor: a tensor living in one simulated device's memory, seen by the host only
// as a buffer handle.
#pragma once

#include <memory>
#include <string>

#include "device.hpp"
#include "vireo/sdk/itensor.hpp"

namespace vireo::mock_remote {

/// A device buffer with a type and shape. Holds its device (so the device outlives it) and frees
/// the buffer when destroyed. copy_from_host/copy_to_host go over the modelled bus.
/// Not thread-safe beyond the Tensor contract: set_shape and copies are the caller's to serialise
/// (also against a request that uses the tensor).
class RemoteTensor final : public sdk::IRemoteTensor {
  public:
    /// Throws InvalidArgument for a non-static element type.
    RemoteTensor(std::shared_ptr<Device> device, element::Type type, const Shape& shape);
    ~RemoteTensor() override;

    element::Type get_element_type() const override { return m_type; }
    const Shape& get_shape() const override { return m_shape; }
    /// Reallocates the device buffer when the new shape needs more bytes (contents are lost then).
    void set_shape(const Shape& shape) override;
    const Strides& get_strides() const override { return m_strides; }
    const std::string& get_device_name() const override { return m_device->name(); }
    const AnyMap& get_properties() const override { return m_properties; }
    void copy_from_host(const void* src) override;
    void copy_to_host(void* dst) const override;

    const std::shared_ptr<Device>& device() const { return m_device; }
    BufferHandle handle() const { return m_handle; }

  private:
    void update_properties();

    std::shared_ptr<Device> m_device;
    element::Type m_type;
    Shape m_shape;
    Strides m_strides;
    BufferHandle m_handle = 0;
    size_t m_capacity = 0;
    AnyMap m_properties;
};

}  // namespace vireo::mock_remote
