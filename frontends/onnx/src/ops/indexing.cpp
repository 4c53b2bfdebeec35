// Translators for ONNX's indexing ops: Gather(Elements/ND), Scatter(Elements/ND), OneHot, NonZero,
// Compress, TopK, CumSum, ReverseSequence and Einsum.
#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

// Gather-7, not -8: ONNX calls an index out of range an error, which the reference kernel
// raises for v7, where v8 defines zeros.
Output gather_v7(const Output& data, const Output& indices, int64_t axis) {
    return make_node("Gather", {data, indices, op::int64_scalar(axis)}, {{"batch_dims", 0}}, 7)
        ->output(0);
}

OutputVector gather(const NodeContext& ctx) {
    return one(gather_v7(ctx.input(0), ctx.input(1), ctx.attr_int("axis", 0)));
}

OutputVector gather_elements(const NodeContext& ctx) {
    return one(op::gather_elements(ctx.input(0), ctx.input(1), ctx.attr_int("axis", 0)));
}

OutputVector gather_nd(const NodeContext& ctx) {
    return one(make_node("GatherND", {ctx.input(0), ctx.input(1)},
                         {{"batch_dims", ctx.attr_int("batch_dims", 0)}}, 8));
}

std::string reduction(const NodeContext& ctx) {
    const std::string r = ctx.attr_string("reduction", "none");
    if (r == "none" || r == "add" || r == "mul" || r == "max" || r == "min")
        return r == "add" ? "sum" : r == "mul" ? "prod" : r;
    ctx.fail("reduction '", r, "' is not none, add, mul, max or min");
}

OutputVector scatter_nd(const NodeContext& ctx) {
    const std::string r = reduction(ctx);
    OutputVector in{ctx.input(0), ctx.input(1), ctx.input(2)};
    if (r == "none") return one(make_node("ScatterNDUpdate", in));
    return one(make_node("ScatterNDUpdate", in, {{"reduction", r}}, 15));
}

OutputVector scatter_elements(const NodeContext& ctx) {
    const std::string r = reduction(ctx);
    OutputVector in{ctx.input(0), ctx.input(1), ctx.input(2),
                    op::int64_scalar(ctx.attr_int("axis", 0))};
    if (r == "none") return one(make_node("ScatterElementsUpdate", in, {}, 3));
    return one(
        make_node("ScatterElementsUpdate", in, {{"reduction", r}, {"use_init_val", true}}, 12));
}

OutputVector one_hot(const NodeContext& ctx) {
    const Output& values = ctx.input(2);
    auto off_on = op::split(values, op::int64_scalar(0), 2);
    Output off = op::squeeze(off_on->output(0), ints({0}));
    Output on = op::squeeze(off_on->output(1), ints({0}));
    Output depth = op::convert(as_scalar(ctx.input(1)), element::i64);
    Output indices = ctx.input(0);
    if (!indices.get_element_type().is_integral_number())
        indices = op::convert(indices, element::i64);
    return one(
        make_node("OneHot", {indices, depth, on, off}, {{"axis", ctx.attr_int("axis", -1)}}));
}

OutputVector non_zero(const NodeContext& ctx) {
    return one(
        make_node("NonZero", {ctx.input(0)}, {{"output_type", element::Type(element::i64)}}));
}

OutputVector compress(const NodeContext& ctx) {
    // Gather the positions where the condition holds (a condition shorter than the axis selects
    // only among its first entries; a longer one is an error: here when both lengths are known,
    // else at run time when a true entry lies past the axis, from Gather-7's range check).
    Output x = ctx.input(0);
    if (!ctx.has_attribute("axis")) {
        x = op::reshape(x, ints({-1}), false);
    }
    const auto& shape = x.get_partial_shape();
    const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 0), static_rank(ctx, x, "data"));
    const auto& condition = ctx.input(1).get_partial_shape();
    if (condition.rank().is_static() && condition.rank().get_length() == 1 &&
        condition[0].is_static() && shape[static_cast<size_t>(axis)].is_static() &&
        condition[0].get_length() > shape[static_cast<size_t>(axis)].get_length())
        ctx.fail("condition has ", condition[0].get_length(), " entries, more than the ",
                 shape[static_cast<size_t>(axis)].get_length(), " of axis ", axis,
                 ctx.has_attribute("axis") ? "" : " of the flattened input");
    Output nz =
        make_node("NonZero", {ctx.input(1)}, {{"output_type", element::Type(element::i64)}});
    Output positions = op::squeeze(nz, ints({0}));
    return one(gather_v7(x, positions, axis));
}

OutputVector topk(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const int64_t rank = static_rank(ctx, x);
    const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", -1), rank);
    Output k =
        ctx.opset() < 10 ? Output(op::int64_scalar(ctx.attr_int("k"))) : as_scalar(ctx.input(1));
    const bool largest = ctx.attr_int("largest", 1) != 0;
    const bool sorted = ctx.attr_int("sorted", 1) != 0;
    auto node = op::topk(x, k, axis, largest ? "max" : "min", sorted ? "value" : "none",
                         element::i64, true);
    return {node->output(0), node->output(1)};
}

OutputVector cum_sum(const NodeContext& ctx) {
    return one(make_node("CumSum", {ctx.input(0), as_scalar(ctx.input(1))},
                         {{"exclusive", ctx.attr_int("exclusive", 0) != 0},
                          {"reverse", ctx.attr_int("reverse", 0) != 0}}));
}

OutputVector reverse_sequence(const NodeContext& ctx) {
    return one(make_node("ReverseSequence", {ctx.input(0), ctx.input(1)},
                         {{"batch_axis", ctx.attr_int("batch_axis", 1)},
                          {"seq_axis", ctx.attr_int("time_axis", 0)}}));
}

OutputVector einsum(const NodeContext& ctx) {
    std::string equation = ctx.attr_string("equation", "");
    std::string compact;
    for (char c : equation)
        if (c != ' ') compact += c;
    return one(op::einsum(ctx.inputs(), compact));
}

}  // namespace

void register_indexing(TranslatorRegistry& r) {
    r.add("", "Gather", 1, gather);
    r.add("", "GatherElements", 11, gather_elements);
    r.add("", "GatherND", 11, gather_nd);
    r.add("", "ScatterND", 11, scatter_nd);
    r.add("", "ScatterElements", 11, scatter_elements);
    r.add("", "Scatter", 9, scatter_elements);
    r.add("", "OneHot", 9, one_hot);
    r.add("", "NonZero", 9, non_zero);
    r.add("", "Compress", 9, compress);
    r.add("", "TopK", 1, topk);
    r.add("", "CumSum", 11, cum_sum);
    r.add("", "ReverseSequence", 10, reverse_sequence);
    r.add("", "Einsum", 12, einsum);
}

}  // namespace vireo::onnx_import
