// Declares RemoteContext: the memory space of one simulated device instance, which creates
// remote (device) tensors and host tensors.
#pragma once

#include <memory>
#include <string>

#include "device.hpp"
#include "vireo/sdk/iremote_context.hpp"

namespace vireo::mock_remote {

/// A context of one device instance. Tensors it creates keep the device alive.
/// Properties: DEVICE_ID ("1") and FULL_DEVICE_NAME ("MOCK_REMOTE.1"). Thread-safe.
class RemoteContext final : public sdk::IRemoteContext {
  public:
    RemoteContext(std::shared_ptr<Device> device, const std::string& device_id);

    const std::string& get_device_name() const override { return m_device->name(); }
    const AnyMap& get_property() const override { return m_properties; }
    /// A RemoteTensor in the device's memory (zero-filled). `params` are not used; throws
    /// InvalidArgument for a non-static element type.
    Tensor create_tensor(element::Type type, const Shape& shape,
                         const AnyMap& params = {}) override;

    const std::shared_ptr<Device>& device() const { return m_device; }

  private:
    std::shared_ptr<Device> m_device;
    AnyMap m_properties;
};

}  // namespace vireo::mock_remote
