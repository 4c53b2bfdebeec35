// Implements HostTensor and the ITensor helpers.
#include "host_tensor.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "vireo/dev/memory_limits.hpp"
#include "vireo/exception.hpp"

namespace vireo {
namespace {

constexpr size_t kAlignment = 64;

// No single tensor can be larger than the machine's memory: a bigger request is refused with a
// message before the allocator sees it (and before the rounding below could overflow).
using sdk::physical_memory_bytes;

void check_static(element::Type type) {
    if (!type.is_static())
        throw_error<InvalidArgument>("a tensor needs a static element type, got ", type);
}

}  // namespace

HostTensor::HostTensor(element::Type type, const Shape& shape)
    : m_type(type), m_shape(shape), m_owning(true) {
    check_static(type);
    const size_t bytes = type.bytes_for(shape_size(shape));
    allocate(bytes);
    m_strides = type.is_sub_byte() ? Strides{} : row_major_strides(shape, type.size());
}

HostTensor::HostTensor(element::Type type, const Shape& shape, void* ptr, const Strides& strides,
                       std::shared_ptr<void> keep_alive)
    : m_type(type), m_shape(shape), m_ptr(ptr), m_memory(std::move(keep_alive)) {
    check_static(type);
    const size_t count = shape_size(shape);
    if (strides.empty()) {
        m_strides = type.is_sub_byte() ? Strides{} : row_major_strides(shape, type.size());
        m_capacity = type.bytes_for(count);
    } else {
        if (type.is_sub_byte())
            throw_error<InvalidArgument>("strides are not supported for element type ", type);
        if (strides.size() != shape.size())
            throw_error<InvalidArgument>("strides have ", strides.size(), " axes but shape ", shape,
                                         " has ", shape.size());
        m_strides = strides;
        // Span of the view: offset of the last element plus one element.
        size_t span = count == 0 ? 0 : type.size();
        for (size_t i = 0; i < shape.size() && count; ++i) span += (shape[i] - 1) * strides[i];
        m_capacity = span;
    }
    if (ptr == nullptr && count != 0)
        throw_error<InvalidArgument>("a tensor of shape ", shape,
                                     " needs memory, got a null pointer");
}

void HostTensor::allocate(size_t bytes) {
    if (bytes > physical_memory_bytes())
        throw_error<InvalidArgument>("cannot allocate ", bytes, " bytes for a tensor of shape ",
                                     m_shape, " and type ", m_type, ": more than the ",
                                     physical_memory_bytes(), " bytes of memory this machine has");
    const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    void* p = rounded ? std::aligned_alloc(kAlignment, rounded) : nullptr;
    if (rounded && !p)
        throw_error<InvalidArgument>("cannot allocate ", bytes, " bytes for a tensor of shape ",
                                     m_shape);
    if (p) std::memset(p, 0, rounded);
    m_memory = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
    m_ptr = p;
    m_capacity = rounded;
}

void HostTensor::set_shape(const Shape& shape) {
    const size_t bytes = m_type.bytes_for(shape_size(shape));
    const bool contiguous = is_continuous();
    if (bytes > m_capacity || !contiguous) {
        if (!m_owning) {
            throw_error<InvalidArgument>("cannot set shape ", shape,
                                         " on a tensor wrapping memory of ", m_capacity, " bytes",
                                         contiguous ? "" : " (a strided view)");
        }
        allocate(bytes);
    }
    m_shape = shape;
    m_strides = m_type.is_sub_byte() ? Strides{} : row_major_strides(shape, m_type.size());
}

namespace sdk {

size_t ITensor::get_size() const {
    return shape_size(get_shape());
}

size_t ITensor::get_byte_size() const {
    return get_element_type().bytes_for(get_size());
}

bool ITensor::is_continuous() const {
    const auto type = get_element_type();
    if (type.is_sub_byte() || get_strides().empty()) return true;
    const Shape& shape = get_shape();
    const Strides expected = row_major_strides(shape, type.size());
    const Strides& actual = get_strides();
    for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] != 1 && expected[i] != actual[i]) return false;
    return true;
}

std::shared_ptr<ITensor> make_host_tensor(element::Type type, const Shape& shape) {
    return std::make_shared<HostTensor>(type, shape);
}

}  // namespace sdk
}  // namespace vireo
