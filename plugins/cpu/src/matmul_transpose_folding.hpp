// Declares the CPU plugin's Transpose-into-MatMul folding: a MatMul operand that is a Transpose
// swapping only the last two axes is read untransposed with the MatMul's transpose flag toggled,
// so the transposed copy is never made. Exporters write `matmul(q, k.transpose(-1, -2))` this way:
// in a decoder with a KV cache that Transpose copied the whole key cache of every layer at every
// token.
#pragma once

#include <cstddef>

#include "vireo/model.hpp"

namespace vireo::cpu_plugin {

/// Rewrites `model` in place (the plugin's own copy, after constant folding): each input of a
/// MatMul whose producer is a Transpose with a constant order [0, 1, ..., r-3, r-1, r-2] (rank r
/// >= 2) reads the Transpose's input instead, and the MatMul's transpose_a (input 0) or
/// transpose_b (input 1) is toggled. A rewrite is kept only when the MatMul's output type and
/// shape come out unchanged. A Transpose left without readers is dropped with them. Returns the
/// number of operands rewritten.
size_t fold_transposes_into_matmuls(Model& model);

}  // namespace vireo::cpu_plugin
