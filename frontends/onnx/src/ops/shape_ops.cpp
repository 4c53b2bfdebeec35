// Translators for ONNX's shape and data-movement ops: Reshape, Flatten, Transpose, Squeeze,
// Unsqueeze, Concat, Split, Slice, Shape, Size, Expand, Tile, Pad, Constant(OfShape), Identity,
// Range, DepthToSpace/SpaceToDepth, Trilu and EyeLike.
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

OutputVector reshape(const NodeContext& ctx) {
    Output shape = ctx.opset() < 5 ? ints(ctx.attr_ints("shape")) : ctx.input(1);
    const bool allow_zero = ctx.attr_int("allowzero", 0) != 0;
    return one(op::reshape(ctx.input(0), shape, !allow_zero));
}

OutputVector flatten(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const int64_t rank = static_rank(ctx, x);
    int64_t axis = ctx.attr_int("axis", 1);
    if (axis < -rank || axis > rank) ctx.fail("axis ", axis, " is out of range for rank ", rank);
    if (axis < 0) axis += rank;
    // Both sides are computed products, never -1: with an empty outer part (detections after a
    // score threshold, [0, 1, 4] with axis 1) -1 cannot be inferred and would give [0, 0].
    auto product_of = [&](int64_t from, int64_t to) {
        return from == to ? ints({1})
                          : op::reduce("ReduceProd", dims(x, from, to), ints({0}), true);
    };
    return one(op::reshape(x, op::concat({product_of(0, axis), product_of(axis, rank)}, 0), false));
}

OutputVector transpose(const NodeContext& ctx) {
    const auto perm = ctx.attr_ints("perm");
    return one(op::transpose(ctx.input(0), ints(perm)));  // empty order reverses the axes
}

Output axes_input(const NodeContext& ctx, size_t input, const char* attr, bool& present) {
    if (ctx.opset() >= 13) {
        present = ctx.has_input(input);
        return present ? ctx.input(input) : Output();
    }
    present = ctx.has_attribute(attr);
    return present ? ints(ctx.attr_ints(attr)) : Output();
}

OutputVector squeeze(const NodeContext& ctx) {
    bool present = false;
    Output axes = axes_input(ctx, 1, "axes", present);
    return one(present ? op::squeeze(ctx.input(0), axes) : op::squeeze(ctx.input(0)));
}

OutputVector unsqueeze(const NodeContext& ctx) {
    bool present = false;
    Output axes = axes_input(ctx, 1, "axes", present);
    if (!present) ctx.fail("axes are required");
    return one(op::unsqueeze(ctx.input(0), axes));
}

OutputVector concat(const NodeContext& ctx) {
    OutputVector parts;
    for (size_t i = 0; i < ctx.input_size(); ++i)
        if (ctx.has_input(i)) parts.push_back(ctx.input(i));
    return one(op::concat(parts, ctx.attr_int("axis", ctx.opset() < 4 ? 1 : 0)));
}

// Split-18 without a split input: num_outputs chunks of ceil(d / n), the last one smaller when n
// does not divide d ("the last chunk will be smaller"); an empty Output when n divides a static d
// (plain Split). A dynamic d gets the lengths computed from its shape.
Output uneven_split_lengths(const NodeContext& ctx, const Output& x, int64_t axis, int64_t n) {
    if (ctx.has_attribute("num_outputs") && ctx.attr_int("num_outputs") != n)
        ctx.fail("num_outputs is ", ctx.attr_int("num_outputs"), " but the node has ", n,
                 " outputs");
    const int64_t rank = static_rank(ctx, x);
    const int64_t a = normalize_axis(ctx, axis, rank);
    const auto& dim = x.get_partial_shape()[static_cast<size_t>(a)];
    if (dim.is_static()) {
        const int64_t d = dim.get_length();
        if (d % n == 0) return {};
        const int64_t chunk = (d + n - 1) / n;
        std::vector<int64_t> v(static_cast<size_t>(n - 1), chunk);
        v.push_back(d - chunk * (n - 1));
        if (v.back() < 0)
            ctx.fail("dimension ", d, " of axis ", a, " cannot give ", n, " chunks of ", chunk);
        return ints(v);
    }
    const Output d = dims(x, a, a + 1);
    const Output chunk = op::divide(op::add(d, ints({n - 1})), ints({n}));
    const Output last = op::subtract(d, op::multiply(chunk, ints({n - 1})));
    if (n == 1) return last;
    return op::concat({op::broadcast(chunk, ints({n - 1})), last}, 0);
}

OutputVector split(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const int64_t axis = ctx.attr_int("axis", 0);
    const auto n = static_cast<int64_t>(ctx.output_size());
    Output lengths;
    if (ctx.opset() >= 13 && ctx.has_input(1))
        lengths = ctx.input(1);
    else if (ctx.opset() < 13 && ctx.has_attribute("split"))
        lengths = ints(ctx.attr_ints("split"));
    else if (ctx.opset() < 2 && ctx.has_input(1))
        lengths = ctx.input(1);
    if (!lengths && ctx.opset() >= 18) lengths = uneven_split_lengths(ctx, x, axis, n);
    NodePtr node = lengths ? op::variadic_split(x, op::int64_scalar(axis), lengths)
                           : op::split(x, op::int64_scalar(axis), n);
    return node->outputs();
}

OutputVector slice(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    if (ctx.opset() < 10) {
        const auto starts = ctx.attr_ints("starts"), ends = ctx.attr_ints("ends");
        auto axes = ctx.attr_ints("axes");
        if (axes.empty())
            for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
        return one(op::slice(x, ints(starts), ints(ends),
                             ints(std::vector<int64_t>(starts.size(), 1)), ints(axes)));
    }
    Output starts = ctx.input(1), ends = ctx.input(2);
    Output steps = ctx.has_input(4) ? ctx.input(4) : Output();
    if (!steps)
        steps =
            op::broadcast(op::constant(starts.get_element_type(), Shape{}, std::vector<int64_t>{1}),
                          op::shape_of(starts));
    Output axes = ctx.has_input(3) ? ctx.input(3) : Output();
    return one(axes ? op::slice(x, starts, ends, steps, axes) : op::slice(x, starts, ends, steps));
}

OutputVector shape(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    Output s = op::shape_of(x);
    if (ctx.opset() >= 15 && (ctx.has_attribute("start") || ctx.has_attribute("end"))) {
        const int64_t start = ctx.attr_int("start", 0);
        const int64_t end = ctx.attr_int("end", std::numeric_limits<int64_t>::max());
        s = op::slice(s, ints({start}), ints({end}), ints({1}), ints({0}));
    }
    return one(s);
}

OutputVector size(const NodeContext& ctx) {
    return one(op::reduce("ReduceProd", op::shape_of(ctx.input(0)), ints({0}), false));
}

OutputVector expand(const NodeContext& ctx) {
    return one(op::broadcast(ctx.input(0), ctx.input(1), "bidirectional"));
}

OutputVector tile(const NodeContext& ctx) {
    return one(op::tile(ctx.input(0), ctx.input(1)));
}

// Pad-18's axes input (constant; negative counts from the end): the pads given per listed axis
// become pads over every axis, zero for the others.
std::pair<Output, Output> pads_of_axes(const NodeContext& ctx, const Output& x, const Output& begin,
                                       const Output& end) {
    const auto axes = ctx.const_ints(3);
    if (!axes) ctx.unsupported("an axes input computed at run time is not supported");
    const int64_t rank = static_rank(ctx, x);
    std::vector<int64_t> position(static_cast<size_t>(rank), -1);
    for (size_t j = 0; j < axes->size(); ++j) {
        const int64_t a = normalize_axis(ctx, (*axes)[j], rank);
        if (position[static_cast<size_t>(a)] >= 0) ctx.fail("axis ", a, " is listed twice");
        position[static_cast<size_t>(a)] = static_cast<int64_t>(j);
    }
    // Index `axes.size()` of the pads extended by one zero is the zero of unlisted axes.
    const auto n = static_cast<int64_t>(axes->size());
    std::vector<int64_t> index(static_cast<size_t>(rank));
    for (size_t i = 0; i < index.size(); ++i) index[i] = position[i] >= 0 ? position[i] : n;
    const auto spread = [&](const Output& half) {
        const Output zero =
            op::constant(half.get_element_type(), Shape{1}, std::vector<int64_t>{0});
        return Output(op::gather(op::concat({half, zero}, 0), ints(index), op::int64_scalar(0)));
    };
    return {spread(begin), spread(end)};
}

OutputVector pad(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    std::string mode = ctx.attr_string("mode", "constant");
    if (mode != "constant" && mode != "reflect" && mode != "edge")
        ctx.fail("mode '", mode, "' is unknown");
    Output begin, end, value;
    if (ctx.opset() < 11) {
        const auto pads = ctx.attr_ints(ctx.opset() < 2 ? "paddings" : "pads");
        if (pads.size() % 2) ctx.fail("pads has an odd number of values");
        const auto half = static_cast<long>(pads.size() / 2);
        begin = ints({pads.begin(), pads.begin() + half});
        end = ints({pads.begin() + half, pads.end()});
        value = scalar(x.get_element_type(), ctx.attr_float("value", 0.0));
    } else {
        auto halves = op::split(ctx.input(1), op::int64_scalar(0), 2);
        begin = halves->output(0);
        end = halves->output(1);
        if (ctx.has_input(2)) value = ctx.input(2);
        if (ctx.has_input(3)) std::tie(begin, end) = pads_of_axes(ctx, x, begin, end);
    }
    if (mode != "constant") value = Output();
    return one(op::pad(x, begin, end, mode, value));
}

OutputVector constant(const NodeContext& ctx) {
    if (ctx.has_attribute("value")) return one(op::constant(ctx.attr_tensor("value")));
    if (ctx.has_attribute("value_float"))
        return one(op::constant<double>(element::f32, Shape{}, {ctx.attr_float("value_float", 0)}));
    if (ctx.has_attribute("value_floats")) {
        auto v = ctx.attr_floats("value_floats");
        return one(op::constant<double>(element::f32, Shape{v.size()}, v));
    }
    if (ctx.has_attribute("value_int"))
        return one(op::constant<int64_t>(element::i64, Shape{}, {ctx.attr_int("value_int")}));
    if (ctx.has_attribute("value_ints")) {
        auto v = ctx.attr_ints("value_ints");
        return one(op::constant<int64_t>(element::i64, Shape{v.size()}, v));
    }
    if (ctx.has_attribute("sparse_value")) ctx.unsupported("sparse_value is not supported");
    if (ctx.has_attribute("value_string") || ctx.has_attribute("value_strings"))
        ctx.unsupported("string constants are not supported");
    ctx.fail("no value attribute");
}

OutputVector constant_of_shape(const NodeContext& ctx) {
    Output value = ctx.has_attribute("value") ? Output(op::constant(ctx.attr_tensor("value")))
                                              : scalar(element::f32, 0.0);
    if (value.get_partial_shape().rank().get_length() != 0)
        value = op::reshape(value, ints({}), false);
    return one(op::broadcast(value, ctx.input(0)));
}

OutputVector range(const NodeContext& ctx) {
    const auto t = ctx.input(0).get_element_type();
    return one(op::range(ctx.input(0), ctx.input(1), ctx.input(2), t));
}

Translator space_depth(const std::string& core) {
    return [core](const NodeContext& ctx) {
        const int64_t block = ctx.attr_int("blocksize");
        std::string mode = "blocks_first";
        if (core == "DepthToSpace")
            mode = ctx.attr_string("mode", "DCR") == "CRD" ? "depth_first" : "blocks_first";
        return one(make_node(core, {ctx.input(0)}, {{"block_size", block}, {"mode", mode}}));
    };
}

OutputVector trilu(const NodeContext& ctx) {
    // Keeps x where (col - row) >= k (upper) or <= k (lower), zero elsewhere, over the last two
    // axes.
    const Output& x = ctx.input(0);
    const int64_t rank = static_rank(ctx, x);
    if (rank < 2) ctx.fail("input must have rank >= 2, got ", rank);
    const bool upper = ctx.attr_int("upper", 1) != 0;
    Output k = ctx.has_input(1) ? ctx.input(1) : Output(op::int64_scalar(0));
    Output rows = op::squeeze(dims(x, rank - 2, rank - 1), ints({0}));
    Output cols = op::squeeze(dims(x, rank - 1, rank), ints({0}));
    Output r = op::unsqueeze(
        op::range(op::int64_scalar(0), rows, op::int64_scalar(1), element::i64), ints({1}));
    Output c = op::unsqueeze(
        op::range(op::int64_scalar(0), cols, op::int64_scalar(1), element::i64), ints({0}));
    Output diff = op::subtract(c, r);
    Output mask = upper ? Output(op::compare("GreaterEqual", diff, k))
                        : Output(op::compare("LessEqual", diff, k));
    return one(op::select(mask, x, scalar(x.get_element_type(), 0.0)));
}

OutputVector eye_like(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    if (static_rank(ctx, x) != 2) ctx.fail("input must be 2-D");
    element::Type t = x.get_element_type();
    if (ctx.has_attribute("dtype"))
        t = to_element_type(static_cast<int32_t>(ctx.attr_int("dtype")), ctx.describe());
    const int64_t k = ctx.attr_int("k", 0);
    Output r = op::unsqueeze(op::range(op::int64_scalar(0), op::squeeze(dims(x, 0, 1), ints({0})),
                                       op::int64_scalar(1), element::i64),
                             ints({1}));
    Output c = op::unsqueeze(op::range(op::int64_scalar(0), op::squeeze(dims(x, 1, 2), ints({0})),
                                       op::int64_scalar(1), element::i64),
                             ints({0}));
    Output on = op::equal(op::subtract(c, r), op::int64_scalar(k));
    return one(op::select(on, scalar(t, 1.0), scalar(t, 0.0)));
}

}  // namespace

void register_shape_ops(TranslatorRegistry& r) {
    r.add("", "Reshape", 1, reshape);
    r.add("", "Flatten", 1, flatten);
    r.add("", "Transpose", 1, transpose);
    r.add("", "Squeeze", 1, squeeze);
    r.add("", "Unsqueeze", 1, unsqueeze);
    r.add("", "Concat", 1, concat);
    r.add("", "Split", 1, split);
    r.add("", "Slice", 1, slice);
    r.add("", "Shape", 1, shape);
    r.add("", "Size", 1, size);
    r.add("", "Expand", 8, expand);
    r.add("", "Tile", 6, tile);
    r.add("", "Pad", 1, pad);
    r.add("", "Constant", 1, constant);
    r.add("", "ConstantOfShape", 9, constant_of_shape);
    r.add("", "Identity", 1, [](const NodeContext& ctx) { return one(identity(ctx.input(0))); });
    r.add("", "Range", 11, range);
    r.add("", "DepthToSpace", 1, space_depth("DepthToSpace"));
    r.add("", "SpaceToDepth", 1, space_depth("SpaceToDepth"));
    r.add("", "Trilu", 14, trilu);
    r.add("", "EyeLike", 9, eye_like);
}

}  // namespace vireo::onnx_import
