// Implements RemoteContext: device tensors for one simulated device instance.
#include "remote_context.hpp"

#include "remote_tensor.hpp"
#include "vireo/properties.hpp"

namespace vireo::mock_remote {

RemoteContext::RemoteContext(std::shared_ptr<Device> device, const std::string& device_id)
    : m_device(std::move(device)),
      m_properties{{device::id.name(), device_id}, {device::full_name.name(), m_device->name()}} {}

Tensor RemoteContext::create_tensor(element::Type type, const Shape& shape, const AnyMap&) {
    return Tensor(std::make_shared<RemoteTensor>(m_device, type, shape));
}

}  // namespace vireo::mock_remote
