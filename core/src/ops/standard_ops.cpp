// Registers every standard op definition with the OpRegistry, one family (file) at a time.
#include "ops/op_helpers.hpp"

namespace vireo {

void register_standard_ops(OpRegistry& registry) {
    ops_impl::register_io_ops(registry);
    ops_impl::register_elementwise_ops(registry);
    ops_impl::register_activation_ops(registry);
    ops_impl::register_matmul_conv_ops(registry);
    ops_impl::register_pooling_ops(registry);
    ops_impl::register_reduction_ops(registry);
    ops_impl::register_shape_ops(registry);
    ops_impl::register_slicing_ops(registry);
    ops_impl::register_gather_scatter_ops(registry);
    ops_impl::register_generator_ops(registry);
    ops_impl::register_normalization_ops(registry);
    ops_impl::register_interpolate_ops(registry);
    ops_impl::register_misc_ops(registry);
    ops_impl::register_einsum_ops(registry);
    ops_impl::register_sequence_ops(registry);
    ops_impl::register_space_depth_ops(registry);
    ops_impl::register_index_ops(registry);
    ops_impl::register_detection_ops(registry);
    ops_impl::register_subgraph_ops(registry);
    ops_impl::register_recurrent_ops(registry);
    ops_impl::register_signal_ops(registry);
    ops_impl::register_random_ops(registry);
    ops_impl::register_attention_ops(registry);
}

}  // namespace vireo
