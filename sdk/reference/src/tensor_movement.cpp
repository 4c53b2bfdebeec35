// Implements the ops that only move bytes: Reshape, Squeeze and Unsqueeze (a copy, the shape is
// the caller's) and Transpose (a strided copy by element size, any static type).
#include <numeric>

#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

// Reshape, Squeeze and Unsqueeze keep the elements in order: the output is the input's bytes.
std::unique_ptr<Kernel> make_copy_kernel(const Node& node) {
    return make_kernel(
        [who = node.describe()](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
            check_arity(inputs, 1, outputs, 1, who);
            const Tensor& in = inputs[0];
            Tensor& out = outputs[0];
            if (in.get_byte_size() != out.get_byte_size())
                throw_error<InvalidArgument>(who, ": output ", out.get_shape(), " (",
                                             out.get_byte_size(), " bytes) does not hold input ",
                                             in.get_shape(), " (", in.get_byte_size(), " bytes)");
            if (in.data() != out.data() && in.get_byte_size() != 0)
                std::memcpy(out.data(), in.data(), in.get_byte_size());
        });
}

std::unique_ptr<Kernel> make_transpose_kernel(const Node& node) {
    return make_kernel(
        [who = node.describe()](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
            check_arity(inputs, 2, outputs, 1, who);
            const Shape& in_shape = inputs[0].get_shape();
            const size_t rank = in_shape.size();
            std::vector<int64_t> order = read_ints(inputs[1], who, "input 1 (order)");
            if (order.empty()) {
                // An empty order reverses the axes.
                order.resize(rank);
                std::iota(order.rbegin(), order.rend(), int64_t{0});
            }
            if (order.size() != rank)
                throw_error<InvalidArgument>(who, ": order has ", order.size(),
                                             " values for data of rank ", rank, " ", in_shape);
            const std::vector<size_t> strides = element_strides(in_shape);
            Shape out_shape(rank);
            std::vector<int64_t> src_strides(rank);
            std::vector<bool> seen(rank, false);
            for (size_t i = 0; i < rank; ++i) {
                const size_t axis = normalize_axis(order[i], rank, who, "order value");
                if (seen[axis]) throw_error<InvalidArgument>(who, ": order repeats axis ", axis);
                seen[axis] = true;
                out_shape[i] = in_shape[axis];
                src_strides[i] = static_cast<int64_t>(strides[axis]);
            }
            if (out_shape != outputs[0].get_shape())
                throw_error<InvalidArgument>(who, ": output shape ", outputs[0].get_shape(),
                                             " differs from the expected ", out_shape);
            dispatch_by_size(inputs[0].get_element_type(), who, [&](auto tag) {
                using U = decltype(tag);
                copy_strided(tensor_data<U>(inputs[0]), 0, src_strides, out_shape,
                             tensor_data<U>(outputs[0]));
            });
        });
}

}  // namespace

void register_movement_kernels(KernelRegistry& registry) {
    registry.add("Reshape", make_copy_kernel);
    registry.add("Squeeze", make_copy_kernel);
    registry.add("Unsqueeze", make_copy_kernel);
    registry.add("Transpose", make_transpose_kernel);
}

}  // namespace vireo::reference::tensor
