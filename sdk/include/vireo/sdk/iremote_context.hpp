// Declares IRemoteContext: a device's memory space, which creates device (remote) tensors.
#pragma once

#include <memory>
#include <string>

#include "vireo/any.hpp"
#include "vireo/tensor.hpp"

namespace vireo::sdk {

/// A device's memory space. create_tensor() returns a Tensor whose implementation is an
/// IRemoteTensor of this device. Thread-safe.
class IRemoteContext : public std::enable_shared_from_this<IRemoteContext> {
  public:
    virtual ~IRemoteContext() = default;
    /// Full device name: "MOCK_REMOTE.1".
    virtual const std::string& get_device_name() const = 0;
    virtual const AnyMap& get_property() const = 0;
    /// A tensor in device memory. Throws InvalidArgument for types or shapes the device cannot
    /// hold.
    virtual Tensor create_tensor(element::Type type, const Shape& shape,
                                 const AnyMap& params = {}) = 0;
    /// A host tensor suited to fast transfers to this device; default: a plain host tensor.
    virtual Tensor create_host_tensor(element::Type type, const Shape& shape);
};

}  // namespace vireo::sdk
