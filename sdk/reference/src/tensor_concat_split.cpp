// Implements Concat, Split and VariadicSplit as block copies along one axis, by bytes, for every
// whole-byte element type.
#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

void check_whole_bytes(element::Type type, const std::string& who) {
    if (type.is_sub_byte() || !type.is_static())
        throw_error<NotImplemented>(who, ": element type ", type,
                                    " is not supported (needs whole bytes)");
}

// Product of dims before `axis` (outer) and from `axis` on (the block one tensor contributes).
size_t outer_size(const Shape& s, size_t axis) {
    size_t n = 1;
    for (size_t i = 0; i < axis; ++i) n *= s[i];
    return n;
}

std::unique_ptr<Kernel> make_concat_kernel(const Node& node) {
    const int64_t axis_attr = node.get_attribute<int64_t>("axis");
    check_whole_bytes(node.get_output_element_type(0), node.describe());
    return make_kernel([who = node.describe(), axis_attr](const std::vector<Tensor>& inputs,
                                                          std::vector<Tensor>& outputs) {
        check_arity(inputs, 1, outputs, 1, who);
        Tensor& out = outputs[0];
        const Shape& out_shape = out.get_shape();
        const size_t axis = normalize_axis(axis_attr, out_shape.size(), who, "attribute 'axis'");
        const size_t outer = outer_size(out_shape, axis);
        const size_t out_block = out.get_byte_size() / std::max<size_t>(outer, 1);
        size_t along = 0;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const Shape& s = inputs[i].get_shape();
            bool ok = s.size() == out_shape.size() &&
                      inputs[i].get_element_type() == out.get_element_type();
            for (size_t d = 0; ok && d < s.size(); ++d) ok = d == axis || s[d] == out_shape[d];
            if (!ok)
                throw_error<InvalidArgument>(who, ": input ", i, " ", s, " (",
                                             inputs[i].get_element_type(), ") does not fit output ",
                                             out_shape, " (", out.get_element_type(),
                                             ") outside axis ", axis);
            along += s[axis];
        }
        if (along != out_shape[axis])
            throw_error<InvalidArgument>(who, ": inputs add up to ", along, " along axis ", axis,
                                         ", output has ", out_shape[axis]);
        auto* dst = static_cast<uint8_t*>(out.data());
        size_t offset = 0;
        for (const Tensor& in : inputs) {
            const size_t block = in.get_byte_size() / std::max<size_t>(outer, 1);
            const auto* src = static_cast<const uint8_t*>(in.data());
            if (block != 0) {
                for (size_t o = 0; o < outer; ++o)
                    std::memcpy(dst + o * out_block + offset, src + o * block, block);
            }
            offset += block;
        }
    });
}

// Split and VariadicSplit: the outputs' shapes already say how much of the axis each one takes.
std::unique_ptr<Kernel> make_split_kernel(const Node& node) {
    check_whole_bytes(node.input_value(0).get_element_type(), node.describe());
    return make_kernel([who = node.describe()](const std::vector<Tensor>& inputs,
                                               std::vector<Tensor>& outputs) {
        check_arity(inputs, 2, outputs, 1, who);
        const Tensor& in = inputs[0];
        const Shape& in_shape = in.get_shape();
        const std::vector<int64_t> axis_value = read_ints(inputs[1], who, "input 1 (axis)");
        if (axis_value.size() != 1)
            throw_error<InvalidArgument>(who, ": axis must be a single value, got ",
                                         axis_value.size());
        const size_t axis = normalize_axis(axis_value[0], in_shape.size(), who, "axis");
        const size_t outer = outer_size(in_shape, axis);
        const size_t in_block = in.get_byte_size() / std::max<size_t>(outer, 1);
        const auto* src = static_cast<const uint8_t*>(in.data());
        size_t offset = 0, along = 0;
        for (size_t i = 0; i < outputs.size(); ++i) {
            Tensor& out = outputs[i];
            const Shape& s = out.get_shape();
            bool ok = s.size() == in_shape.size();
            for (size_t d = 0; ok && d < s.size(); ++d) ok = d == axis || s[d] == in_shape[d];
            if (!ok)
                throw_error<InvalidArgument>(who, ": output ", i, " ", s, " does not fit input ",
                                             in_shape, " outside axis ", axis);
            along += s[axis];
            if (along > in_shape[axis])
                throw_error<InvalidArgument>(who, ": outputs take more than the ", in_shape[axis],
                                             " elements of input ", in_shape, " along axis ", axis);
            const size_t block = out.get_byte_size() / std::max<size_t>(outer, 1);
            auto* dst = static_cast<uint8_t*>(out.data());
            if (block != 0) {
                for (size_t o = 0; o < outer; ++o)
                    std::memcpy(dst + o * block, src + o * in_block + offset, block);
            }
            offset += block;
        }
    });
}

}  // namespace

void register_split_concat_kernels(KernelRegistry& registry) {
    registry.add("Concat", make_concat_kernel);
    registry.add("Split", make_split_kernel);
    registry.add("VariadicSplit", make_split_kernel);
}

}  // namespace vireo::reference::tensor
