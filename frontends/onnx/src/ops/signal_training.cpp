// Translators built from elementwise ops alone: the window functions (HannWindow, HammingWindow,
// BlackmanWindow) and the optimizer steps of ai.onnx.preview.training (Adagrad, Momentum, Adam).
#include <cmath>

#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

// sum_k a_k cos(2 pi k n / N) for n in [0, size), N = size (periodic) or size - 1 (symmetric).
Translator window(std::vector<double> coefficients) {
    return [coefficients](const NodeContext& ctx) {
        const auto out_type = to_element_type(
            static_cast<int32_t>(ctx.attr_int("output_datatype", onnx::TensorProto::FLOAT)),
            ctx.describe() + " output_datatype");
        const bool periodic = ctx.attr_int("periodic", 1) != 0;
        Output size = op::convert(as_scalar(ctx.input(0)), element::f64);
        Output n =
            op::range(scalar(element::f64, 0.0), size, scalar(element::f64, 1.0), element::f64);
        Output denom = periodic ? size : Output(op::subtract(size, scalar(element::f64, 1.0)));
        Output phase = op::divide(op::multiply(n, scalar(element::f64, 2.0 * M_PI)), denom);
        Output w = scalar(element::f64, coefficients[0]);
        for (size_t k = 1; k < coefficients.size(); ++k)
            w = op::add(
                w, op::multiply(
                       op::unary("Cos",
                                 op::multiply(phase, scalar(element::f64, static_cast<double>(k)))),
                       scalar(element::f64, coefficients[k])));
        return one(op::convert(w, out_type));
    };
}

// Inputs of the optimizers: R, T, then `groups` equal-length runs of tensors.
std::vector<OutputVector> runs(const NodeContext& ctx, size_t groups) {
    const size_t rest = ctx.input_size() - 2;
    if (rest == 0 || rest % groups)
        ctx.fail("expected R, T and ", groups, " equal groups of tensors, got ", ctx.input_size(),
                 " inputs");
    const size_t n = rest / groups;
    std::vector<OutputVector> out(groups);
    for (size_t g = 0; g < groups; ++g)
        for (size_t i = 0; i < n; ++i) out[g].push_back(ctx.input(2 + g * n + i));
    return out;
}

Output as(const Output& v, element::Type t) {
    return v.get_element_type() == t ? v : Output(op::convert(v, t));
}

OutputVector adagrad(const NodeContext& ctx) {
    auto in = runs(ctx, 3);  // X, G, H
    const double decay = ctx.attr_float("decay_factor", 0.0), eps = ctx.attr_float("epsilon", 1e-6),
                 norm = ctx.attr_float("norm_coefficient", 0.0);
    OutputVector xs, hs;
    for (size_t i = 0; i < in[0].size(); ++i) {
        const Output &x = in[0][i], g = in[1][i], h = in[2][i];
        const auto t = x.get_element_type();
        Output r = op::divide(
            as(ctx.input(0), t),
            op::add(scalar(t, 1.0), op::multiply(as(ctx.input(1), t), scalar(t, decay))));
        Output greg = op::add(op::multiply(x, scalar(t, norm)), g);
        Output h_new = op::add(h, op::multiply(greg, greg));
        Output adaptive = op::add(op::sqrt(h_new), scalar(t, eps));
        xs.push_back(op::subtract(x, op::divide(op::multiply(r, greg), adaptive)));
        hs.push_back(h_new);
    }
    xs.insert(xs.end(), hs.begin(), hs.end());
    return xs;
}

OutputVector momentum(const NodeContext& ctx) {
    auto in = runs(ctx, 3);  // X, G, V
    const double alpha = ctx.attr_float("alpha", 0.0), beta = ctx.attr_float("beta", 0.0),
                 norm = ctx.attr_float("norm_coefficient", 0.0);
    const std::string mode = ctx.attr_string("mode", "standard");
    if (mode != "standard" && mode != "nesterov")
        ctx.fail("mode '", mode, "' is not standard or nesterov");
    OutputVector xs, vs;
    for (size_t i = 0; i < in[0].size(); ++i) {
        const Output &x = in[0][i], g = in[1][i], v = in[2][i];
        const auto t = x.get_element_type();
        Output r = as(ctx.input(0), t);
        // The first step (T == 0) takes the whole gradient: beta is 1 there.
        Output beta_adj =
            op::select(op::greater(ctx.input(1), scalar(ctx.input(1).get_element_type(), 0.0)),
                       scalar(t, beta), scalar(t, 1.0));
        Output greg = op::add(op::multiply(x, scalar(t, norm)), g);
        Output v_new = op::add(op::multiply(v, scalar(t, alpha)), op::multiply(greg, beta_adj));
        Output step = mode == "standard"
                          ? v_new
                          : Output(op::add(greg, op::multiply(v_new, scalar(t, alpha))));
        xs.push_back(op::subtract(x, op::multiply(r, step)));
        vs.push_back(v_new);
    }
    xs.insert(xs.end(), vs.begin(), vs.end());
    return xs;
}

OutputVector adam(const NodeContext& ctx) {
    auto in = runs(ctx, 4);  // X, G, V, H
    const double alpha = ctx.attr_float("alpha", 0.9), beta = ctx.attr_float("beta", 0.999),
                 eps = ctx.attr_float("epsilon", 1e-6),
                 norm = ctx.attr_float("norm_coefficient", 0.0),
                 norm_post = ctx.attr_float("norm_coefficient_post", 0.0);
    OutputVector xs, vs, hs;
    for (size_t i = 0; i < in[0].size(); ++i) {
        const Output &x = in[0][i], g = in[1][i], v = in[2][i], h = in[3][i];
        const auto t = x.get_element_type();
        Output r = as(ctx.input(0), t), step_count = as(ctx.input(1), t);
        Output greg = op::add(op::multiply(x, scalar(t, norm)), g);
        Output v_new =
            op::add(op::multiply(v, scalar(t, alpha)), op::multiply(greg, scalar(t, 1.0 - alpha)));
        Output h_new = op::add(op::multiply(h, scalar(t, beta)),
                               op::multiply(op::multiply(greg, greg), scalar(t, 1.0 - beta)));
        Output h_sqrt = op::add(op::sqrt(h_new), scalar(t, eps));
        // Bias correction from the second step on: R * sqrt(1 - beta^T) / (1 - alpha^T).
        Output corrected = op::divide(
            op::multiply(
                r, op::sqrt(op::subtract(scalar(t, 1.0), op::power(scalar(t, beta), step_count)))),
            op::subtract(scalar(t, 1.0), op::power(scalar(t, alpha), step_count)));
        Output r_adj = op::select(op::greater(step_count, scalar(t, 0.0)), corrected, r);
        Output x_new = op::subtract(x, op::divide(op::multiply(r_adj, v_new), h_sqrt));
        xs.push_back(op::multiply(x_new, scalar(t, 1.0 - norm_post)));
        vs.push_back(v_new);
        hs.push_back(h_new);
    }
    xs.insert(xs.end(), vs.begin(), vs.end());
    xs.insert(xs.end(), hs.begin(), hs.end());
    return xs;
}

}  // namespace

void register_signal_training(TranslatorRegistry& r) {
    r.add("", "HannWindow", 17, window({0.5, -0.5}));
    r.add("", "HammingWindow", 17, window({25.0 / 46.0, -21.0 / 46.0}));
    r.add("", "BlackmanWindow", 17, window({0.42, -0.5, 0.08}));
    r.add("ai.onnx.preview.training", "Adagrad", 1, adagrad);
    r.add("ai.onnx.preview.training", "Momentum", 1, momentum);
    r.add("ai.onnx.preview.training", "Adam", 1, adam);
}

}  // namespace vireo::onnx_import
