// Implements the typed builders of vireo/ops.hpp for elementwise ops, activations, MatMul,
// convolutions, pooling, reductions and shape manipulation.
#include "vireo/op_registry.hpp"
#include "vireo/ops.hpp"

namespace vireo::op {
namespace {

using Ints = std::vector<int64_t>;

NodePtr binary(const std::string& type, const Output& a, const Output& b,
               const std::string& auto_broadcast) {
    return make_node(type, {a, b}, {{"auto_broadcast", auto_broadcast}}, 1);
}

OutputVector with_optional(OutputVector inputs, const Output& optional) {
    if (optional) inputs.push_back(optional);
    return inputs;
}

std::map<std::string, AttrValue> conv_attrs(const Ints& strides, const Ints& pads_begin,
                                            const Ints& pads_end, const Ints& dilations,
                                            const std::string& auto_pad) {
    return {{"strides", strides},
            {"pads_begin", pads_begin},
            {"pads_end", pads_end},
            {"dilations", dilations},
            {"auto_pad", auto_pad}};
}

std::map<std::string, AttrValue> pool_attrs(const Ints& strides, const Ints& pads_begin,
                                            const Ints& pads_end, const Ints& kernel,
                                            const std::string& rounding_type,
                                            const std::string& auto_pad) {
    return {{"strides", strides}, {"pads_begin", pads_begin},       {"pads_end", pads_end},
            {"kernel", kernel},   {"rounding_type", rounding_type}, {"auto_pad", auto_pad}};
}

}  // namespace

NodePtr int64_vector(const std::vector<int64_t>& values) {
    return constant<int64_t>(element::i64, Shape{values.size()}, values);
}

NodePtr int64_scalar(int64_t value) {
    return constant<int64_t>(element::i64, Shape{}, {value});
}

// ---- Elementwise ----

NodePtr add(const Output& a, const Output& b, const std::string& ab) {
    return binary("Add", a, b, ab);
}
NodePtr subtract(const Output& a, const Output& b, const std::string& ab) {
    return binary("Subtract", a, b, ab);
}
NodePtr multiply(const Output& a, const Output& b, const std::string& ab) {
    return binary("Multiply", a, b, ab);
}
NodePtr divide(const Output& a, const Output& b, bool pythondiv, const std::string& ab) {
    return make_node("Divide", {a, b}, {{"auto_broadcast", ab}, {"m_pythondiv", pythondiv}}, 1);
}
NodePtr power(const Output& a, const Output& b, const std::string& ab) {
    return binary("Power", a, b, ab);
}
NodePtr maximum(const Output& a, const Output& b, const std::string& ab) {
    return binary("Maximum", a, b, ab);
}
NodePtr minimum(const Output& a, const Output& b, const std::string& ab) {
    return binary("Minimum", a, b, ab);
}
NodePtr squared_difference(const Output& a, const Output& b, const std::string& ab) {
    return binary("SquaredDifference", a, b, ab);
}
NodePtr compare(const std::string& type, const Output& a, const Output& b, const std::string& ab) {
    return binary(type, a, b, ab);
}
NodePtr equal(const Output& a, const Output& b) {
    return binary("Equal", a, b, "numpy");
}
NodePtr less(const Output& a, const Output& b) {
    return binary("Less", a, b, "numpy");
}
NodePtr greater(const Output& a, const Output& b) {
    return binary("Greater", a, b, "numpy");
}
NodePtr logical_and(const Output& a, const Output& b, const std::string& ab) {
    return binary("LogicalAnd", a, b, ab);
}
NodePtr logical_or(const Output& a, const Output& b, const std::string& ab) {
    return binary("LogicalOr", a, b, ab);
}
NodePtr logical_not(const Output& x) {
    return make_node("LogicalNot", {x}, {}, 1);
}
NodePtr select(const Output& cond, const Output& then_value, const Output& else_value,
               const std::string& ab) {
    return make_node("Select", {cond, then_value, else_value}, {{"auto_broadcast", ab}}, 1);
}
NodePtr convert(const Output& x, element::Type destination_type) {
    return make_node("Convert", {x}, {{"destination_type", destination_type}}, 1);
}
NodePtr unary(const std::string& type, const Output& x) {
    return make_node(type, {x});
}

// ---- Activations ----

NodePtr relu(const Output& x) {
    return make_node("Relu", {x}, {}, 1);
}
NodePtr sigmoid(const Output& x) {
    return make_node("Sigmoid", {x}, {}, 1);
}
NodePtr tanh(const Output& x) {
    return make_node("Tanh", {x}, {}, 1);
}
NodePtr exp(const Output& x) {
    return make_node("Exp", {x}, {}, 1);
}
NodePtr sqrt(const Output& x) {
    return make_node("Sqrt", {x}, {}, 1);
}
NodePtr clamp(const Output& x, double min, double max) {
    return make_node("Clamp", {x}, {{"min", min}, {"max", max}}, 1);
}
NodePtr elu(const Output& x, double alpha) {
    return make_node("Elu", {x}, {{"alpha", alpha}}, 1);
}
NodePtr gelu(const Output& x, const std::string& mode) {
    return make_node("Gelu", {x}, {{"approximation_mode", mode}}, 7);
}
NodePtr swish(const Output& x, const Output& beta) {
    return make_node("Swish", with_optional({x}, beta), {}, 4);
}
NodePtr prelu(const Output& x, const Output& slope) {
    return make_node("PRelu", {x, slope}, {}, 1);
}
NodePtr softmax(const Output& x, int64_t axis) {
    return make_node("Softmax", {x}, {{"axis", axis}}, 8);
}
NodePtr log_softmax(const Output& x, int64_t axis) {
    return make_node("LogSoftmax", {x}, {{"axis", axis}}, 5);
}
NodePtr scaled_dot_product_attention(const Output& q, const Output& k, const Output& v,
                                     const Output& attn_mask, const Output& scale, bool causal) {
    if (scale && !attn_mask)
        throw_error<InvalidArgument>(
            "ScaledDotProductAttention: a scale input needs an attn_mask "
            "input before it (give a scalar 0 for no mask)");
    OutputVector inputs{q, k, v};
    if (attn_mask) inputs.push_back(attn_mask);
    if (scale) inputs.push_back(scale);
    return make_node("ScaledDotProductAttention", inputs, {{"causal", causal}}, 13);
}

// ---- MatMul, convolution, pooling ----

NodePtr matmul(const Output& a, const Output& b, bool transpose_a, bool transpose_b) {
    return make_node("MatMul", {a, b}, {{"transpose_a", transpose_a}, {"transpose_b", transpose_b}},
                     1);
}

NodePtr convolution(const Output& x, const Output& w, const Ints& strides, const Ints& pads_begin,
                    const Ints& pads_end, const Ints& dilations, const std::string& auto_pad) {
    return make_node("Convolution", {x, w},
                     conv_attrs(strides, pads_begin, pads_end, dilations, auto_pad), 1);
}

NodePtr group_convolution(const Output& x, const Output& w, const Ints& strides,
                          const Ints& pads_begin, const Ints& pads_end, const Ints& dilations,
                          const std::string& auto_pad) {
    return make_node("GroupConvolution", {x, w},
                     conv_attrs(strides, pads_begin, pads_end, dilations, auto_pad), 1);
}

NodePtr convolution_backprop_data(const Output& x, const Output& w, const Ints& strides,
                                  const Ints& pads_begin, const Ints& pads_end,
                                  const Ints& dilations, const Ints& output_padding,
                                  const Output& output_shape, const std::string& auto_pad) {
    auto attrs = conv_attrs(strides, pads_begin, pads_end, dilations, auto_pad);
    attrs.emplace("output_padding", output_padding);
    return make_node("ConvolutionBackpropData", with_optional({x, w}, output_shape),
                     std::move(attrs), 1);
}

NodePtr max_pool(const Output& x, const Ints& strides, const Ints& pads_begin, const Ints& pads_end,
                 const Ints& kernel, const std::string& rounding_type,
                 const std::string& auto_pad) {
    return make_node("MaxPool", {x},
                     pool_attrs(strides, pads_begin, pads_end, kernel, rounding_type, auto_pad), 1);
}

NodePtr max_pool_with_indices(const Output& x, const Ints& strides, const Ints& dilations,
                              const Ints& pads_begin, const Ints& pads_end, const Ints& kernel,
                              const std::string& rounding_type, const std::string& auto_pad,
                              element::Type index_element_type, int64_t axis) {
    auto attrs = pool_attrs(strides, pads_begin, pads_end, kernel, rounding_type, auto_pad);
    attrs.emplace("dilations", dilations);
    attrs.emplace("index_element_type", index_element_type);
    attrs.emplace("axis", axis);
    return make_node("MaxPool", {x}, std::move(attrs), rounding_type == "ceil_torch" ? 14 : 8);
}

NodePtr avg_pool(const Output& x, const Ints& strides, const Ints& pads_begin, const Ints& pads_end,
                 const Ints& kernel, bool exclude_pad, const std::string& rounding_type,
                 const std::string& auto_pad) {
    auto attrs = pool_attrs(strides, pads_begin, pads_end, kernel, rounding_type, auto_pad);
    attrs.emplace("exclude-pad", exclude_pad);
    return make_node("AvgPool", {x}, std::move(attrs), rounding_type == "ceil_torch" ? 14 : 1);
}

// ---- Reductions ----

NodePtr reduce(const std::string& type, const Output& x, const Output& axes, bool keep_dims) {
    return make_node(type, {x, axes}, {{"keep_dims", keep_dims}});
}
NodePtr reduce_mean(const Output& x, const Output& axes, bool keep_dims) {
    return reduce("ReduceMean", x, axes, keep_dims);
}
NodePtr reduce_sum(const Output& x, const Output& axes, bool keep_dims) {
    return reduce("ReduceSum", x, axes, keep_dims);
}
NodePtr reduce_max(const Output& x, const Output& axes, bool keep_dims) {
    return reduce("ReduceMax", x, axes, keep_dims);
}

// ---- Shape manipulation ----

NodePtr reshape(const Output& x, const Output& shape, bool special_zero) {
    return make_node("Reshape", {x, shape}, {{"special_zero", special_zero}}, 1);
}
NodePtr transpose(const Output& x, const Output& order) {
    return make_node("Transpose", {x, order}, {}, 1);
}
NodePtr squeeze(const Output& x, const Output& axes) {
    return make_node("Squeeze", with_optional({x}, axes), {}, 1);
}
NodePtr unsqueeze(const Output& x, const Output& axes) {
    return make_node("Unsqueeze", {x, axes}, {}, 1);
}
NodePtr concat(const OutputVector& inputs, int64_t axis) {
    return make_node("Concat", inputs, {{"axis", axis}}, 1);
}

}  // namespace vireo::op
