// Declares helpers shared by the op definitions in core/src/ops (internal): attribute-spec
// shorthands, input checks, numpy/pdpd shape broadcasting, axis handling and conv/pool arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vireo/op_registry.hpp"

namespace vireo::ops_impl {

// ---- Registration of each family (one file each) ----
void register_io_ops(OpRegistry& registry);
void register_elementwise_ops(OpRegistry& registry);     // elementwise.cpp
void register_activation_ops(OpRegistry& registry);      // activations.cpp
void register_matmul_conv_ops(OpRegistry& registry);     // conv.cpp
void register_pooling_ops(OpRegistry& registry);         // pooling.cpp
void register_reduction_ops(OpRegistry& registry);       // reductions.cpp
void register_shape_ops(OpRegistry& registry);           // shape_ops.cpp
void register_slicing_ops(OpRegistry& registry);         // slicing.cpp
void register_gather_scatter_ops(OpRegistry& registry);  // gather_scatter.cpp
void register_generator_ops(
    OpRegistry& registry);  // generators.cpp (ShapeOf, Range, Broadcast, Tile, Pad)
void register_normalization_ops(OpRegistry& registry);  // normalization.cpp
void register_interpolate_ops(OpRegistry& registry);    // interpolate.cpp
void register_einsum_ops(OpRegistry& registry);         // einsum.cpp
void register_misc_ops(
    OpRegistry& registry);  // misc_ops.cpp (TopK, FakeQuantize, ReadValue, Assign)
void register_sequence_ops(OpRegistry& registry);  // sequence_ops.cpp (CumSum, ReverseSequence)
void register_space_depth_ops(
    OpRegistry& registry);                      // space_depth.cpp (DepthToSpace, SpaceToDepth)
void register_index_ops(OpRegistry& registry);  // index_ops.cpp (OneHot, Eye, NonZero, Unique)
void register_detection_ops(
    OpRegistry& registry);  // detection_ops.cpp (NonMaxSuppression, ROIAlign)
void register_subgraph_ops(OpRegistry& registry);  // subgraph_ops.cpp (If, Loop)
void register_recurrent_ops(
    OpRegistry& registry);  // recurrent.cpp (RNNSequence, GRUSequence, LSTMSequence)
void register_signal_ops(OpRegistry& registry);  // signal_ops.cpp (DFT, IDFT, Det, TfIdfVectorizer)
void register_random_ops(OpRegistry& registry);  // random_ops.cpp (RandomUniform)
void register_attention_ops(OpRegistry& registry);  // attention.cpp (ScaledDotProductAttention)

using Inputs = std::vector<InferInput>;
using Outputs = std::vector<InferOutput>;

// ---- Attribute spec shorthands ----
/// A required attribute.
AttrSpec required_attr(const std::string& name, AttrType type,
                       std::vector<std::string> choices = {});
/// An optional attribute with its default.
AttrSpec optional_attr(const std::string& name, AttrType type, AttrValue default_value,
                       std::vector<std::string> choices = {});
/// `auto_broadcast` of the elementwise ops: none | numpy | pdpd, default `def`.
AttrSpec auto_broadcast_attr(const std::string& def = "numpy");

// ---- Input checks (all throw InvalidArgument naming the node and the input) ----
/// Merges the element types of inputs `a` and `b`; throws if both are static and differ.
element::Type merge_types(const Node& node, const Inputs& in, size_t a, size_t b);
/// Merges the element types of every input in `indices`.
element::Type merge_types(const Node& node, const Inputs& in, const std::vector<size_t>& indices);
/// Throws unless input `i`'s type is dynamic or satisfies `ok`; `expected` words the rule.
void check_type(const Node& node, const Inputs& in, size_t i, const char* name,
                bool (*ok)(element::Type), const char* expected);
bool is_integral_number(element::Type t);
bool is_real(element::Type t);
bool is_boolean(element::Type t);
bool is_numeric(element::Type t);
/// Input i (when present) must hold one element: rank 0, or rank <= 1 with every dimension
/// compatible with 1. Throws InvalidArgument naming the node, the input and its shape.
void check_scalar_input(const Node& node, const Inputs& in, size_t i, const char* name);
/// Throws unless input `i` has a dynamic rank or a rank in [min_rank, max_rank].
void check_rank(const Node& node, const Inputs& in, size_t i, const char* name, int64_t min_rank,
                int64_t max_rank);
/// Input `i`'s rank when static, else nullopt.
std::optional<int64_t> static_rank(const InferInput& in);

// ---- Values ----
/// The integer values of input `i` when known.
std::optional<std::vector<int64_t>> values_of(const Inputs& in, size_t i);
/// The values of input `i` as doubles (any number type) when known.
std::optional<std::vector<double>> real_values(const Inputs& in, size_t i);
/// The single integer value of a scalar/1-element input `i`; throws if it holds several.
std::optional<int64_t> scalar_value(const Node& node, const Inputs& in, size_t i, const char* name);
/// Number of elements a 1-D (or scalar) input holds when its shape says so, else nullopt.
std::optional<int64_t> static_length(const InferInput& in);
/// What the graph says of a small integer port's elements (at most 16, rank 0 or 1) when its
/// value is not known as a whole: per element, the value or nullopt. It follows what exporters
/// compute shapes with — Constant; ShapeOf (the static dimensions); Gather of constant indices
/// on axis 0; Concat on axis 0; Convert, Squeeze, Unsqueeze and Reshape of such a vector; and
/// Add, Subtract, Multiply and exact Divide of known elements — a few producers deep. nullopt
/// when nothing is known. Shape inference at model-building time uses it for targets computed
/// from shapes, so that a Reshape to Concat(ShapeOf(x)[0:2], [12, 64]) gives [?, ?, 12, 64].
std::optional<std::vector<std::optional<int64_t>>> partial_values(const Output& port);
/// One element of partial_dims: its value, or else the dimension `axis` of `source` (a dynamic
/// dimension a ShapeOf read, carried through the ops partial_values follows and through x * 1,
/// x + 0, Select and Expand's "Equal(x, -1)", which a dimension never is), or nothing known.
struct PartialElement {
    std::optional<int64_t> value;
    Output source;
    size_t axis = 0;
    bool symbolic() const { return !value && static_cast<bool>(source); }
    /// The same value, or the same dimension of the same tensor.
    bool same(const PartialElement& other) const;
};
/// partial_values with the dimensions it does not know as numbers named by where they come
/// from: what lets a transformation prove that a computed shape is some tensor's own shape.
std::optional<std::vector<PartialElement>> partial_dims(const Output& port);
/// A shape given as values (Reshape target, Broadcast target_shape): exact when the values are
/// known; else, when the 1-D input has a static length, its dims from partial_values of the
/// node's input `i` (dynamic where unknown); else dynamic rank.
/// Negative values throw (use Reshape's own logic for -1).
PartialShape shape_from_values(const Node& node, const Inputs& in, size_t i, const char* name);

// ---- Axes ----
/// Normalises every axis against `rank`; throws on out-of-range or (when !allow_repeats)
/// repeated axes. The result keeps the given order.
std::vector<size_t> normalize_axes(const Node& node, const std::vector<int64_t>& axes, int64_t rank,
                                   const char* what, bool allow_repeats = false);
size_t normalize_axis(const Node& node, int64_t axis, int64_t rank, const char* what);

// ---- Broadcasting ----
/// Broadcast of two shapes by `mode` ("none": shapes must merge, "numpy", "pdpd" with axis -1).
/// Throws naming both shapes when incompatible.
PartialShape broadcast_shapes(const Node& node, const PartialShape& a, const PartialShape& b,
                              const std::string& mode);
/// Numpy broadcast of several shapes.
PartialShape numpy_broadcast(const Node& node, const std::vector<PartialShape>& shapes);

// ---- Convolution and pooling arithmetic ----
/// One spatial axis of a windowed op: input size, (dilated) window, stride, pads.
struct WindowAxis {
    Dimension input;
    int64_t window = 1;  // kernel size before dilation
    int64_t stride = 1;
    int64_t dilation = 1;
    int64_t pad_begin = 0;
    int64_t pad_end = 0;
};
/// How a pooling window count is rounded: down; up (OpenVINO's "ceil", a plain ceiling); or up
/// without a last window that would start in the end padding (opset14's "ceil_torch", PyTorch's
/// and ONNX's ceil_mode).
enum class WindowRounding { kFloor, kCeil, kCeilTorch };
/// Output size of one spatial axis under `auto_pad` ("explicit"/"notset", "valid", "same_upper",
/// "same_lower"), rounded as `rounding` says (anything but floor is for pooling only).
Dimension window_output_dim(const Node& node, const WindowAxis& axis, const std::string& auto_pad,
                            WindowRounding rounding = WindowRounding::kFloor);
/// Checks an int-list attribute has `count` entries (or is empty when `allow_empty`), naming it.
void check_attr_length(const Node& node, const std::vector<int64_t>& values, size_t count,
                       const char* attr, bool allow_empty = false);
/// Attribute `name` as an int list, or `count` copies of `fill` when it is empty.
std::vector<int64_t> int_list_or(const Node& node, const char* name, size_t count, int64_t fill);

/// "[1,2,3]" for messages.
std::string to_text(const std::vector<int64_t>& values);

}  // namespace vireo::ops_impl
