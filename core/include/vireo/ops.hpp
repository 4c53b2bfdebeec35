// Declares typed builders for the standard ops: the readable way to make a graph in C++.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vireo/float16.hpp"
#include "vireo/model.hpp"
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
NodePtr divide(const Output& a, const Output& b, bool pythondiv = true,
               const std::string& auto_broadcast = "numpy");
NodePtr power(const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
NodePtr maximum(const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
NodePtr minimum(const Output& a, const Output& b, const std::string& auto_broadcast = "numpy");
NodePtr squared_difference(const Output& a, const Output& b,
                           const std::string& auto_broadcast = "numpy");
/// Comparisons: `type` is Equal, NotEqual, Less, LessEqual, Greater or GreaterEqual; boolean
/// output.
NodePtr compare(const std::string& type, const Output& a, const Output& b,
                const std::string& auto_broadcast = "numpy");
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
/// ScaledDotProductAttention-13: softmax(q·kᵀ · scale + mask) · v over the last two axes, with q
/// [batch..., L, E], k [batch..., S, E], v [batch..., S, Ev] (one rank >= 3, batches broadcast).
/// `attn_mask` (optional) is boolean (false hides a key) or added to the scores, broadcastable to
/// [batch..., L, S]; `scale` (optional, a scalar; needs a mask) defaults to 1/sqrt(E). `causal`
/// hides key j from query i when j > i and ignores the mask.
NodePtr scaled_dot_product_attention(const Output& q, const Output& k, const Output& v,
                                     const Output& attn_mask = {}, const Output& scale = {},
                                     bool causal = false);

// ---- MatMul, convolution, pooling ----
NodePtr matmul(const Output& a, const Output& b, bool transpose_a = false,
               bool transpose_b = false);
/// Convolution-1: x [N, C_IN, spatial...], w [C_OUT, C_IN, kernel...]. `auto_pad` is "explicit",
/// "valid", "same_upper" or "same_lower" (pads are ignored unless explicit).
NodePtr convolution(const Output& x, const Output& w, const std::vector<int64_t>& strides,
                    const std::vector<int64_t>& pads_begin, const std::vector<int64_t>& pads_end,
                    const std::vector<int64_t>& dilations,
                    const std::string& auto_pad = "explicit");
/// GroupConvolution-1: w [GROUPS, C_OUT/GROUPS, C_IN/GROUPS, kernel...].
NodePtr group_convolution(const Output& x, const Output& w, const std::vector<int64_t>& strides,
                          const std::vector<int64_t>& pads_begin,
                          const std::vector<int64_t>& pads_end,
                          const std::vector<int64_t>& dilations,
                          const std::string& auto_pad = "explicit");
/// ConvolutionBackpropData-1: w [C_IN, C_OUT, kernel...]; `output_shape` (spatial sizes) optional.
NodePtr convolution_backprop_data(
    const Output& x, const Output& w, const std::vector<int64_t>& strides,
    const std::vector<int64_t>& pads_begin, const std::vector<int64_t>& pads_end,
    const std::vector<int64_t>& dilations, const std::vector<int64_t>& output_padding = {},
    const Output& output_shape = {}, const std::string& auto_pad = "explicit");
/// MaxPool-1 (one output). `rounding_type` is "floor" or "ceil".
NodePtr max_pool(const Output& x, const std::vector<int64_t>& strides,
                 const std::vector<int64_t>& pads_begin, const std::vector<int64_t>& pads_end,
                 const std::vector<int64_t>& kernel, const std::string& rounding_type = "floor",
                 const std::string& auto_pad = "explicit");
/// MaxPool-8: output 0 values, output 1 indices of `index_element_type` (flat from `axis`);
/// MaxPool-14 when `rounding_type` is "ceil_torch" (a ceiling without a last window that would
/// start in the end padding, as PyTorch's and ONNX's ceil_mode).
NodePtr max_pool_with_indices(const Output& x, const std::vector<int64_t>& strides,
                              const std::vector<int64_t>& dilations,
                              const std::vector<int64_t>& pads_begin,
                              const std::vector<int64_t>& pads_end,
                              const std::vector<int64_t>& kernel,
                              const std::string& rounding_type = "floor",
                              const std::string& auto_pad = "explicit",
                              element::Type index_element_type = element::i64, int64_t axis = 0);
/// AvgPool-1; `exclude_pad` is the IR attribute "exclude-pad". AvgPool-14 when `rounding_type`
/// is "ceil_torch".
NodePtr avg_pool(const Output& x, const std::vector<int64_t>& strides,
                 const std::vector<int64_t>& pads_begin, const std::vector<int64_t>& pads_end,
                 const std::vector<int64_t>& kernel, bool exclude_pad,
                 const std::string& rounding_type = "floor",
                 const std::string& auto_pad = "explicit");

// ---- Reductions (axes: an integer 0-D/1-D output; negative axes allowed) ----
/// `type` is ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ...
NodePtr reduce(const std::string& type, const Output& x, const Output& axes,
               bool keep_dims = false);
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

// ---- Slicing, indexing ----
/// Split-1 into `num_splits` equal outputs along the scalar `axis`.
NodePtr split(const Output& x, const Output& axis, int64_t num_splits);
/// VariadicSplit-1: one output per entry of `split_lengths` (one entry may be -1).
NodePtr variadic_split(const Output& x, const Output& axis, const Output& split_lengths);
/// StridedSlice-1. Mask entries are 0/1 per slice entry (missing entries are 0); a begin/end mask
/// bit of 1 ignores that begin/end value. An empty `stride` means all 1.
NodePtr strided_slice(const Output& x, const Output& begin, const Output& end, const Output& stride,
                      const std::vector<int64_t>& begin_mask, const std::vector<int64_t>& end_mask,
                      const std::vector<int64_t>& new_axis_mask = {},
                      const std::vector<int64_t>& shrink_axis_mask = {},
                      const std::vector<int64_t>& ellipsis_mask = {});
/// Slice-8: python-style slices start:stop:step over `axes` (default: the first len(start) axes).
NodePtr slice(const Output& x, const Output& start, const Output& stop, const Output& step,
              const Output& axes = {});
/// Gather-8 (negative indices count from the end).
NodePtr gather(const Output& data, const Output& indices, const Output& axis,
               int64_t batch_dims = 0);
NodePtr gather_elements(const Output& data, const Output& indices, int64_t axis);
NodePtr scatter_update(const Output& data, const Output& indices, const Output& updates,
                       const Output& axis);

// ---- Shapes and generators ----
NodePtr shape_of(const Output& x, element::Type output_type = element::i64);
/// Range-4.
NodePtr range(const Output& start, const Output& stop, const Output& step,
              element::Type output_type);
/// Broadcast-3; `mode` is "numpy", "explicit" (needs `axes_mapping`), "bidirectional" or "pdpd".
NodePtr broadcast(const Output& x, const Output& target_shape, const std::string& mode = "numpy",
                  const Output& axes_mapping = {});
NodePtr tile(const Output& x, const Output& repeats);
/// RandomUniform-8: a tensor of `output_type` (f16, bf16, f32, f64, i32, i64) and the shape the
/// 1-D integer `shape` holds, values uniform in [min, max) (scalars of `output_type`, min < max).
/// The same non-zero seeds give the same numbers on every run and device; global_seed and op_seed
/// both 0 draw fresh numbers on every execution (docs/ops.md, "Random numbers"). Never folded.
NodePtr random_uniform(const Output& shape, const Output& min, const Output& max,
                       element::Type output_type, int64_t global_seed = 0, int64_t op_seed = 0);
/// Pad-12 (negative pads crop); `pad_mode` is "constant", "edge", "reflect" or "symmetric".
NodePtr pad(const Output& x, const Output& pads_begin, const Output& pads_end,
            const std::string& pad_mode = "constant", const Output& pad_value = {});

// ---- Normalisation ----
/// BatchNormInference-5 (data first).
NodePtr batch_norm_inference(const Output& x, const Output& gamma, const Output& beta,
                             const Output& mean, const Output& variance, double epsilon);
/// MVN-6; `eps_mode` is "inside_sqrt" or "outside_sqrt".
NodePtr mvn(const Output& x, const Output& axes, bool normalize_variance, double eps,
            const std::string& eps_mode = "inside_sqrt");
/// NormalizeL2-1; `eps_mode` is "add" or "max".
NodePtr normalize_l2(const Output& x, const Output& axes, double eps,
                     const std::string& eps_mode = "add");

// ---- Interpolate, TopK, FakeQuantize ----
/// Attributes of Interpolate-4/11, named as in the IR; defaults as the specification gives them.
struct InterpolateAttrs {
    std::string mode = "nearest";
    std::string shape_calculation_mode = "sizes";
    std::string coordinate_transformation_mode = "half_pixel";
    std::string nearest_mode = "round_prefer_floor";
    bool antialias = false;
    std::vector<int64_t> pads_begin{0};
    std::vector<int64_t> pads_end{0};
    double cube_coeff = -0.75;
    bool exclude_outside = false;      ///< Vireo extension (ONNX Resize's exclude_outside)
    double extrapolation_value = 0.0;  ///< used with `roi` only: the value of samples outside x
};
/// Interpolate-11: `scales_or_sizes` (f32 scales or integer sizes, by shape_calculation_mode) per
/// entry of `axes` (default: every axis). `roi` (Vireo's extension for ONNX's tf_crop_and_resize,
/// docs/ops.md: f32 starts then ends, one per axis, as fractions) needs `axes`.
NodePtr interpolate(const Output& x, const Output& scales_or_sizes, const InterpolateAttrs& attrs,
                    const Output& axes = {}, const Output& roi = {});
/// TopK-11: output 0 values, output 1 indices. `mode` "max"/"min", `sort` "value"/"index"/"none".
NodePtr topk(const Output& x, const Output& k, int64_t axis, const std::string& mode,
             const std::string& sort, element::Type index_element_type = element::i32,
             bool stable = false);
NodePtr fake_quantize(const Output& x, const Output& input_low, const Output& input_high,
                      const Output& output_low, const Output& output_high, int64_t levels,
                      const std::string& auto_broadcast = "numpy");

/// Einsum-7, e.g. einsum({a, b}, "ij,jk->ik"); "..." broadcasts, an output-less equation uses the
/// labels seen once in alphabetical order.
NodePtr einsum(const OutputVector& inputs, const std::string& equation);

// ---- Sub-graph ops (docs/ops.md "Sub-graph ops"); the node owns the bodies it is given ----
/// How If-8's inputs and outputs map onto its bodies. An empty list means the identity: body
/// Parameter p is fed by If input p + 1 (input 0 is the condition), If output o is body Result o.
struct IfPorts {
    std::vector<int64_t> then_inputs;   ///< per then-body Parameter: the If input index (>= 1)
    std::vector<int64_t> else_inputs;   ///< per else-body Parameter: the If input index (>= 1)
    std::vector<int64_t> then_outputs;  ///< per If output: the then-body Result index
    std::vector<int64_t> else_outputs;  ///< per If output: the else-body Result index
};
/// If-8: runs `then_body` when the boolean scalar `cond` is true, else `else_body`; the If's
/// inputs are `cond` then `inputs`.
///
///     auto y = op::if_op(c, {x}, then_model, else_model);  // both bodies: one Parameter, one
///     Result
NodePtr if_op(const Output& cond, const OutputVector& inputs, std::shared_ptr<Model> then_body,
              std::shared_ptr<Model> else_body, IfPorts ports = {});

/// How Loop-5's inputs and outputs map onto its body. Slicing entries are five numbers per port,
/// `axis, start, stride, end, part_size` as in the OpenVINO IR port map; axis -1 means not
/// sliced (an input is passed whole, an output is its last iteration's value), and an empty list
/// means no port is sliced.
struct LoopPorts {
    int64_t current_iteration_input_idx = -1;  ///< body Parameter receiving the iteration number
    int64_t body_condition_output_idx = -1;    ///< body Result deciding whether to go on
    /// Per body Parameter: the Loop input feeding it (input 0 is trip_count, 1 the execution
    /// condition, `inputs` are 2..), -1 for the current-iteration Parameter. Empty: the Parameters
    /// other than the current-iteration one take inputs 2, 3, ... in order.
    std::vector<int64_t> input_ports;
    /// Per body Parameter: the body Result feeding it from the second iteration on, or -1.
    std::vector<int64_t> back_edges;
    std::vector<int64_t> input_slicing;
    /// Per Loop output: the body Result. Empty: every Result but the condition one, in order.
    std::vector<int64_t> output_results;
    std::vector<int64_t> output_slicing;
};
/// Loop-5: runs `body` while the iteration count is below `trip_count` (an integer scalar, -1 for
/// no limit) and the condition (`execution_condition` before the first iteration, then the body's
/// condition Result) is true. Concatenated outputs (output_slicing axis >= 0) have a dynamic
/// iteration axis unless the count is known before running.
NodePtr loop(const Output& trip_count, const Output& execution_condition,
             const OutputVector& inputs, std::shared_ptr<Model> body, LoopPorts ports = {});

// ---- State (variables are matched by variable_id) ----
/// ReadValue-6. Without `init` the first read gives zeros of variable_type/variable_shape.
NodePtr read_value(const std::string& variable_id, element::Type variable_type,
                   const PartialShape& variable_shape, const Output& init = {});
/// Assign-6: writes `value` to the variable; add the node to the Model's sinks.
NodePtr assign(const Output& value, const std::string& variable_id);

// ---- Implementation of the template above ----
namespace detail {
NodePtr constant_from_doubles(element::Type type, const Shape& shape,
                              const std::vector<double>& values);
NodePtr constant_from_i64(element::Type type, const Shape& shape,
                          const std::vector<int64_t>& values);
}  // namespace detail

template <typename T>
NodePtr constant(element::Type type, const Shape& shape, const std::vector<T>& values) {
    if constexpr (std::is_integral_v<T>) {
        return detail::constant_from_i64(type, shape,
                                         std::vector<int64_t>(values.begin(), values.end()));
    } else {
        std::vector<double> v;
        v.reserve(values.size());
        for (const auto& x : values) v.push_back(static_cast<double>(x));
        return detail::constant_from_doubles(type, shape, v);
    }
}

}  // namespace vireo::op
