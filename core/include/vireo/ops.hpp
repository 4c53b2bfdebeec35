// Declares typed builders for the standard ops: the readable way to make a graph in C++.
#pragma once

#include <string>
#include <vector>

#include "vireo/float16.hpp"
#include "vireo/node.hpp"

namespace vireo::op {

/// A model input of `type` and `shape`; `name` becomes its friendly name and tensor name.
NodePtr parameter(element::Type type, const PartialShape& shape, const std::string& name = "");
/// A constant holding `value` (shared, not copied).
NodePtr constant(const Tensor& value);
/// A constant of `type` and `shape` from `values` (converted to `type`); a single value is
/// broadcast to the whole shape. Throws InvalidArgument if the count does not match.
template <typename T>
NodePtr constant(element::Type type, const Shape& shape, const std::vector<T>& values);
NodePtr result(const Output& value);
/// A 1-D i64 constant (axes, shapes, orders) and an i64 scalar: shorthands for constant().
NodePtr int64_vector(const std::vector<int64_t>& values);
NodePtr int64_scalar(int64_t value);

// Every builder below makes the node with make_node() at the stated opset version, so it throws
// what make_node throws: InvalidArgument naming the node when the inputs or attributes do not fit
// (e.g. add() of shapes that do not broadcast), with the node's type inferred. Attribute names and
// values are those of the OpenVINO IR ("numpy", "explicit", "floor", ...). Inputs are shared,
// not copied; the returned node keeps them alive.
//
//     auto x = op::parameter(element::f32, {1, 3, 224, 224}, "x");
//     auto w = op::constant<float>(element::f32, {8, 3, 3, 3}, {0.1f});
//     auto y = op::relu(op::convolution(x, w, {1, 1}, {1, 1}, {1, 1}, {1, 1}));
//     auto p = op::reduce_mean(y, op::int64_vector({2, 3}), true);

// ---- Elementwise (opset1; auto_broadcast is "numpy", "none" or "pdpd") ----
NodePtr add(const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
NodePtr subtract(const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
NodePtr multiply(const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
/// `pythondiv` (IR "m_pythondiv"): integer division rounds toward -infinity when true.
NodePtr divide(const Output& a, const Output& b, bool pythondiv = true, const std::string& auto_broadcast = "numpy");
NodePtr power(const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
NodePtr maximum(const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
NodePtr minimum(const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
NodePtr squared_difference(const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
/// Comparisons: `type` is Equal, NotEqual, Less, LessEqual, Greater or GreaterEqual; boolean output.
NodePtr compare(const std::string& type, const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
NodePtr equal(const Output& a, const Output& b);
NodePtr less(const Output& a, const Output& b);
NodePtr greater(const Output& a, const Output& b);
NodePtr logical_and(const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
NodePtr logical_or(const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
NodePtr logical_not(const Output& x);
NodePtr select(const Output& cond, const Output& then_value, const Output& else_value,
               const std::string& auto_broadcast = "numpy");
NodePtr convert(const Output& x, element::Type destination_type);
/// A one-input op without attributes by type name: "Abs", "Negative", "Exp", "Log", "Sqrt", "Erf",
/// "Floor", "Ceiling", "Relu", "Sigmoid", "Tanh", "HSwish", "Mish", "SoftPlus" (latest version).
NodePtr unary(const std::string& type, const Output& x);

// ---- Activations ----
NodePtr relu(const Output& x);
NodePtr sigmoid(const Output& x);
NodePtr tanh(const Output& x);
NodePtr exp(const Output& x);
NodePtr sqrt(const Output& x);
NodePtr clamp(const Output& x, double min, double max);
NodePtr elu(const Output& x, double alpha);
/// Gelu-7; `approximation_mode` is "erf" or "tanh".
NodePtr gelu(const Output& x, const std::string& approximation_mode = "erf");
/// Swish-4 with an optional scalar `beta` input (an empty Output means beta = 1).
NodePtr swish(const Output& x, const Output& beta = {});
NodePtr prelu(const Output& x, const Output& slope);
/// Softmax-8 (negative axes allowed).
NodePtr softmax(const Output& x, int64_t axis = 1);
NodePtr log_softmax(const Output& x, int64_t axis = 1);

// ---- MatMul, convolution, pooling ----
NodePtr matmul(const Output& a, const Output& b, bool transpose_a = false, bool transpose_b = false);
/// Convolution-1: x [N, C_IN, spatial...], w [C_OUT, C_IN, kernel...]. `auto_pad` is "explicit",
/// "valid", "same_upper" or "same_lower" (pads are ignored unless explicit).
NodePtr convolution(const Output& x, const Output& w, const std::vector<int64_t>& strides,
                    const std::vector<int64_t>& pads_begin, const std::vector<int64_t>& pads_end,
                    const std::vector<int64_t>& dilations, const std::string& auto_pad = "explicit");
/// GroupConvolution-1: w [GROUPS, C_OUT/GROUPS, C_IN/GROUPS, kernel...].
NodePtr group_convolution(const Output& x, const Output& w, const std::vector<int64_t>& strides,
                          const std::vector<int64_t>& pads_begin, const std::vector<int64_t>& pads_end,
                          const std::vector<int64_t>& dilations, const std::string& auto_pad = "explicit");
/// ConvolutionBackpropData-1: w [C_IN, C_OUT, kernel...]; `output_shape` (spatial sizes) optional.
NodePtr convolution_backprop_data(const Output& x, const Output& w, const std::vector<int64_t>& strides,
                                  const std::vector<int64_t>& pads_begin, const std::vector<int64_t>& pads_end,
                                  const std::vector<int64_t>& dilations, const std::vector<int64_t>& output_padding = {},
                                  const Output& output_shape = {}, const std::string& auto_pad = "explicit");
/// MaxPool-1 (one output). `rounding_type` is "floor" or "ceil".
NodePtr max_pool(const Output& x, const std::vector<int64_t>& strides, const std::vector<int64_t>& pads_begin,
                 const std::vector<int64_t>& pads_end, const std::vector<int64_t>& kernel,
                 const std::string& rounding_type = "floor", const std::string& auto_pad = "explicit");
/// MaxPool-8: output 0 values, output 1 indices of `index_element_type` (flat from `axis`).
NodePtr max_pool_with_indices(const Output& x, const std::vector<int64_t>& strides,
                              const std::vector<int64_t>& dilations, const std::vector<int64_t>& pads_begin,
                              const std::vector<int64_t>& pads_end, const std::vector<int64_t>& kernel,
                              const std::string& rounding_type = "floor", const std::string& auto_pad = "explicit",
                              element::Type index_element_type = element::i64, int64_t axis = 0);
/// AvgPool-1; `exclude_pad` is the IR attribute "exclude-pad".
NodePtr avg_pool(const Output& x, const std::vector<int64_t>& strides, const std::vector<int64_t>& pads_begin,
                 const std::vector<int64_t>& pads_end, const std::vector<int64_t>& kernel, bool exclude_pad,
                 const std::string& rounding_type = "floor", const std::string& auto_pad = "explicit");

// ---- Reductions (axes: an integer 0-D/1-D output; negative axes allowed) ----
/// `type` is ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ...
NodePtr reduce(const std::string& type, const Output& x, const Output& axes, bool keep_dims = false);
NodePtr reduce_mean(const Output& x, const Output& axes, bool keep_dims = false);
NodePtr reduce_sum(const Output& x, const Output& axes, bool keep_dims = false);
NodePtr reduce_max(const Output& x, const Output& axes, bool keep_dims = false);

// ---- Shape manipulation ----
NodePtr reshape(const Output& x, const Output& shape, bool special_zero);
/// An empty `order` (1-D of length 0) reverses the axes.
NodePtr transpose(const Output& x, const Output& order);
/// Without `axes`, every dimension of size 1 is removed.
NodePtr squeeze(const Output& x, const Output& axes = {});
NodePtr unsqueeze(const Output& x, const Output& axes);
NodePtr concat(const OutputVector& inputs, int64_t axis);

// ---- Implementation of the template above ----
namespace detail {
NodePtr constant_from_doubles(element::Type type, const Shape& shape, const std::vector<double>& values);
NodePtr constant_from_i64(element::Type type, const Shape& shape, const std::vector<int64_t>& values);
}  // namespace detail

template <typename T>
NodePtr constant(element::Type type, const Shape& shape, const std::vector<T>& values) {
    if constexpr (std::is_integral_v<T>) {
        return detail::constant_from_i64(type, shape, std::vector<int64_t>(values.begin(), values.end()));
    } else {
        std::vector<double> v;
        v.reserve(values.size());
        for (const auto& x : values) v.push_back(static_cast<double>(x));
        return detail::constant_from_doubles(type, shape, v);
    }
}

}  // namespace vireo::op
