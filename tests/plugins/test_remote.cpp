// Implements the TEST plugin's remote context and remote tensor.
#include "test_remote.hpp"

#include <cstring>

namespace vireo::test_plugin {

RemoteTensor::RemoteTensor(element::Type type, const Shape& shape, std::string device_name)
    : m_type(type), m_device_name(std::move(device_name)), m_properties{{"TEST_REMOTE", true}} {
    set_shape(shape);
}

void RemoteTensor::set_shape(const Shape& shape) {
    m_shape = shape;
    m_strides = row_major_strides(shape, m_type.size());
    m_memory.assign(m_type.bytes_for(shape_size(shape)), 0);
}

void RemoteTensor::copy_from_host(const void* src) {
    if (!m_memory.empty()) std::memcpy(m_memory.data(), src, m_memory.size());
}

void RemoteTensor::copy_to_host(void* dst) const {
    if (!m_memory.empty()) std::memcpy(dst, m_memory.data(), m_memory.size());
}

RemoteContext::RemoteContext(std::string device_name, AnyMap params)
    : m_device_name(std::move(device_name)), m_params(std::move(params)) {}

Tensor RemoteContext::create_tensor(element::Type type, const Shape& shape, const AnyMap&) {
    if (!type.is_static())
        throw_error<InvalidArgument>("TEST remote tensor: element type must be static");
    return Tensor(std::make_shared<RemoteTensor>(type, shape, m_device_name));
}

}  // namespace vireo::test_plugin
