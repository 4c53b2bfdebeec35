// Translators for ONNX's control flow with the subgraph inlined: If (the taken branch when the
// condition is a constant, else both branches and a Select per output) and Scan (unrolled over its
// static sequence length). Loop needs a run-time loop op and is not translated yet.
#include "graph_importer.hpp"
#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

const onnx::GraphProto& body(const NodeContext& ctx, const char* name) {
    const onnx::GraphProto* g = ctx.attr_graph(name);
    if (!g) ctx.fail("graph attribute '", name, "' is required");
    return *g;
}

OutputVector if_op(const NodeContext& ctx) {
    const auto& then_branch = body(ctx, "then_branch");
    const auto& else_branch = body(ctx, "else_branch");
    if (auto cond = ctx.const_ints(0); cond && cond->size() == 1)
        return ctx.graph().inline_subgraph((*cond)[0] ? then_branch : else_branch, {});
    OutputVector a = ctx.graph().inline_subgraph(then_branch, {});
    OutputVector b = ctx.graph().inline_subgraph(else_branch, {});
    if (a.size() != b.size()) ctx.fail("the branches have ", a.size(), " and ", b.size(), " outputs");
    Output cond = ctx.input(0);
    if (cond.get_partial_shape().rank().is_static() && cond.get_partial_shape().rank().get_length() > 0)
        cond = op::reshape(cond, ints({}), false);
    OutputVector out;
    for (size_t i = 0; i < a.size(); ++i) {
        // Both branches run; the condition picks. Only sound when they agree on type and shape.
        if (a[i].get_element_type() != b[i].get_element_type() || a[i].get_partial_shape() != b[i].get_partial_shape() ||
            a[i].get_partial_shape().is_dynamic())
            ctx.unsupported("branches whose output ", i, " differs in type or shape (", a[i].get_partial_shape(), " vs ",
                            b[i].get_partial_shape(), ") need a run-time If, which is not supported yet");
        out.push_back(op::select(cond, a[i], b[i]));
    }
    return out;
}

OutputVector scan(const NodeContext& ctx) {
    const auto& g = body(ctx, "body");
    const int64_t m = ctx.attr_int("num_scan_inputs");
    const int64_t n = static_cast<int64_t>(ctx.input_size()) - m;  // state variables
    if (m < 1 || n < 0) ctx.fail("num_scan_inputs ", m, " does not fit ", ctx.input_size(), " inputs");
    const int64_t k = g.output_size() - n;  // scan outputs
    if (k < 0) ctx.fail("the body has fewer outputs than state variables");
    auto in_axes = ctx.attr_ints("scan_input_axes", std::vector<int64_t>(static_cast<size_t>(m), 0));
    auto in_dirs = ctx.attr_ints("scan_input_directions", std::vector<int64_t>(static_cast<size_t>(m), 0));
    auto out_axes = ctx.attr_ints("scan_output_axes", std::vector<int64_t>(static_cast<size_t>(k), 0));
    auto out_dirs = ctx.attr_ints("scan_output_directions", std::vector<int64_t>(static_cast<size_t>(k), 0));
    if (static_cast<int64_t>(in_axes.size()) != m || static_cast<int64_t>(in_dirs.size()) != m ||
        static_cast<int64_t>(out_axes.size()) != k || static_cast<int64_t>(out_dirs.size()) != k)
        ctx.fail("scan axes/directions attributes do not match the inputs and outputs");
    int64_t steps = -1;
    for (int64_t j = 0; j < m; ++j) {
        const Output& x = ctx.input(static_cast<size_t>(n + j));
        const int64_t rank = static_rank(ctx, x);
        in_axes[j] = normalize_axis(ctx, in_axes[j], rank);
        const auto& d = x.get_partial_shape()[static_cast<size_t>(in_axes[j])];
        if (d.is_dynamic()) ctx.unsupported("the scan length must be static (the loop is unrolled)");
        if (steps >= 0 && d.get_length() != steps) ctx.fail("scan inputs disagree on the sequence length");
        steps = d.get_length();
    }
    OutputVector state;
    for (int64_t i = 0; i < n; ++i) state.push_back(ctx.input(static_cast<size_t>(i)));
    std::vector<OutputVector> collected(static_cast<size_t>(k), OutputVector(static_cast<size_t>(steps)));
    for (int64_t t = 0; t < steps; ++t) {
        OutputVector args = state;
        for (int64_t j = 0; j < m; ++j) {
            const int64_t pos = in_dirs[j] ? steps - 1 - t : t;
            const Output& x = ctx.input(static_cast<size_t>(n + j));
            args.push_back(op::squeeze(op::slice(x, ints({pos}), ints({pos + 1}), ints({1}), ints({in_axes[j]})),
                                       ints({in_axes[j]})));
        }
        OutputVector results = ctx.graph().inline_subgraph(g, args);
        for (int64_t i = 0; i < n; ++i) state[i] = results[i];
        for (int64_t j = 0; j < k; ++j) {
            const int64_t pos = out_dirs[j] ? steps - 1 - t : t;
            collected[j][pos] = results[n + j];
        }
    }
    OutputVector out = state;
    for (int64_t j = 0; j < k; ++j) {
        const int64_t rank = static_rank(ctx, collected[j][0]) + 1;
        const int64_t axis = normalize_axis(ctx, out_axes[j], rank);
        OutputVector parts;
        for (const auto& v : collected[j]) parts.push_back(op::unsqueeze(v, ints({axis})));
        out.push_back(op::concat(parts, axis));
    }
    return out;
}

}  // namespace

void register_control_flow(TranslatorRegistry& r) {
    r.add("", "If", 1, if_op);
    r.add("", "Scan", 9, scan);
}

}  // namespace vireo::onnx_import
