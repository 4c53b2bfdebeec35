// Implements IRemoteContext's default host tensor.
#include "vireo/sdk/iremote_context.hpp"

namespace vireo::sdk {

Tensor IRemoteContext::create_host_tensor(element::Type type, const Shape& shape) {
    return Tensor(type, shape);
}

}  // namespace vireo::sdk
