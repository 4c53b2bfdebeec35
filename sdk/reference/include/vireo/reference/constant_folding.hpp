// Declares constant folding with the reference kernels: ShapeOf of a static shape, and every op
// whose inputs are all constants, become Constants. Readers use it while importing (shape
// arithmetic gives static shapes) and plugins before compiling (a model reshaped to static input
// shapes gets static shapes everywhere, so nothing waits for run-time shapes).
#pragma once

#include <cstddef>
#include <set>

#include "vireo/model.hpp"
#include "vireo/node.hpp"

namespace vireo::reference {

/// Largest result, in elements, that folding computes; bigger values stay ops (weights are left
/// to the device, which may want them in its own layout).
constexpr size_t kMaxFoldedElements = 1 << 16;

/// rt_info key on a node that folding must leave as it is, whatever its inputs (a plugin marks
/// the decompression of compressed weights it multiplies with directly, as OpenVINO's
/// disable_constant_folding attribute does).
inline constexpr const char* kDisableConstantFolding = "disable_constant_folding";

/// Folds the nodes that produce `outputs`, walking back to (not into) the nodes in `stop`:
/// ShapeOf of a static shape, and any other op whose inputs are all Constants and whose outputs
/// are static and small, become Constants (computed by the reference kernels). Nodes whose
/// inputs were replaced are re-inferred. Returns `outputs` with folded values replaced. A node
/// that has no kernel for its configuration is left as it is; one whose kernel finds its
/// constant inputs invalid (an index out of range) throws that InvalidArgument, since every
/// device would fail on it. Not thread-safe on shared nodes: the graph is edited.
///
///     auto outs = reference::fold_constants({reshape->output(0)}, {});
OutputVector fold_constants(const OutputVector& outputs, const std::set<const Node*>& stop);

/// rt_info key on nodes of a folded model: comma-separated friendly names of the original layers
/// a node stands for (a folded Constant lists every layer folded into it).
inline constexpr const char* kOriginalLayersNames = "originalLayersNames";

struct FoldStats {
    size_t folded = 0;       ///< nodes replaced by Constants
    size_t removed = 0;      ///< nodes no longer reachable from the results and sinks
    size_t over_budget = 0;  ///< all-constant nodes left to run time by the folding budget
};

/// The most bytes fold_model_constants creates by default: 256 MiB, or an eighth of the
/// machine's memory if less. (A 2.7 KB IR of three 1 GB Broadcasts of constants peaked at
/// 7.3 GB when every fold was allowed.)
size_t default_fold_budget_bytes();

/// Transforms a plugin's private copy of a model in place, before it compiles it:
/// - every node is re-inferred in topological order, so shapes that follow from folded values
///   (a Reshape fed by ShapeOf -> Gather -> Concat) become static before their consumers are
///   looked at, and chains of such shapes fold all the way;
/// - ShapeOf of a static shape, and a node whose inputs are all Constants, are evaluated with
///   the reference kernels and replaced by Constants (one per output). A node the kernels cannot
///   evaluate is left as is. The outputs of all folds together stay within `budget_bytes`: a
///   node whose output does not fit in what is left (or whose size is unknown) runs at
///   inference, where the plugin's memory checks apply to it like to any other value;
/// - an If whose condition is (or folds to) a Constant is replaced by the body it takes (a clone
///   wired to the If's inputs, its Results' sources taking the If outputs' names), and folding
///   runs again on what that makes constant, for a few rounds (torch exports check ranks and
///   sizes with Ifs whose branches differ in rank; static shapes decide them). Bodies with
///   sinks (Assign) stay;
/// - nodes no result or sink depends on are dropped.
/// Parameters and Results keep their order, friendly names and tensor names; a folded output
/// hands its tensor names and rt_info to the Constant that replaces it, which lists the layers
/// it stands for in kOriginalLayersNames. Not thread-safe (the model is the caller's copy).
FoldStats fold_model_constants(Model& model, size_t budget_bytes = default_fold_budget_bytes());

}  // namespace vireo::reference
