// Translators for ONNX activations and the softmax family (Softmax, LogSoftmax, Hardmax), including
// the opset < 13 form that flattens to 2-D around `axis`.
#include <limits>

#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

Output zero_like(const Output& x) {
    return scalar(x.get_element_type(), 0.0);
}

OutputVector leaky_relu(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    return one(op::prelu(x, scalar(x.get_element_type(), ctx.attr_float("alpha", 0.01))));
}

OutputVector prelu(const NodeContext& ctx) {
    auto [x, slope] = legacy_broadcast(ctx, ctx.input(0), ctx.input(1));
    return one(op::prelu(x, slope));
}

OutputVector elu(const NodeContext& ctx) {
    return one(op::elu(ctx.input(0), ctx.attr_float("alpha", 1.0)));
}

OutputVector selu(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const double alpha = ctx.attr_float("alpha", 1.67326319217681884765625);
    const double gamma = ctx.attr_float("gamma", 1.05070102214813232421875);
    return one(op::multiply(op::elu(x, alpha), scalar(x.get_element_type(), gamma)));
}

OutputVector celu(const NodeContext& ctx) {
    // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
    const Output& x = ctx.input(0);
    const auto t = x.get_element_type();
    const double alpha = ctx.attr_float("alpha", 1.0);
    Output e = op::subtract(op::exp(op::divide(x, scalar(t, alpha))), scalar(t, 1.0));
    return one(op::add(op::maximum(x, zero_like(x)),
                       op::minimum(op::multiply(e, scalar(t, alpha)), zero_like(x))));
}

OutputVector thresholded_relu(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const auto t = x.get_element_type();
    return one(
        op::select(op::greater(x, scalar(t, ctx.attr_float("alpha", 1.0))), x, zero_like(x)));
}

OutputVector hard_sigmoid(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const auto t = x.get_element_type();
    Output lin = op::add(op::multiply(x, scalar(t, ctx.attr_float("alpha", 0.2))),
                         scalar(t, ctx.attr_float("beta", 0.5)));
    return one(op::minimum(op::maximum(lin, zero_like(x)), scalar(t, 1.0)));
}

OutputVector softsign(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    return one(op::divide(x, op::add(make_node("Abs", {x}), scalar(x.get_element_type(), 1.0))));
}

OutputVector shrink(const NodeContext& ctx) {
    // x < -lambd: x + bias; x > lambd: x - bias; else 0 (in x's type).
    const Output& x = ctx.input(0);
    const auto t = x.get_element_type();
    const double lambd = ctx.attr_float("lambd", 0.5), bias = ctx.attr_float("bias", 0.0);
    Output low =
        op::select(op::less(x, scalar(t, -lambd)), op::add(x, scalar(t, bias)), zero_like(x));
    return one(op::select(op::greater(x, scalar(t, lambd)), op::subtract(x, scalar(t, bias)), low));
}

OutputVector clip(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const auto t = x.get_element_type();
    if (ctx.opset() < 11) {
        const double lo = ctx.attr_float("min", -std::numeric_limits<double>::infinity());
        const double hi = ctx.attr_float("max", std::numeric_limits<double>::infinity());
        return one(op::minimum(op::maximum(x, scalar(t, lo)), scalar(t, hi)));
    }
    Output y = x;
    if (ctx.has_input(1)) y = op::maximum(y, ctx.input(1));
    if (ctx.has_input(2)) y = op::minimum(y, ctx.input(2));
    return one(y == x ? identity(x) : y);
}

// Softmax-1..12 (and friends): the input is coerced to 2-D [prod(d[:axis]), prod(d[axis:])], the
// op runs over axis 1, and the result takes the input's shape back.
Translator softmax_like(const std::string& kind) {
    return [kind](const NodeContext& ctx) {
        const Output& x = ctx.input(0);
        const int64_t rank = static_rank(ctx, x);
        auto apply = [&](const Output& v, int64_t axis) -> Output {
            if (kind == "Softmax") return op::softmax(v, axis);
            if (kind == "LogSoftmax") return op::log_softmax(v, axis);
            // Hardmax: 1 at the first maximum along axis, 0 elsewhere.
            auto k = op::topk(v, op::int64_scalar(1), axis, "max", "index", element::i64, true);
            Output index = k->output(1);
            const auto t = v.get_element_type();
            auto depth = op::gather(op::shape_of(v), ints({axis}), op::int64_scalar(0));
            auto hot = make_node("OneHot",
                                 {op::squeeze(index, ints({axis})), op::squeeze(depth, ints({0})),
                                  scalar(t, 1.0), scalar(t, 0.0)},
                                 {{"axis", axis}});
            return hot;
        };
        if (ctx.opset() >= 13)
            return one(apply(x, normalize_axis(ctx, ctx.attr_int("axis", -1), rank)));
        const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 1), rank);
        if (axis == rank - 1) return one(apply(x, axis));
        auto flat = op::reshape(
            x,
            op::concat({op::reduce(("ReduceProd"), dims(x, 0, axis), ints({0}), true), ints({-1})},
                       0),
            false);
        if (axis == 0) flat = op::reshape(x, ints({1, -1}), false);
        return one(op::reshape(apply(flat, 1), op::shape_of(x), false));
    };
}

}  // namespace

void register_activations(TranslatorRegistry& r) {
    r.add("", "Relu", 1, [](const NodeContext& ctx) { return one(op::relu(ctx.input(0))); });
    r.add("", "Sigmoid", 1, [](const NodeContext& ctx) { return one(op::sigmoid(ctx.input(0))); });
    r.add("", "Tanh", 1, [](const NodeContext& ctx) { return one(op::tanh(ctx.input(0))); });
    r.add("", "Softplus", 1,
          [](const NodeContext& ctx) { return one(make_node("SoftPlus", {ctx.input(0)})); });
    r.add("", "HardSwish", 14,
          [](const NodeContext& ctx) { return one(make_node("HSwish", {ctx.input(0)})); });
    r.add("", "Mish", 18,
          [](const NodeContext& ctx) { return one(make_node("Mish", {ctx.input(0)})); });
    r.add("", "Gelu", 20, [](const NodeContext& ctx) {
        const std::string approximate = ctx.attr_string("approximate", "none");
        if (approximate != "none" && approximate != "tanh")
            ctx.fail("approximate must be 'none' or 'tanh', got '", approximate, "'");
        return one(op::gelu(ctx.input(0), approximate == "tanh" ? "tanh" : "erf"));
    });
    r.add("", "LeakyRelu", 1, leaky_relu);
    r.add("", "PRelu", 1, prelu);
    r.add("", "Elu", 1, elu);
    r.add("", "Selu", 1, selu);
    r.add("", "Celu", 12, celu);
    r.add("", "ThresholdedRelu", 10, thresholded_relu);
    r.add("", "HardSigmoid", 1, hard_sigmoid);
    r.add("", "Softsign", 1, softsign);
    r.add("", "Shrink", 9, shrink);
    r.add("", "Clip", 1, clip);
    r.add("", "Softmax", 1, softmax_like("Softmax"));
    r.add("", "LogSoftmax", 1, softmax_like("LogSoftmax"));
    r.add("", "Hardmax", 1, softmax_like("Hardmax"));
}

}  // namespace vireo::onnx_import
