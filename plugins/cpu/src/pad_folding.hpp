// Declares the CPU plugin's Pad folding: a constant-zero Pad in front of an AvgPool or a
// convolution becomes that op's own padding, and a Pad that pads nothing is bypassed, so neither
// runs as a copy on a reference kernel (PyTorch exports avg_pool2d with count_include_pad as Pad +
// AveragePool: Inception-V3's nine, DenseNet-121's three).
#pragma once

#include <cstddef>

#include "vireo/model.hpp"

namespace vireo::cpu_plugin {

/// Rewrites `model` in place (the plugin's own copy, after constant folding):
/// - a reader of a Pad whose pads are all zero (any mode) reads the Pad's input instead, unless
///   the reader is a Result (the output keeps its port and names);
/// - an AvgPool, Convolution or GroupConvolution reading, as its data, an f32 Pad in constant
///   mode with constant, non-negative pads on the spatial axes only and a pad value of 0 (or
///   none) reads the Pad's input with the pads added to its own: an AvgPool becomes
///   include-padding (allowed when its own pads are zero or already include-padding) and floor
///   rounding. Each rewrite is kept only when the op's output shape comes out unchanged.
/// A Pad left without readers is dropped with them. Returns the number of readers rewritten.
size_t fold_pads(Model& model);

}  // namespace vireo::cpu_plugin
