// Declares the sub-graph patterns the CPU graph compiler replaces by one oneDNN kernel: the
// exported form of Gelu (erf), and LayerNorm spelled as ReduceMean/Subtract/Power/Sqrt/Divide.
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
struct LayerNormMatch : PatternMatch {
    Output input;
    float epsilon = 0.f;
    NodePtr gamma, beta;  ///< Constants, or null
    size_t axes = 1;      ///< how many trailing axes are normalized together (MVN)
};
std::optional<LayerNormMatch> match_layer_norm(Node& mean, const ConsumerMap& consumers);
/// MVN-6 over trailing axes with normalize_variance and eps inside the square root (what ONNX's
/// LayerNormalization and InstanceNormalization become); over the last axis alone with the same
/// optional gamma and beta after it.
std::optional<LayerNormMatch> match_mvn(Node& mvn, const ConsumerMap& consumers);

/// The single f32 value of a Constant that holds one (every element equal), else nullopt.
std::optional<float> scalar_constant(const Output& port);

}  // namespace vireo::cpu_plugin
