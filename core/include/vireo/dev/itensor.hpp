// Declares ITensor and IRemoteTensor: what a Tensor handle points to, for plugins to implement.
// A core dev header (below vireo::Tensor's implementation); plugins usually include it
// through the SDK (sdk/itensor.hpp forwards here). The names stay in namespace vireo::sdk, where
// plugins have always used them.
#pragma once

#include <memory>
#include <string>

#include "vireo/any.hpp"
#include "vireo/element_type.hpp"
#include "vireo/shape.hpp"
#include "vireo/tensor.hpp"

namespace vireo::sdk {

/// The implementation behind a vireo::Tensor. Host tensors are provided by the core; a plugin
/// implements IRemoteTensor for device memory.
class ITensor {
  public:
    virtual ~ITensor() = default;
    virtual element::Type get_element_type() const = 0;
    virtual const Shape& get_shape() const = 0;
    /// See Tensor::set_shape for the contract.
    virtual void set_shape(const Shape& shape) = 0;
    /// Byte strides.
    virtual const Strides& get_strides() const = 0;
    /// Host address of the first element; nullptr for device memory.
    virtual void* data() const = 0;
    virtual bool is_remote() const { return false; }

    size_t get_size() const;
    size_t get_byte_size() const;
    bool is_continuous() const;
};

/// A tensor in a device's memory. The host cannot address it: data() is nullptr, and data moves
/// with copy_from_host/copy_to_host. Contiguous, row-major.
///
/// Errors: set_shape, copy_from_host and copy_to_host may throw (any exception; a
/// vireo::Exception kind is kept): the core calls them under its guard and rethrows with the
/// operation and get_device_name() in front. Throw before changing anything where you can: the
/// core promises the caller no more than you leave behind. The accessors (get_element_type,
/// get_shape, get_strides, get_device_name, get_properties) report stored state and must not
/// throw; the core calls them unguarded, also on its hot paths.
class IRemoteTensor : public ITensor {
  public:
    void* data() const final { return nullptr; }
    bool is_remote() const final { return true; }
    /// Full device name, "MOCK_REMOTE.1".
    virtual const std::string& get_device_name() const = 0;
    virtual const AnyMap& get_properties() const = 0;
    /// Copies get_byte_size() bytes from host memory into the device tensor.
    virtual void copy_from_host(const void* src) = 0;
    /// Copies get_byte_size() bytes from the device tensor into host memory.
    virtual void copy_to_host(void* dst) const = 0;
};

/// A host tensor's implementation (what Tensor(type, shape) creates), for plugins that want
/// to allocate one and wrap it themselves.
std::shared_ptr<ITensor> make_host_tensor(element::Type type, const Shape& shape);

}  // namespace vireo::sdk
