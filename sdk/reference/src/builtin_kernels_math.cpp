// Registers the math kernel group: elementwise, activations, comparisons, reductions, norms,
// bitwise ops.
// Each family lives in its own math_*.cpp; their numeric policies are stated at the top of each.
#include "math_common.hpp"

namespace vireo::reference {

void register_math_kernels(KernelRegistry& registry) {
    math::register_convert_kernels(registry);
    math::register_elementwise_kernels(registry);
    math::register_comparison_kernels(registry);
    math::register_activation_kernels(registry);
    math::register_softmax_kernels(registry);
    math::register_reduce_kernels(registry);
    math::register_norm_kernels(registry);
    math::register_quantize_kernels(registry);
    math::register_unary_kernels(registry);
    math::register_bitwise_kernels(registry);
    math::register_lrn_kernels(registry);
}

}  // namespace vireo::reference
