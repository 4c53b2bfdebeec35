// Declares the TEMPLATE plugin's model transformations: constant folding with the reference
// kernels and dead-code removal, run on the plugin's private copy of a model.
#pragma once

#include <cstddef>
#include <string>

#include "vireo/model.hpp"

namespace vireo::template_plugin {

/// rt_info key on nodes of a transformed model: comma-separated friendly names of the original
/// layers a node stands for (a folded Constant lists every layer folded into it).
inline constexpr const char* kOriginalLayersNames = "originalLayersNames";

struct TransformStats {
    size_t folded = 0;       ///< nodes replaced by Constants
    size_t removed = 0;      ///< nodes no longer reachable from the results and sinks
    size_t over_budget = 0;  ///< all-constant nodes left to run time by the folding budget
};

/// The most bytes constant folding may create for one model: 256 MiB, or an eighth of the
/// machine's memory if less. A 2.7 KB IR of three 1 GB Broadcasts of constants peaked at 7.3 GB
/// when every fold was allowed.
size_t folding_budget_bytes();

/// Transforms `model` in place:
/// - constant folding: a node whose inputs are all Constants is evaluated once with the
///   reference kernels and replaced by Constants (one per output); ShapeOf of a static shape is
///   folded whatever its input; ShapeOf of a dynamic shape is kept. A node the kernels cannot
///   evaluate is left as is (compilation reports it if it has no kernel at all). The outputs of
///   all folds together stay within folding_budget_bytes(): a node whose static output size
///   does not fit in what is left (or is unknown) is not folded and runs at inference, where
///   the execution plan's memory checks apply to it like to any other value.
/// - dead-code removal: nodes that no result or sink depends on are dropped.
/// Parameters and Results keep their order, friendly names and tensor names; a folded output
/// hands its tensor names to the Constant that replaces it. Shapes are re-inferred afterwards.
/// Not thread-safe (the model is the caller's private copy).
TransformStats transform_model(Model& model);

}  // namespace vireo::template_plugin
