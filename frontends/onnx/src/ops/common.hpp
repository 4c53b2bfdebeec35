// Declares helpers the translators share: constants, axis handling, identity, per-channel
// reshapes and ONNX's opset-6 style broadcasting.
#pragma once

#include <string>
#include <vector>

#include "node_context.hpp"
#include "tensor_proto.hpp"
#include "translator_registry.hpp"
#include "vireo/ops.hpp"

namespace vireo::onnx_import {

/// A 1-D i64 constant.
Output ints(const std::vector<int64_t>& values);
/// A scalar constant of `type` holding `value` (converted).
Output scalar(element::Type type, double value);
/// A tensor with the same value and its own descriptor (Convert to the same type).
Output identity(const Output& x);
/// The static rank of `x`; the translator's error when it is dynamic.
int64_t static_rank(const NodeContext& ctx, const Output& x, const char* what = "input");
/// `x` with the rank `rank` the ONNX operator requires of it: itself when its rank is static
/// (InvalidArgument naming `what` when it differs), else a Reshape to `rank` dimensions copied
/// from it (special zero), which fails at run time if the rank is not `rank` after all. Exported
/// models compute some ranks at run time (torch's squeeze-if-size-1 under an If whose branches
/// differ in rank); an operator with a fixed rank then fixes it again.
Output with_rank(const NodeContext& ctx, const Output& x, int64_t rank, const char* what = "input");
/// `axis` in [-rank, rank) made non-negative; an error naming the node otherwise.
int64_t normalize_axis(const NodeContext& ctx, int64_t axis, int64_t rank);
/// `v` (1-D, length C) reshaped to [1, C, 1, ...] for a rank-`rank` tensor with channels on axis 1.
Output per_channel(const Output& v, int64_t rank, int64_t axis = 1);
/// Binary inputs with opset < 7 semantics: with broadcast=1, B's dims align with A's from `axis`
/// (default: trailing), so B is unsqueezed on the right as needed; numpy broadcasting after that.
std::pair<Output, Output> legacy_broadcast(const NodeContext& ctx, Output a, Output b);
/// A 1-D i64 constant [begin, begin + 1, ..., end - 1] (axes lists: all axes, spatial axes...).
Output axes_range(int64_t begin, int64_t end);
/// `v` as a scalar when it is a 1-D tensor (ONNX often passes k, depth or an axis as [1]);
/// unchanged otherwise.
Output as_scalar(const Output& v);
/// ONNX auto_pad value -> the core's.
std::string auto_pad(const NodeContext& ctx);
/// A 1-D tensor of `x`'s dims [begin, end) as i64 (ShapeOf + Slice; constant when static).
Output dims(const Output& x, int64_t begin, int64_t end);
/// ONNX Conv's convolution (attributes kernel_shape, strides, pads, dilations, auto_pad, group of
/// `ctx`) of `x` by `w`, without bias: Convolution, or GroupConvolution for group > 1.
Output build_conv(const NodeContext& ctx, Output x, Output w);
/// The translator result for a single-output node.
inline OutputVector one(const Output& o) {
    return {o};
}

}  // namespace vireo::onnx_import
