// Implements RemoteTensor: allocation in device memory and host<->device copies over the bus.
#include "remote_tensor.hpp"

#include "vireo/mock_remote/properties.hpp"
#include "vireo/properties.hpp"

namespace vireo::mock_remote {

RemoteTensor::RemoteTensor(std::shared_ptr<Device> device, element::Type type, const Shape& shape)
    : m_device(std::move(device)), m_type(type), m_shape(shape) {
    if (!type.is_static())
        throw_error<InvalidArgument>(m_device->name(),
                                     ": a remote tensor needs a static element type, found ", type);
    m_capacity = type.bytes_for(shape_size(shape));
    m_handle = m_device->memory().allocate(m_capacity);
    m_strides = row_major_strides(m_shape, m_type.size());
    update_properties();
}

RemoteTensor::~RemoteTensor() {
    m_device->memory().free(m_handle);
}

void RemoteTensor::set_shape(const Shape& shape) {
    const size_t bytes = m_type.bytes_for(shape_size(shape));
    if (bytes > m_capacity) {
        const BufferHandle grown = m_device->memory().allocate(bytes);
        m_device->memory().free(m_handle);
        m_handle = grown;
        m_capacity = bytes;
    }
    m_shape = shape;
    m_strides = row_major_strides(m_shape, m_type.size());
    update_properties();
}

void RemoteTensor::copy_from_host(const void* src) {
    m_device->upload(m_handle, src, get_byte_size(), m_device->bus_model());
}

void RemoteTensor::copy_to_host(void* dst) const {
    m_device->download(m_handle, dst, get_byte_size(), m_device->bus_model());
}

void RemoteTensor::update_properties() {
    m_properties = AnyMap{{device::full_name.name(), m_device->name()}, {kBufferHandle, m_handle}};
}

}  // namespace vireo::mock_remote
