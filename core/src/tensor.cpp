// Implements vireo::Tensor over an ITensor: construction, views and copies.
#include "vireo/tensor.hpp"

#include <cstring>

#include "host_tensor.hpp"
#include "vireo/sdk/itensor.hpp"

namespace vireo {
namespace {

// Copies a (possibly strided) host tensor into a contiguous buffer, or back. `to_dense` selects
// the direction. Iterates the outer axes and copies the largest contiguous inner run at once.
void strided_copy(char* strided, const Strides& strides, const Shape& shape, size_t elem, char* dense, bool to_dense) {
    const size_t rank = shape.size();
    if (shape_size(shape) == 0) return;
    // Merge the innermost axes that are contiguous.
    size_t inner = elem;
    size_t axis = rank;
    while (axis > 0 && strides[axis - 1] == inner) {
        inner *= shape[axis - 1];
        --axis;
    }
    std::vector<size_t> index(axis, 0);
    while (true) {
        size_t offset = 0;
        for (size_t i = 0; i < axis; ++i) offset += index[i] * strides[i];
        if (to_dense) {
            std::memcpy(dense, strided + offset, inner);
        } else {
            std::memcpy(strided + offset, dense, inner);
        }
        dense += inner;
        size_t i = axis;
        while (i > 0) {
            --i;
            if (++index[i] < shape[i]) break;
            index[i] = 0;
            if (i == 0) return;
        }
        if (axis == 0) return;
    }
}

}  // namespace

Tensor::Tensor(element::Type type, const Shape& shape) : m_impl(std::make_shared<HostTensor>(type, shape)) {}

Tensor::Tensor(element::Type type, const Shape& shape, void* host_ptr, const Strides& strides)
    : m_impl(std::make_shared<HostTensor>(type, shape, host_ptr, strides, nullptr)) {}

Tensor::Tensor(const Tensor& other, const Coordinate& begin, const Coordinate& end) {
    const auto& src = other.checked_impl();
    if (src.is_remote()) throw_error<InvalidArgument>("a region of interest needs a host tensor");
    const auto type = src.get_element_type();
    if (type.is_sub_byte()) throw_error<InvalidArgument>("a region of interest is not supported for element type ", type);
    const Shape& shape = src.get_shape();
    if (begin.size() != shape.size() || end.size() != shape.size())
        throw_error<InvalidArgument>("region of interest needs ", shape.size(), " coordinates for shape ", shape);
    Shape roi_shape(shape.size());
    size_t offset = 0;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (begin[i] > end[i] || end[i] > shape[i])
            throw_error<InvalidArgument>("region of interest [", begin[i], ", ", end[i], ") on axis ", i,
                                         " is outside the tensor's shape ", shape);
        roi_shape[i] = end[i] - begin[i];
        offset += begin[i] * src.get_strides()[i];
    }
    char* base = static_cast<char*>(src.data()) + offset;
    m_so = other.m_so;
    m_impl = std::make_shared<HostTensor>(type, roi_shape, base, src.get_strides(), other.m_impl);
}

Tensor Tensor::wrap_shared(element::Type type, const Shape& shape, const void* ptr, std::shared_ptr<void> owner) {
    return Tensor(std::make_shared<HostTensor>(type, shape, const_cast<void*>(ptr), Strides{}, std::move(owner)));
}

Tensor::Tensor(std::shared_ptr<sdk::ITensor> impl, std::shared_ptr<void> so) : m_so(std::move(so)), m_impl(std::move(impl)) {}

const sdk::ITensor& Tensor::checked_impl() const {
    if (!m_impl) throw_error<InvalidArgument>("the tensor is empty (not initialised)");
    return *m_impl;
}

element::Type Tensor::get_element_type() const { return checked_impl().get_element_type(); }
const Shape& Tensor::get_shape() const { return checked_impl().get_shape(); }
void Tensor::set_shape(const Shape& shape) {
    checked_impl();
    m_impl->set_shape(shape);
}
const Strides& Tensor::get_strides() const { return checked_impl().get_strides(); }
size_t Tensor::get_size() const { return checked_impl().get_size(); }
size_t Tensor::get_byte_size() const { return checked_impl().get_byte_size(); }
void* Tensor::data() const { return m_impl ? m_impl->data() : nullptr; }
bool Tensor::is_continuous() const { return checked_impl().is_continuous(); }
bool Tensor::is_remote() const { return checked_impl().is_remote(); }

void Tensor::check_type(element::Type expected) const {
    const auto actual = get_element_type();
    if (actual != expected && !(actual == element::boolean && expected == element::u8))
        throw_error<InvalidArgument>("tensor of element type ", actual, " accessed as ", expected);
}

void Tensor::copy_to(Tensor& dst) const {
    const auto& src = checked_impl();
    if (!dst.m_impl) throw_error<InvalidArgument>("copy_to: the destination tensor is empty");
    if (src.get_element_type() != dst.get_element_type())
        throw_error<InvalidArgument>("copy_to: element types differ (", src.get_element_type(), " vs ",
                                     dst.get_element_type(), ")");
    if (dst.get_shape() != src.get_shape()) {
        if (dst.get_size() != src.get_size() || !dst.is_continuous()) dst.set_shape(src.get_shape());
    }
    const size_t bytes = src.get_byte_size();
    if (bytes == 0) return;
    const bool src_remote = src.is_remote();
    const bool dst_remote = dst.is_remote();
    if (src_remote && dst_remote) {
        // Device to device through a host bounce buffer.
        std::vector<char> bounce(bytes);
        static_cast<const sdk::IRemoteTensor&>(src).copy_to_host(bounce.data());
        static_cast<sdk::IRemoteTensor&>(*dst.m_impl).copy_from_host(bounce.data());
        return;
    }
    if (src_remote) {
        if (dst.is_continuous()) {
            static_cast<const sdk::IRemoteTensor&>(src).copy_to_host(dst.data());
        } else {
            std::vector<char> bounce(bytes);
            static_cast<const sdk::IRemoteTensor&>(src).copy_to_host(bounce.data());
            strided_copy(static_cast<char*>(dst.data()), dst.get_strides(), dst.get_shape(), src.get_element_type().size(),
                         bounce.data(), false);
        }
        return;
    }
    if (dst_remote) {
        if (src.is_continuous()) {
            static_cast<sdk::IRemoteTensor&>(*dst.m_impl).copy_from_host(src.data());
        } else {
            std::vector<char> bounce(bytes);
            strided_copy(static_cast<char*>(src.data()), src.get_strides(), src.get_shape(), src.get_element_type().size(),
                         bounce.data(), true);
            static_cast<sdk::IRemoteTensor&>(*dst.m_impl).copy_from_host(bounce.data());
        }
        return;
    }
    if (src.is_continuous() && dst.is_continuous()) {
        if (src.data() != dst.data()) std::memmove(dst.data(), src.data(), bytes);
        return;
    }
    const size_t elem = src.get_element_type().size();
    if (dst.is_continuous()) {
        strided_copy(static_cast<char*>(src.data()), src.get_strides(), src.get_shape(), elem,
                     static_cast<char*>(dst.data()), true);
    } else if (src.is_continuous()) {
        strided_copy(static_cast<char*>(dst.data()), dst.get_strides(), dst.get_shape(), elem,
                     static_cast<char*>(src.data()), false);
    } else {
        std::vector<char> bounce(bytes);
        strided_copy(static_cast<char*>(src.data()), src.get_strides(), src.get_shape(), elem, bounce.data(), true);
        strided_copy(static_cast<char*>(dst.data()), dst.get_strides(), dst.get_shape(), elem, bounce.data(), false);
    }
}

Tensor Tensor::clone() const {
    Tensor copy(get_element_type(), get_shape());
    copy_to(copy);
    return copy;
}

}  // namespace vireo
