// Translators for ONNX's losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, built from
// GatherElements, Select and reductions (weights and ignore_index as the spec defines them).
#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

Output all_axes_sum(const NodeContext& ctx, const Output& v) {
    const int64_t rank = static_rank(ctx, v);
    return rank == 0 ? v : Output(op::reduce("ReduceSum", v, axes_range(0, rank), false));
}

// loss[n, d...] = -input[n, target[n, d...], d...] * weight[target]; 0 where target ==
// ignore_index.
Output nll(const NodeContext& ctx, const Output& input, const Output& target,
           const Output& weight) {
    const auto t = input.get_element_type();
    Output labels = op::convert(target, element::i64);
    Output mask;
    if (ctx.has_attribute("ignore_index")) {
        mask = op::compare("NotEqual", labels, op::int64_scalar(ctx.attr_int("ignore_index")));
        labels = op::select(mask, labels, op::int64_scalar(0));
    }
    Output picked =
        op::squeeze(op::gather_elements(input, op::unsqueeze(labels, ints({1})), 1), ints({1}));
    Output w;
    if (weight) w = op::gather(weight, labels, op::int64_scalar(0));
    if (mask) w = op::select(mask, w ? w : scalar(t, 1.0), scalar(t, 0.0));
    Output loss = op::unary("Negative", picked);
    if (w) loss = op::multiply(loss, w);
    const std::string reduction = ctx.attr_string("reduction", "mean");
    if (reduction == "none") return loss;
    if (reduction == "sum") return all_axes_sum(ctx, loss);
    if (reduction != "mean") ctx.fail("reduction '", reduction, "' is not none, sum or mean");
    if (!w) {
        return op::reduce_mean(loss, axes_range(0, static_rank(ctx, loss)), false);
    }
    Output total_w = all_axes_sum(ctx, op::broadcast(w, op::shape_of(loss)));
    return op::divide(all_axes_sum(ctx, loss), total_w);
}

OutputVector nll_loss(const NodeContext& ctx) {
    return one(nll(ctx, ctx.input(0), ctx.input(1), ctx.has_input(2) ? ctx.input(2) : Output()));
}

OutputVector softmax_cross_entropy(const NodeContext& ctx) {
    Output log_prob = op::log_softmax(ctx.input(0), 1);
    Output loss = nll(ctx, log_prob, ctx.input(1), ctx.has_input(2) ? ctx.input(2) : Output());
    return {loss, ctx.has_output(1) ? identity(log_prob) : Output()};
}

}  // namespace

void register_losses(TranslatorRegistry& r) {
    r.add("", "NegativeLogLikelihoodLoss", 12, nll_loss);
    r.add("", "SoftmaxCrossEntropyLoss", 12, softmax_cross_entropy);
}

}  // namespace vireo::onnx_import
