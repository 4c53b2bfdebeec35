// Declares fold_constants: the frontend evaluates small constant subgraphs while it imports, so
// shape arithmetic (Shape -> Gather -> Concat -> Reshape, Flatten, Range of constants) gives
// static shapes that every device, static-shape ones included, can compile.
#pragma once

#include <set>

#include "vireo/node.hpp"

namespace vireo::onnx_import {

/// Largest result, in elements, that folding computes; bigger values stay ops (weights are left
/// to the device, which may want them in its own layout).
constexpr size_t kMaxFoldedElements = 1 << 16;

/// Folds the nodes that produce `outputs`, walking back to (not into) the nodes in `stop`:
/// ShapeOf of a static shape, and any other op whose inputs are all Constants and whose outputs
/// are static and small, become Constants (computed by the reference kernels). Returns `outputs`
/// with folded values replaced. A node without a kernel for its configuration is left as it is;
/// a kernel's InvalidArgument (constants it refuses, e.g. a Gather index out of range) propagates.
OutputVector fold_constants(const OutputVector& outputs, const std::set<const Node*>& stop);

}  // namespace vireo::onnx_import
