// Registers the tensor kernel group: MatMul, convolutions, pooling, resizing, data movement.
#include "tensor_common.hpp"

namespace vireo::reference {

void register_tensor_kernels(KernelRegistry& registry) {
    tensor::register_matmul_kernels(registry);         // tensor_matmul.cpp
    tensor::register_conv_kernels(registry);           // tensor_conv.cpp
    tensor::register_pool_kernels(registry);           // tensor_pool.cpp
    tensor::register_movement_kernels(registry);       // tensor_movement.cpp
    tensor::register_split_concat_kernels(registry);   // tensor_concat_split.cpp
    tensor::register_slice_kernels(registry);          // tensor_slice.cpp
    tensor::register_gather_kernels(registry);         // tensor_gather.cpp
    tensor::register_broadcast_kernels(registry);      // tensor_generators.cpp
    tensor::register_shape_kernels(registry);          // tensor_generators.cpp
    tensor::register_pad_kernels(registry);            // tensor_pad.cpp
    tensor::register_conv_backprop_kernels(registry);  // tensor_conv_backprop.cpp
    tensor::register_topk_kernels(registry);           // tensor_topk.cpp
    tensor::register_interpolate_kernels(registry);    // tensor_interpolate.cpp
    tensor::register_einsum_kernels(registry);         // tensor_einsum.cpp
    tensor::register_scatter_nd_kernels(registry);     // tensor_scatter_nd.cpp
    tensor::register_space_depth_kernels(registry);    // tensor_space_depth.cpp
    tensor::register_sequence_kernels(registry);       // tensor_sequence.cpp
    tensor::register_one_hot_kernels(registry);        // tensor_one_hot.cpp
    tensor::register_unique_kernels(registry);         // tensor_unique.cpp
    tensor::register_nms_kernels(registry);            // tensor_nms.cpp
    tensor::register_roi_align_kernels(registry);      // tensor_roi_align.cpp
    tensor::register_grid_sample_kernels(registry);    // tensor_grid_sample.cpp
    tensor::register_recurrent_kernels(registry);      // tensor_recurrent.cpp
    tensor::register_signal_kernels(registry);         // tensor_signal.cpp
    tensor::register_random_kernels(registry);         // tensor_random.cpp
    tensor::register_attention_kernels(registry);      // tensor_attention.cpp
}

}  // namespace vireo::reference
