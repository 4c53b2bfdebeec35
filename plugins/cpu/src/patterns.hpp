// Declares the sub-graph patterns the CPU graph compiler replaces by one kernel: the exported
// form of Gelu (erf), LayerNorm spelled as ReduceMean/Subtract/Power/Sqrt/Divide (oneDNN's layer
// normalization), and, in dynamic graphs, LayerNorm and RMSNorm as one step (norm_kernel.hpp) and
// the rotary embedding (rotary_kernel.hpp).
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "vireo/node.hpp"

namespace vireo::cpu_plugin {

struct Consumer {
    Node* node;
    size_t input;
};
using ConsumerMap = std::map<Output, std::vector<Consumer>>;

/// The ops of a matched pattern and the port that carries its result.
struct PatternMatch {
    std::vector<NodePtr> nodes;  ///< every op the pattern replaces (the input's producer excluded)
    Output output;
};

/// x * 0.5 * (1 + erf(x / sqrt(2))) over `x`, in the forms exporters write (x / 1.4142 or
/// x * 0.7071; the 0.5 applied first or last); x's only consumers are the pattern's ops.
std::optional<PatternMatch> match_gelu_erf(const Output& x, const ConsumerMap& consumers);

/// LayerNorm over the last axis starting at `mean` (ReduceMean(x, [-1], keep_dims)):
/// d = x - mean; d / sqrt(ReduceMean(d^2) + eps) [* gamma] [+ beta], gamma and beta constants of
/// shape [D] (or broadcasting to it along the last axis).
/// The input needs a static rank and last axis only (a dynamic graph's, [?, ?, D]).
struct LayerNormMatch : PatternMatch {
    Output input;
    float epsilon = 0.f;
    NodePtr gamma, beta;        ///< Constants, or null
    size_t axes = 1;            ///< how many trailing axes are normalized together (MVN)
    bool subtract_mean = true;  ///< false: RMSNorm (x / sqrt(mean(x^2) + eps))
};
std::optional<LayerNormMatch> match_layer_norm(Node& mean, const ConsumerMap& consumers);
/// RMSNorm over the last axis starting at `mean` (ReduceMean(x^2, [-1], keep_dims), the square
/// as Power(x, 2) or x * x): x / sqrt(mean + eps), x * (1 / sqrt(mean + eps)) or
/// x * (mean + eps)^-0.5 [* gamma] [+ beta], as Llama-style decoders are exported.
std::optional<LayerNormMatch> match_rms_norm(Node& mean, const ConsumerMap& consumers);
/// MVN-6 over trailing axes with normalize_variance and eps inside the square root (what ONNX's
/// LayerNormalization and InstanceNormalization become); over the last axis alone with the same
/// optional gamma and beta after it.
std::optional<LayerNormMatch> match_mvn(Node& mvn, const ConsumerMap& consumers);

/// The single f32 value of a Constant that holds one (every element equal), else nullopt.
std::optional<float> scalar_constant(const Output& port);

/// The value of a small port (at most 64 elements) known at compile time: a Constant, the
/// static dimensions of a ShapeOf (as read through a Gather of constant indices), and
/// deterministic ops of such values up to a few levels deep (what exporters compute slice
/// bounds and split sizes with). nullopt otherwise.
std::optional<Tensor> compile_time_value(const Output& port);

/// The rotary position embedding as Llama-style decoders write it ("rotate half"):
/// x * cos + Concat(-x[..., D/2:], x[..., :D/2], -1) * sin, x of static last axis D (even), cos
/// and sin broadcasting to x without widening it, the Slice bounds known at compile time.
struct RotaryMatch : PatternMatch {
    Output input, cos, sin;
};
std::optional<RotaryMatch> match_rotary(Node& add, const ConsumerMap& consumers);

}  // namespace vireo::cpu_plugin
