// Declares vireo::Tensor: a handle to host memory (owned or borrowed) or to a device's tensor.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "vireo/element_type.hpp"
#include "vireo/exception.hpp"
#include "vireo/shape.hpp"

namespace vireo {
namespace sdk {
class ITensor;
}

/// A tensor handle. Copies share the same memory (like a shared_ptr); use copy_to() for a deep
/// copy. A Tensor is either
/// - owning: allocated by Vireo, 64-byte aligned, zero-filled, freed with the last handle;
/// - wrapping: over memory the caller owns and keeps alive (zero copy), optionally strided
///   (a region of interest);
/// - remote: a device tensor from a RemoteContext; data() is nullptr and copy_to/copy_from work.
///
/// Thread safety: const methods may be called from several threads; set_shape and writes to the
/// data are the caller's to synchronise. A Tensor a plugin allocated keeps the plugin's library
/// loaded for as long as it lives.
///
///     Tensor t(element::f32, Shape{2, 3});
///     float* p = t.data<float>();            // throws if the type is not f32
///     std::vector<float> mine(6);
///     Tensor view(element::f32, Shape{2, 3}, mine.data());  // no copy
class Tensor {
public:
    Tensor() = default;
    /// Owning tensor. Throws InvalidArgument if the byte size overflows or the type is not static.
    Tensor(element::Type type, const Shape& shape);
    /// Wraps `host_ptr` (not owned, must outlive every copy of this handle). `strides` are in
    /// bytes; empty means row-major contiguous. Throws InvalidArgument if strides are given for
    /// a sub-byte type or do not match the rank.
    Tensor(element::Type type, const Shape& shape, void* host_ptr, const Strides& strides = {});
    /// A view of the box [begin, end) of `other` (host tensors only), sharing its memory and
    /// its lifetime. Throws InvalidArgument when the box is out of range.
    Tensor(const Tensor& other, const Coordinate& begin, const Coordinate& end);
    /// Wraps memory kept alive by `owner` (e.g. a memory-mapped weights file).
    static Tensor wrap_shared(element::Type type, const Shape& shape, const void* ptr,
                              std::shared_ptr<void> owner);
    /// Adopts an implementation (used by plugins and the core); `so` keeps its library loaded.
    explicit Tensor(std::shared_ptr<sdk::ITensor> impl, std::shared_ptr<void> so = {});
    Tensor(const Tensor&) = default;
    Tensor(Tensor&&) noexcept = default;
    ~Tensor() = default;
    /// Assignments release the old implementation before the old library reference (a defaulted
    /// one assigns m_so first and could unload a plugin's tensor code before its object dies).
    Tensor& operator=(const Tensor& other) {
        m_impl = other.m_impl;
        m_so = other.m_so;
        return *this;
    }
    Tensor& operator=(Tensor&& other) noexcept {
        m_impl = std::move(other.m_impl);
        m_so = std::move(other.m_so);
        return *this;
    }

    element::Type get_element_type() const;
    const Shape& get_shape() const;
    /// Changes the shape. An owning tensor reallocates if it needs more room (old data is not
    /// kept then); a wrapping tensor may only shrink to a size within its memory. Throws
    /// InvalidArgument otherwise.
    void set_shape(const Shape& shape);
    /// Byte strides.
    const Strides& get_strides() const;
    size_t get_size() const;
    size_t get_byte_size() const;
    /// Host pointer to the first element; nullptr for a remote tensor or an empty handle.
    void* data() const;
    /// Typed pointer; throws InvalidArgument if T does not match the element type.
    template <typename T>
    T* data() const {
        check_type(element::from<T>());
        return static_cast<T*>(data());
    }
    /// True when the elements are stored row-major without gaps.
    bool is_continuous() const;
    bool is_remote() const;
    /// Copies elements into `dst` (same type and element count; dst is reshaped if it is an
    /// owning tensor with another shape). Handles strided views and remote tensors on either side.
    void copy_to(Tensor& dst) const;
    /// Copies this tensor into a new owning, contiguous host tensor.
    Tensor clone() const;

    explicit operator bool() const { return m_impl != nullptr; }
    const std::shared_ptr<sdk::ITensor>& impl() const { return m_impl; }
    const std::shared_ptr<void>& shared_object() const { return m_so; }
    bool operator==(const Tensor& other) const { return m_impl == other.m_impl; }

private:
    void check_type(element::Type expected) const;
    const sdk::ITensor& checked_impl() const;

    // Members die in reverse order: m_so (the plugin library) is declared first so that it
    // outlives m_impl, whose code lives in that library.
    std::shared_ptr<void> m_so;
    std::shared_ptr<sdk::ITensor> m_impl;
};

}  // namespace vireo
