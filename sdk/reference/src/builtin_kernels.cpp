// Registers the built-in reference kernels with the KernelRegistry, one group per file set.
#include "vireo/reference/kernel.hpp"

namespace vireo::reference {

// Elementwise arithmetic, activations, comparisons, logical ops, Convert, Select, Softmax,
// reductions and normalisations (builtin_kernels_math.cpp and the files it names).
void register_math_kernels(KernelRegistry& registry);
// MatMul, convolutions, pooling, Interpolate and the data-movement ops
// (builtin_kernels_tensor.cpp and the files it names).
void register_tensor_kernels(KernelRegistry& registry);

void register_builtin_kernels(KernelRegistry& registry) {
    register_math_kernels(registry);
    register_tensor_kernels(registry);
}

}  // namespace vireo::reference
