// Declares concat_affine_kernel: a channel Concat of channels-last values followed by a
// per-channel affine map and an optional ReLU (DenseNet's pre-activation: Concat ->
// BatchNormInference -> Relu), as one pass that reads every input once and writes the normalized
// concatenation. Done as two oneDNN steps, the Concat writes the whole concatenation and the
// BatchNorm reads it back: one write and one read of the largest tensor in the block saved.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vireo/reference/kernel.hpp"

namespace vireo::cpu_plugin {

struct ConcatAffineSpec {
    std::string what;              ///< the ops it stands for, for errors
    std::vector<size_t> channels;  ///< per input, its channels (axis 1), in order; none is 0
    std::vector<float> scale;      ///< per output channel (the sum of `channels`)
    std::vector<float> shift;      ///< likewise
    bool relu = false;             ///< max(0, ·) after the affine map
};

/// Inputs: f32 tensors [N, C_i, spatial...] whose bytes are channels-last (N, spatial..., C_i),
/// the same N and spatial dims; output: f32 [N, ΣC_i, spatial...], channels-last. Each pixel's
/// output row is the inputs' rows side by side, y = x * scale[c] + shift[c] (then ReLU). Pixels
/// are split over the calling thread's OpenMP team when there are many. Inputs whose sizes do
/// not fit the output are an InvalidArgument naming `what`.
std::shared_ptr<const reference::Kernel> concat_affine_kernel(ConcatAffineSpec spec);

}  // namespace vireo::cpu_plugin
