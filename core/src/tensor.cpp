// Implements vireo::Tensor over an ITensor: construction, views and copies. Calls into a remote
// tensor (plugin code) run under the core's guard; host tensors are the core's own and are not.
#include "vireo/tensor.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "guard.hpp"
#include "host_tensor.hpp"
#include "vireo/dev/itensor.hpp"

namespace vireo {
namespace {

// Copies a (possibly strided) host tensor into a contiguous buffer, or back. `to_dense` selects
// the direction. Iterates the outer axes and copies the largest contiguous inner run at once.
void strided_copy(char* strided, const Strides& strides, const Shape& shape, size_t elem,
                  char* dense, bool to_dense) {
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

// "a remote tensor of device 'MOCK_REMOTE.1'", for the message of an error a remote tensor threw.
// Called only while that error is being reported, so it lets nothing out: a get_device_name that
// throws as well would replace the plugin's error with its own.
std::string remote_name(const sdk::ITensor& tensor) {
    try {
        return "a remote tensor of device '" +
               static_cast<const sdk::IRemoteTensor&>(tensor).get_device_name() + "'";
    } catch (...) {
        return "a remote tensor (its device name could not be read)";
    }
}

// Sets the shape of `tensor`. A remote tensor's set_shape is plugin code and runs under the guard;
// `during` and `role` only word its error ("copy_to: ", "the destination, ").
void set_shape_of(sdk::ITensor& tensor, const Shape& shape, const char* during, const char* role) {
    if (!tensor.is_remote()) return tensor.set_shape(shape);
    detail::guarded(
        [&] {
            return detail::concat(during, "set_shape to ", shape, " on ", role,
                                  remote_name(tensor));
        },
        [&] { tensor.set_shape(shape); });
}

// Reads remote `src` (get_byte_size() bytes) into host memory at `to`, under the guard.
void read_remote(const sdk::ITensor& src, void* to) {
    detail::guarded([&] { return "copy_to: copy_to_host on the source, " + remote_name(src); },
                    [&] { static_cast<const sdk::IRemoteTensor&>(src).copy_to_host(to); });
}

// Writes get_byte_size() bytes of host memory at `from` into remote `dst`, under the guard.
void write_remote(sdk::ITensor& dst, const void* from) {
    detail::guarded(
        [&] { return "copy_to: copy_from_host on the destination, " + remote_name(dst); },
        [&] { static_cast<sdk::IRemoteTensor&>(dst).copy_from_host(from); });
}

// Copies between two host tensors of the same type and element count (dst already reshaped).
void copy_host(const sdk::ITensor& src, sdk::ITensor& dst) {
    const size_t bytes = src.get_byte_size();
    if (bytes == 0) return;
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
        strided_copy(static_cast<char*>(src.data()), src.get_strides(), src.get_shape(), elem,
                     bounce.data(), true);
        strided_copy(static_cast<char*>(dst.data()), dst.get_strides(), dst.get_shape(), elem,
                     bounce.data(), false);
    }
}

// Copies when at least one side is remote. Order matters for what a failure leaves behind (see
// Tensor::copy_to): the source is read before the destination is touched wherever the data goes
// through a bounce buffer anyway, and a host destination with room enough is reshaped only after
// the device wrote into it (a shrink, which keeps its memory and data).
void copy_remote(const sdk::ITensor& src, sdk::ITensor& dst, bool reshape) {
    const Shape& shape = src.get_shape();
    const size_t bytes = src.get_byte_size();
    const auto reshape_destination = [&] {
        if (reshape) set_shape_of(dst, shape, "copy_to: ", "the destination, ");
    };
    if (bytes == 0) return reshape_destination();
    if (src.is_remote() && dst.is_remote()) {
        // Device to device through a host bounce buffer.
        std::vector<char> bounce(bytes);
        read_remote(src, bounce.data());
        reshape_destination();
        write_remote(dst, bounce.data());
        return;
    }
    if (src.is_remote()) {
        if (dst.is_continuous() && dst.get_byte_size() >= bytes) {
            read_remote(src, dst.data());
            reshape_destination();
            return;
        }
        // The destination must grow (its old data is lost to the reallocation anyway) or is a
        // strided view (which refuses a new shape before the device is asked for anything).
        reshape_destination();
        if (dst.is_continuous()) return read_remote(src, dst.data());
        std::vector<char> bounce(bytes);
        read_remote(src, bounce.data());
        strided_copy(static_cast<char*>(dst.data()), dst.get_strides(), dst.get_shape(),
                     src.get_element_type().size(), bounce.data(), false);
        return;
    }
    // Host to device; a strided source is gathered first.
    std::vector<char> bounce;
    const void* from = src.data();
    if (!src.is_continuous()) {
        bounce.resize(bytes);
        strided_copy(static_cast<char*>(src.data()), src.get_strides(), src.get_shape(),
                     src.get_element_type().size(), bounce.data(), true);
        from = bounce.data();
    }
    reshape_destination();
    write_remote(dst, from);
}

}  // namespace

Tensor::Tensor(element::Type type, const Shape& shape)
    : m_impl(std::make_shared<HostTensor>(type, shape)) {}

Tensor::Tensor(element::Type type, const Shape& shape, void* host_ptr, const Strides& strides)
    : m_impl(std::make_shared<HostTensor>(type, shape, host_ptr, strides, nullptr)) {}

Tensor::Tensor(const Tensor& other, const Coordinate& begin, const Coordinate& end) {
    const auto& src = other.checked_impl();
    if (src.is_remote()) throw_error<InvalidArgument>("a region of interest needs a host tensor");
    const auto type = src.get_element_type();
    if (type.is_sub_byte())
        throw_error<InvalidArgument>("a region of interest is not supported for element type ",
                                     type);
    const Shape& shape = src.get_shape();
    if (begin.size() != shape.size() || end.size() != shape.size())
        throw_error<InvalidArgument>("region of interest needs ", shape.size(),
                                     " coordinates for shape ", shape);
    Shape roi_shape(shape.size());
    size_t offset = 0;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (begin[i] > end[i] || end[i] > shape[i])
            throw_error<InvalidArgument>("region of interest [", begin[i], ", ", end[i],
                                         ") on axis ", i, " is outside the tensor's shape ", shape);
        roi_shape[i] = end[i] - begin[i];
        offset += begin[i] * src.get_strides()[i];
    }
    char* base = static_cast<char*>(src.data()) + offset;
    m_so = other.m_so;
    m_impl = std::make_shared<HostTensor>(type, roi_shape, base, src.get_strides(), other.m_impl);
}

Tensor Tensor::wrap_shared(element::Type type, const Shape& shape, const void* ptr,
                           std::shared_ptr<void> owner) {
    return Tensor(std::make_shared<HostTensor>(type, shape, const_cast<void*>(ptr), Strides{},
                                               std::move(owner)));
}

Tensor::Tensor(std::shared_ptr<sdk::ITensor> impl, std::shared_ptr<void> so)
    : m_so(std::move(so)), m_impl(std::move(impl)) {}

const sdk::ITensor& Tensor::checked_impl() const {
    if (!m_impl) throw_error<InvalidArgument>("the tensor is empty (not initialised)");
    return *m_impl;
}

element::Type Tensor::get_element_type() const {
    return checked_impl().get_element_type();
}
const Shape& Tensor::get_shape() const {
    return checked_impl().get_shape();
}
void Tensor::set_shape(const Shape& shape) {
    checked_impl();
    set_shape_of(*m_impl, shape, "", "");
}
const Strides& Tensor::get_strides() const {
    return checked_impl().get_strides();
}
size_t Tensor::get_size() const {
    return checked_impl().get_size();
}
size_t Tensor::get_byte_size() const {
    return checked_impl().get_byte_size();
}
void* Tensor::data() const {
    return m_impl ? m_impl->data() : nullptr;
}
bool Tensor::is_continuous() const {
    return checked_impl().is_continuous();
}
bool Tensor::is_remote() const {
    return checked_impl().is_remote();
}

void Tensor::check_type(element::Type expected) const {
    const auto actual = get_element_type();
    if (actual != expected && !(actual == element::boolean && expected == element::u8))
        throw_error<InvalidArgument>("tensor of element type ", actual, " accessed as ", expected);
}

void Tensor::copy_to(Tensor& dst) const {
    const auto& src = checked_impl();
    if (!dst.m_impl) throw_error<InvalidArgument>("copy_to: the destination tensor is empty");
    auto& target = *dst.m_impl;
    if (src.get_element_type() != target.get_element_type())
        throw_error<InvalidArgument>("copy_to: element types differ (", src.get_element_type(),
                                     " vs ", target.get_element_type(), ")");
    const bool reshape = target.get_shape() != src.get_shape() &&
                         (target.get_size() != src.get_size() || !target.is_continuous());
    if (src.is_remote() || target.is_remote()) return copy_remote(src, target, reshape);
    if (reshape) target.set_shape(src.get_shape());
    copy_host(src, target);
}

Tensor Tensor::clone() const {
    Tensor copy(get_element_type(), get_shape());
    copy_to(copy);
    return copy;
}

}  // namespace vireo
