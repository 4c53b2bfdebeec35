// Declares the CPU plugin's Einsum lowering: a two-operand f32 Einsum that is a batched
// contraction ("bid,bjd->bij", attention written as einsum) becomes a MatMul between views, so it
// runs on oneDNN's matmul instead of the reference kernel's direct summation.
#pragma once

#include <cstddef>

#include "vireo/model.hpp"

namespace vireo::cpu_plugin {

/// Rewrites `model` in place (the plugin's own copy, after constant folding). Each Einsum with
/// two f32 inputs of static shapes, no label repeated within one subscript and, when an ellipsis
/// is used, the same ellipsis dimensions in both inputs (no broadcasting) is replaced by
///     [ReduceSum of labels only one input has] -> [Transpose] -> [Reshape] per input,
///     MatMul over [batch, M, K] x [batch, K, N] (transpose flags where an input already lies
///     as [batch, K, M] or [batch, N, K]), -> [Reshape] -> [Transpose] to the output's order,
/// each bracketed op present only when it changes something. Labels in both inputs and the
/// output are the batch, in the output's order; labels of one input and the output are M or N;
/// labels of both inputs only are summed (K). The MatMul takes the Einsum's friendly name and the
/// last op its output names. Other Einsums are left to the reference kernel. Returns the number
/// of Einsums rewritten.
size_t lower_einsums(Model& model);

}  // namespace vireo::cpu_plugin
