// Translators for the float ops of ONNX Runtime's com.microsoft domain that its graph optimizer
// writes into saved models (FusedConv, FusedMatMul, the Gelu family,
// SkipLayerNormalization and the RMS forms) and ORT's SimplifiedLayerNormalization in the default
// domain, onto the core opset. The quantized ones (QLinearAdd, ...) are in quantization.cpp.
#include <limits>
#include <string>
#include <vector>

#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

constexpr const char* kMs = "com.microsoft";

// FusedConv's activation (attribute "activation", its constants in "activation_params").
Output fused_activation(const NodeContext& ctx, const Output& y) {
    const std::string act = ctx.attr_string("activation", "");
    const std::vector<double> p = ctx.attr_floats("activation_params", {});
    const auto param = [&](size_t i, double fallback) { return i < p.size() ? p[i] : fallback; };
    const auto t = y.get_element_type();
    if (act.empty() || act == "Identity") return y;
    if (act == "Relu") return op::relu(y);
    if (act == "Sigmoid") return op::sigmoid(y);
    if (act == "Tanh") return op::tanh(y);
    if (act == "LeakyRelu") {
        const Output scaled = op::multiply(y, scalar(t, param(0, 0.01)));
        return op::select(op::compare("GreaterEqual", y, scalar(t, 0.0)), y, scaled);
    }
    if (act == "Clip") {
        const double lowest = std::numeric_limits<float>::lowest();
        return op::clamp(y, param(0, lowest), param(1, std::numeric_limits<float>::max()));
    }
    if (act == "HardSigmoid") {
        const Output lin =
            op::add(op::multiply(y, scalar(t, param(0, 0.2))), scalar(t, param(1, 0.5)));
        return op::clamp(lin, 0.0, 1.0);
    }
    ctx.unsupported("activation '", act, "' is not supported");
}

// FusedConv: Conv [+ B per channel] [+ Z, a tensor of the output's shape] then the activation.
OutputVector fused_conv(const NodeContext& ctx) {
    Output y = build_conv(ctx, ctx.input(0), ctx.input(1));
    const int64_t rank = static_rank(ctx, y, "output");
    if (ctx.has_input(2)) y = op::add(y, per_channel(ctx.input(2), rank));
    if (ctx.has_input(3)) y = op::add(y, ctx.input(3));
    return one(fused_activation(ctx, y));
}

// FusedMatMul: alpha * op(A) @ op(B), op transposing the last two axes.
OutputVector fused_matmul(const NodeContext& ctx) {
    if (ctx.attr_int("transBatchA", 0) != 0 || ctx.attr_int("transBatchB", 0) != 0)
        ctx.unsupported("transBatchA / transBatchB are not supported");
    const Output& a = ctx.input(0);
    Output y =
        op::matmul(a, ctx.input(1), ctx.attr_int("transA", 0) != 0, ctx.attr_int("transB", 0) != 0);
    const double alpha = ctx.attr_float("alpha", 1.0);
    if (alpha != 1.0) y = op::multiply(y, scalar(a.get_element_type(), alpha));
    return one(y);
}

Output plus_optional(const NodeContext& ctx, Output x, size_t input) {
    return ctx.has_input(input) ? Output(op::add(x, ctx.input(input))) : x;
}

// The LayerNorm family over the trailing axes from `axis`: LayerNorm (mean removed) or RMSNorm
// (simplified: x / sqrt(mean(x²) + eps)), times gamma [plus beta].
struct Normalized {
    Output y, inv_std;
};
Normalized normalize(const NodeContext& ctx, const Output& x, int64_t axis, bool simplified,
                     const Output& gamma, const Output& beta) {
    const int64_t rank = static_rank(ctx, x);
    const Output axes = axes_range(normalize_axis(ctx, axis, rank), rank);
    const double eps = ctx.attr_float("epsilon", 1e-5);
    const auto t = x.get_element_type();
    Normalized n;
    if (simplified) {
        const Output ms = op::reduce_mean(op::multiply(x, x), axes, true);
        n.inv_std = op::divide(scalar(t, 1.0), op::sqrt(op::add(ms, scalar(t, eps))));
        n.y = op::multiply(x, n.inv_std);
    } else {
        n.y = op::mvn(x, axes, true, eps, "inside_sqrt");
    }
    n.y = op::multiply(n.y, gamma);
    if (beta) n.y = op::add(n.y, beta);
    return n;
}

// SimplifiedLayerNormalization (ORT's RMSNorm in the default domain; outputs Y, inv_std_var).
OutputVector simplified_layer_norm(const NodeContext& ctx) {
    const Normalized n =
        normalize(ctx, ctx.input(0), ctx.attr_int("axis", -1), true, ctx.input(1), Output());
    if (ctx.has_output(1)) return {n.y, n.inv_std};
    return one(n.y);
}

// SkipLayerNormalization / SkipSimplifiedLayerNormalization: s = input + skip [+ bias], normalised
// over the last axis; outputs (output, mean, inv_std_var, input_skip_bias_sum).
Translator skip_layer_norm(bool simplified) {
    return [simplified](const NodeContext& ctx) -> OutputVector {
        // Inputs: input, skip, gamma, beta (not in the simplified form), bias.
        const size_t bias_input = simplified ? 3 : 4;
        const Output sum = plus_optional(ctx, op::add(ctx.input(0), ctx.input(1)), bias_input);
        const Output beta = !simplified && ctx.has_input(3) ? ctx.input(3) : Output();
        const Normalized n = normalize(ctx, sum, -1, simplified, ctx.input(2), beta);
        OutputVector out{n.y, Output(), Output(), Output()};
        if (ctx.has_output(1) || ctx.has_output(2))
            ctx.unsupported("the mean and inv_std_var outputs are not supported");
        if (ctx.has_output(3)) out[3] = sum;
        out.resize(ctx.output_size());
        return out;
    };
}

Output gelu_tanh(const Output& x) {
    return op::gelu(x, "tanh");
}

}  // namespace

void register_microsoft(TranslatorRegistry& r) {
    r.add(kMs, "FusedConv", 1, fused_conv);
    r.add(kMs, "FusedMatMul", 1, fused_matmul);
    r.add(kMs, "Gelu", 1, [](const NodeContext& ctx) { return one(op::gelu(ctx.input(0))); });
    r.add(kMs, "BiasGelu", 1, [](const NodeContext& ctx) {
        return one(op::gelu(op::add(ctx.input(0), ctx.input(1))));
    });
    r.add(kMs, "FastGelu", 1, [](const NodeContext& ctx) {
        return one(gelu_tanh(plus_optional(ctx, ctx.input(0), 1)));
    });
    r.add(kMs, "QuickGelu", 1, [](const NodeContext& ctx) {
        const Output& x = ctx.input(0);
        const double alpha = ctx.attr_float("alpha", 1.702);
        return one(
            op::multiply(x, op::sigmoid(op::multiply(x, scalar(x.get_element_type(), alpha)))));
    });
    r.add(kMs, "SkipLayerNormalization", 1, skip_layer_norm(false));
    r.add(kMs, "SkipSimplifiedLayerNormalization", 1, skip_layer_norm(true));
    // ORT registers it in the default domain (as it does LayerNormalization before opset 17,
    // which nn.cpp registers from opset 1).
    r.add("", "SimplifiedLayerNormalization", 1, simplified_layer_norm);
}

}  // namespace vireo::onnx_import
