// Translators for ONNX's reductions (axes as an attribute, or as an input from ReduceSum-13 and the
// others' opset 18, with noop_with_empty_axes) and ArgMax/ArgMin.
#include <limits>

#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

// A run-time `axes` input that may turn out empty: ONNX then reduces every axis, while the core
// reductions reduce none. Concat(axes, Range(0, rank if axes is empty else 0)) gives either the
// axes as given or all of them, with no control flow.
Output all_axes_if_empty(const NodeContext& ctx, const Output& axes) {
    const Output& x = ctx.input(0);
    Output rank = x.get_partial_shape().rank().is_static()
                      ? op::int64_scalar(x.get_partial_shape().rank().get_length())
                      : Output(op::squeeze(op::shape_of(op::shape_of(x)), ints({0})));
    Output count = op::squeeze(op::shape_of(op::reshape(axes, ints({-1}), false)), ints({0}));
    Output empty = op::convert(op::equal(count, op::int64_scalar(0)), element::i64);
    Output all = op::range(op::int64_scalar(0), op::multiply(rank, empty), op::int64_scalar(1),
                           element::i64);
    return op::concat({op::convert(op::reshape(axes, ints({-1}), false), element::i64), all}, 0);
}

// The axes to reduce; an empty Output means "all axes".
Output reduce_axes(const NodeContext& ctx, bool axes_as_input, bool& noop) {
    noop = false;
    Output axes;
    if (axes_as_input) {
        if (ctx.has_input(1)) axes = ctx.input(1);
    } else if (ctx.has_attribute("axes")) {
        axes = ints(ctx.attr_ints("axes"));
    }
    const bool noop_if_empty = axes_as_input && ctx.attr_int("noop_with_empty_axes", 0) != 0;
    if (axes) {
        auto values = constant_ints(axes);
        if (values && values->empty()) axes = Output();
        if (!values && !noop_if_empty) return all_axes_if_empty(ctx, axes);
    }
    if (!axes) {
        if (noop_if_empty) {
            noop = true;
            return {};
        }
        axes = axes_range(0, static_rank(ctx, ctx.input(0)));
    }
    return axes;
}

Translator reduction(const std::string& kind, int axes_input_since) {
    return [kind, axes_input_since](const NodeContext& ctx) {
        const Output& x = ctx.input(0);
        bool noop = false;
        Output axes = reduce_axes(ctx, ctx.opset() >= axes_input_since, noop);
        const bool keep = ctx.attr_int("keepdims", 1) != 0;
        const auto t = x.get_element_type();
        if (noop) {
            // Reducing no axis leaves each element's own term (ONNX's reference): log x, x², |x|.
            if (kind == "LogSum") return one(op::unary("Log", x));
            if (kind == "SumSquare") return one(op::multiply(x, x));
            if (kind == "L1" || kind == "L2") return one(op::unary("Abs", x));
            return one(identity(x));
        }
        if (kind == "LogSum") return one(op::unary("Log", op::reduce("ReduceSum", x, axes, keep)));
        if (kind == "LogSumExp") {
            // log(sum(exp(x - max))) + max, stable for large inputs.
            Output m = op::reduce("ReduceMax", x, axes, true);
            Output s = op::reduce("ReduceSum", op::exp(op::subtract(x, m)), axes, keep);
            Output mk = keep ? m : Output(op::reduce("ReduceMax", x, axes, false));
            return one(op::add(op::unary("Log", s), mk));
        }
        if (kind == "SumSquare")
            return one(op::reduce("ReduceSum", op::multiply(x, x), axes, keep));
        (void)t;
        return one(op::reduce("Reduce" + kind, x, axes, keep));
    };
}

Translator arg(const std::string& mode) {
    return [mode](const NodeContext& ctx) {
        const Output& x = ctx.input(0);
        const int64_t rank = static_rank(ctx, x);
        const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 0), rank);
        const bool keep = ctx.attr_int("keepdims", 1) != 0;
        const bool last = ctx.attr_int("select_last_index", 0) != 0;
        Output data = x;
        // The last of equal extremes: search the reversed axis, then map the index back.
        if (last)
            data = op::slice(x, ints({-1}), ints({std::numeric_limits<int64_t>::min()}), ints({-1}),
                             ints({axis}));
        auto k = op::topk(data, op::int64_scalar(1), axis, mode, "none", element::i64, true);
        Output index = k->output(1);
        if (last) {
            Output n = op::gather(op::shape_of(x), ints({axis}), op::int64_scalar(0));
            index = op::subtract(op::subtract(n, op::int64_scalar(1)), index);
        }
        if (!keep) index = op::squeeze(index, ints({axis}));
        return one(index);
    };
}

}  // namespace

void register_reductions(TranslatorRegistry& r) {
    r.add("", "ReduceSum", 1, reduction("Sum", 13));
    for (auto [name, kind] :
         std::vector<std::pair<const char*, const char*>>{{"ReduceMean", "Mean"},
                                                          {"ReduceMax", "Max"},
                                                          {"ReduceMin", "Min"},
                                                          {"ReduceProd", "Prod"},
                                                          {"ReduceL1", "L1"},
                                                          {"ReduceL2", "L2"},
                                                          {"ReduceLogSum", "LogSum"},
                                                          {"ReduceLogSumExp", "LogSumExp"},
                                                          {"ReduceSumSquare", "SumSquare"}}) {
        r.add("", name, 1, reduction(kind, 18));
    }
    r.add("", "ArgMax", 1, arg("max"));
    r.add("", "ArgMin", 1, arg("min"));
}

}  // namespace vireo::onnx_import
