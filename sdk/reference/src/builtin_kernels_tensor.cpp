// Registers the tensor kernel group: MatMul, convolutions, pooling, resizing, data movement.
#include "tensor_common.hpp"

namespace vireo::reference {

void register_tensor_kernels(KernelRegistry& registry) {
    tensor::register_matmul_kernels(registry);        // tensor_matmul.cpp
    tensor::register_conv_kernels(registry);          // tensor_conv.cpp
    tensor::register_pool_kernels(registry);          // tensor_pool.cpp
    tensor::register_movement_kernels(registry);      // tensor_movement.cpp
    tensor::register_split_concat_kernels(registry);  // tensor_concat_split.cpp
}

}  // namespace vireo::reference
