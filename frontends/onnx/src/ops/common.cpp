// Implements the translators' shared helpers.
#include "ops/common.hpp"

#include <limits>

namespace vireo::onnx_import {

Output ints(const std::vector<int64_t>& values) {
    return op::int64_vector(values);
}

Output scalar(element::Type type, double value) {
    return op::constant<double>(type, Shape{}, {value});
}

Output identity(const Output& x) {
    return op::convert(x, x.get_element_type());
}

int64_t static_rank(const NodeContext& ctx, const Output& x, const char* what) {
    const auto& shape = x.get_partial_shape();
    if (shape.rank().is_dynamic()) ctx.unsupported(what, " of dynamic rank is not supported here");
    return shape.rank().get_length();
}

Output with_rank(const NodeContext& ctx, const Output& x, int64_t rank, const char* what) {
    const auto& shape = x.get_partial_shape();
    if (shape.rank().is_static()) {
        if (shape.rank().get_length() != rank)
            ctx.fail(what, " must have rank ", rank, ", got ", shape);
        return x;
    }
    return op::reshape(x, ints(std::vector<int64_t>(static_cast<size_t>(rank), 0)), true);
}

int64_t normalize_axis(const NodeContext& ctx, int64_t axis, int64_t rank) {
    if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
        ctx.fail("axis ", axis, " is out of range for rank ", rank);
    return axis < 0 ? axis + rank : axis;
}

Output per_channel(const Output& v, int64_t rank, int64_t axis) {
    std::vector<int64_t> target(static_cast<size_t>(std::max<int64_t>(rank, 1)), 1);
    target[static_cast<size_t>(axis)] = -1;
    return op::reshape(v, ints(target), false);
}

std::pair<Output, Output> legacy_broadcast(const NodeContext& ctx, Output a, Output b) {
    if (ctx.opset() >= 7 || ctx.attr_int("broadcast", 0) == 0) return {a, b};
    const int64_t ra = static_rank(ctx, a, "A"), rb = static_rank(ctx, b, "B");
    int64_t axis =
        ctx.has_attribute("axis") ? normalize_axis(ctx, ctx.attr_int("axis"), ra) : ra - rb;
    const int64_t trailing = ra - axis - rb;
    if (trailing < 0)
        ctx.fail("B of rank ", rb, " does not fit A of rank ", ra, " from axis ", axis);
    if (trailing > 0) {
        std::vector<int64_t> axes;
        for (int64_t i = 0; i < trailing; ++i) axes.push_back(rb + i);
        b = op::unsqueeze(b, ints(axes));
    }
    return {a, b};
}

Output axes_range(int64_t begin, int64_t end) {
    std::vector<int64_t> axes;
    for (int64_t i = begin; i < end; ++i) axes.push_back(i);
    return ints(axes);
}

Output as_scalar(const Output& v) {
    const auto& shape = v.get_partial_shape();
    if (shape.rank().is_static() && shape.rank().get_length() == 1)
        return op::squeeze(v, ints({0}));
    return v;
}

std::string auto_pad(const NodeContext& ctx) {
    const std::string v = ctx.attr_string("auto_pad", "NOTSET");
    if (v == "NOTSET") return "explicit";
    if (v == "SAME_UPPER") return "same_upper";
    if (v == "SAME_LOWER") return "same_lower";
    if (v == "VALID") return "valid";
    ctx.fail("auto_pad '", v, "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
}

Output dims(const Output& x, int64_t begin, int64_t end) {
    const auto& shape = x.get_partial_shape();
    if (shape.is_static()) {
        std::vector<int64_t> values;
        for (int64_t i = begin; i < end; ++i)
            values.push_back(shape[static_cast<size_t>(i)].get_length());
        return ints(values);
    }
    return op::slice(op::shape_of(x), ints({begin}), ints({end}), ints({1}), ints({0}));
}

}  // namespace vireo::onnx_import
