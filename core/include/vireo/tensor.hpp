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
/// Errors from a remote tensor: set_shape and copy_to run the device's code (the plugin's
/// IRemoteTensor) under the core's guard, so whatever it throws reaches the caller as a
/// vireo::Exception of the same kind (a foreign exception as the general kind), the message
/// naming the operation and the device: "copy_to: copy_to_host on the source, a remote tensor of
/// device 'MOCK_REMOTE.1': ...".
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
    /// InvalidArgument otherwise. A remote tensor's device decides (its error is rethrown as
    /// above); if it throws, the handle still points to the same tensor, in whatever state the
    /// device left it (MOCK_REMOTE keeps the old shape).
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
    /// Throws InvalidArgument for an empty handle, different element types, or a dst that cannot
    /// take the shape. If it throws, this tensor is unchanged, and dst
    /// - has its old shape, unless it had to be reshaped before the device copy (a host dst that
    ///   had to grow, or a remote dst with another element count: these may have the source's
    ///   shape); a contiguous host dst with room enough is reshaped only after the copy succeeded;
    /// - has its old contents if reading a remote source failed and dst is a strided host view or
    ///   a remote tensor (the data goes through a bounce buffer filled before dst is touched);
    ///   otherwise its contents are unspecified (the device may have written part of them).
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
