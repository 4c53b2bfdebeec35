// Translators for ONNX's control flow: If (the taken branch inlined when the condition is a
// constant, else a core If over both branches imported as bodies), Loop (a core Loop whose body
// captures outer values as extra inputs) and Scan (unrolled over a static sequence length of at
// most kMaxScanUnrolledNodes nodes, else a core Loop that slices the scan inputs per iteration;
// Scan-8's batch form unrolled per static batch entry).
#include <algorithm>
#include <map>

#include "graph_importer.hpp"
#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

const onnx::GraphProto& body(const NodeContext& ctx, const char* name) {
    const onnx::GraphProto* g = ctx.attr_graph(name);
    if (!g) ctx.fail("graph attribute '", name, "' is required");
    return *g;
}

Output as_scalar(const Output& cond) {
    const auto& shape = cond.get_partial_shape();
    if (shape.rank_is_static() && shape.size() > 0) return op::reshape(cond, ints({}), false);
    return cond;
}

OutputVector if_op(const NodeContext& ctx) {
    const auto& then_branch = body(ctx, "then_branch");
    const auto& else_branch = body(ctx, "else_branch");
    if (auto cond = ctx.const_ints(0); cond && cond->size() == 1)
        return ctx.graph().inline_subgraph((*cond)[0] ? then_branch : else_branch, {});
    // A run-time If: each branch a body whose Parameters are the outer values it captures.
    ImportedBody then_body = ctx.graph().import_body(then_branch, {});
    ImportedBody else_body = ctx.graph().import_body(else_branch, {});
    if (then_body.outputs.size() != else_body.outputs.size())
        ctx.fail("the branches have ", then_body.outputs.size(), " and ", else_body.outputs.size(),
                 " outputs");
    OutputVector inputs{as_scalar(ctx.input(0))};
    op::IfPorts ports;
    for (const auto& v : then_body.captured) {
        ports.then_inputs.push_back(static_cast<int64_t>(inputs.size()));
        inputs.push_back(v);
    }
    for (const auto& v : else_body.captured) {
        ports.else_inputs.push_back(static_cast<int64_t>(inputs.size()));
        inputs.push_back(v);
    }
    auto then_model =
        std::make_shared<Model>(then_body.outputs, then_body.captures, ctx.name() + "/then_body");
    auto else_model =
        std::make_shared<Model>(else_body.outputs, else_body.captures, ctx.name() + "/else_body");
    auto node = op::if_op(inputs[0], OutputVector(inputs.begin() + 1, inputs.end()), then_model,
                          else_model, ports);
    return node->outputs();
}

// The shape both `a` and `b` have: their common static dimensions, dynamic where they differ.
PartialShape loosest_common_shape(const PartialShape& a, const PartialShape& b) {
    if (!a.rank().is_static() || !b.rank().is_static() ||
        a.rank().get_length() != b.rank().get_length())
        return PartialShape::dynamic();
    std::vector<Dimension> dims;
    for (size_t i = 0; i < static_cast<size_t>(a.rank().get_length()); ++i)
        dims.push_back(a[i].is_static() && b[i].is_static() &&
                               a[i].get_length() == b[i].get_length()
                           ? a[i]
                           : Dimension::dynamic());
    return PartialShape(dims);
}

// ONNX Loop: inputs M (trip count), cond, carried values; body (iteration_num, cond, carried...) ->
// (cond, carried..., scan outputs...). The scan outputs are stacked on a new axis 0: each is
// unsqueezed in the body and concatenated on axis 0 by the core Loop.
OutputVector loop(const NodeContext& ctx) {
    const auto& g = body(ctx, "body");
    const size_t carried = ctx.input_size() < 2 ? 0 : ctx.input_size() - 2;
    std::vector<std::pair<element::Type, PartialShape>> types{{element::i64, PartialShape{}},
                                                              {element::boolean, PartialShape{}}};
    for (size_t i = 0; i < carried; ++i) {
        if (!ctx.has_input(2 + i)) ctx.fail("loop-carried input ", i, " is missing");
        types.emplace_back(ctx.input(2 + i).get_element_type(), PartialShape::dynamic());
    }
    // A carried value may change shape between iterations (torchvision's paste of Mask R-CNN
    // masks appends one row per detection to a [0, H, W] start, and torch declares the body's
    // input as that [0, H, W]): where the body's result and its Parameter disagree, the body is
    // imported again with the dimensions that differ made dynamic, until they agree.
    std::map<size_t, PartialShape> forced;
    ImportedBody b;
    for (int round = 0;; ++round) {
        b = ctx.graph().import_body(g, types, {}, forced);
        if (b.outputs.size() < 1 + carried)
            ctx.fail("the body has ", b.outputs.size(), " outputs, expected at least ", 1 + carried,
                     " (the condition and every loop-carried value)");
        bool relaxed = false;
        for (size_t i = 0; i < carried && b.inputs.size() == 2 + carried; ++i) {
            const PartialShape& declared = b.inputs[2 + i]->get_output_partial_shape(0);
            const PartialShape merged =
                loosest_common_shape(declared, b.outputs[1 + i].get_partial_shape());
            if (merged != declared) {
                forced[2 + i] = merged;
                relaxed = true;
            }
        }
        if (!relaxed) break;
        if (round == 3) ctx.fail("the shapes of the loop-carried values do not settle");
    }
    const size_t scans = b.outputs.size() - 1 - carried;
    OutputVector results = b.outputs;
    for (size_t k = 0; k < scans; ++k)
        results[1 + carried + k] = op::unsqueeze(results[1 + carried + k], ints({0}));
    ParameterVector params = b.inputs;
    params.insert(params.end(), b.captures.begin(), b.captures.end());
    auto model = std::make_shared<Model>(results, params, ctx.name() + "/body");

    op::LoopPorts ports;
    ports.current_iteration_input_idx = 0;
    ports.body_condition_output_idx = 0;
    ports.input_ports = {-1, 1};
    ports.back_edges = {-1, 0};
    for (size_t i = 0; i < carried; ++i) {
        ports.input_ports.push_back(static_cast<int64_t>(2 + i));
        ports.back_edges.push_back(static_cast<int64_t>(1 + i));
    }
    for (size_t c = 0; c < b.captures.size(); ++c) {
        ports.input_ports.push_back(static_cast<int64_t>(2 + carried + c));
        ports.back_edges.push_back(-1);
    }
    for (size_t r = 1; r < results.size(); ++r) {
        ports.output_results.push_back(static_cast<int64_t>(r));
        const bool scan = r > carried;
        for (int64_t f :
             scan ? std::vector<int64_t>{0, 0, 1, -1, 1} : std::vector<int64_t>{-1, 0, 1, -1, 1})
            ports.output_slicing.push_back(f);
    }
    const Output trip = ctx.has_input(0) ? as_scalar(ctx.input(0)) : Output(op::int64_scalar(-1));
    const Output cond = ctx.has_input(1)
                            ? as_scalar(ctx.input(1))
                            : Output(op::constant<int>(element::boolean, Shape{}, {1}));
    OutputVector inputs;
    for (size_t i = 0; i < carried; ++i) inputs.push_back(ctx.input(2 + i));
    inputs.insert(inputs.end(), b.captured.begin(), b.captured.end());
    return op::loop(trip, cond, inputs, model, ports)->outputs();
}

// The most nodes one Scan may unroll into (steps x body nodes).
constexpr int64_t kMaxScanUnrolledNodes = 1 << 16;

/// Checks the axes/directions attributes against the scan inputs and `k` scan outputs and
/// normalizes `in_axes`; returns the scan inputs' common static length, or -1 when one is dynamic.
int64_t scan_length(const NodeContext& ctx, const OutputVector& scan_inputs, int64_t k,
                    std::vector<int64_t>& in_axes, const std::vector<int64_t>& in_dirs,
                    const std::vector<int64_t>& out_axes, const std::vector<int64_t>& out_dirs) {
    const auto m = static_cast<int64_t>(scan_inputs.size());
    if (k < 0) ctx.fail("the body has fewer outputs than state variables");
    if (static_cast<int64_t>(in_axes.size()) != m || static_cast<int64_t>(in_dirs.size()) != m ||
        static_cast<int64_t>(out_axes.size()) != k || static_cast<int64_t>(out_dirs.size()) != k)
        ctx.fail("scan axes/directions attributes do not match the inputs and outputs");
    int64_t steps = -1;
    bool dynamic = false;
    for (int64_t j = 0; j < m; ++j) {
        const Output& x = scan_inputs[static_cast<size_t>(j)];
        in_axes[j] = normalize_axis(ctx, in_axes[j], static_rank(ctx, x));
        const auto& d = x.get_partial_shape()[static_cast<size_t>(in_axes[j])];
        if (d.is_dynamic()) {
            dynamic = true;
            continue;
        }
        if (steps >= 0 && d.get_length() != steps)
            ctx.fail("scan inputs disagree on the sequence length");
        steps = d.get_length();
    }
    return dynamic ? -1 : steps;
}

/// Unrolls a Scan body over `scan_inputs` (each scanned along in_axes[j], backwards where
/// in_dirs[j]) from `state`; returns the final state then the scan outputs stacked on out_axes.
OutputVector unroll_scan(const NodeContext& ctx, const onnx::GraphProto& g, OutputVector state,
                         const OutputVector& scan_inputs, std::vector<int64_t> in_axes,
                         const std::vector<int64_t>& in_dirs, const std::vector<int64_t>& out_axes,
                         const std::vector<int64_t>& out_dirs) {
    const auto n = static_cast<int64_t>(state.size());
    const auto m = static_cast<int64_t>(scan_inputs.size());
    const int64_t k = g.output_size() - n;  // scan outputs
    const int64_t steps = scan_length(ctx, scan_inputs, k, in_axes, in_dirs, out_axes, out_dirs);
    if (steps < 0) ctx.unsupported("the scan length must be static (Scan-8 is unrolled)");
    // Unrolling costs steps x body: a few hundred bytes could otherwise ask for billions of nodes
    // (issue 35: 1e5 steps took 27 s and 2.1 GB, 1e9 allocated its step table up front).
    const int64_t per_step = g.node_size() + 2 * m;
    if (steps > kMaxScanUnrolledNodes / std::max<int64_t>(per_step, 1))
        ctx.unsupported("the scan has ", steps, " steps of about ", per_step,
                        " nodes each; Scan-8 is unrolled at import and at most ",
                        kMaxScanUnrolledNodes, " nodes are unrolled");
    if (steps == 0 && k > 0)
        ctx.unsupported("a Scan-8 of length 0 with scan outputs is not supported");
    std::vector<OutputVector> collected(static_cast<size_t>(k),
                                        OutputVector(static_cast<size_t>(steps)));
    for (int64_t t = 0; t < steps; ++t) {
        OutputVector args = state;
        for (int64_t j = 0; j < m; ++j) {
            const int64_t pos = in_dirs[j] ? steps - 1 - t : t;
            const Output& x = scan_inputs[static_cast<size_t>(j)];
            args.push_back(op::squeeze(
                op::slice(x, ints({pos}), ints({pos + 1}), ints({1}), ints({in_axes[j]})),
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

/// Scan as a core Loop, for a sequence length known only at run time or too long to unroll: the
/// trip count is the longest scan input's length; each state variable is a body Parameter carried
/// back from its Result; each scan input is sliced one position per iteration (backwards for
/// direction 1) into a body Parameter whose Squeeze the ONNX body reads; each scan output is
/// unsqueezed in the body and concatenated by the Loop on its axis (in reverse order for direction
/// 1). Values the body captures from outer graphs enter whole. Scan inputs of unequal lengths fail
/// at run time, naming the Loop: the trip count is the longest length, so the shorter input runs
/// out.
OutputVector scan_as_loop(const NodeContext& ctx, const onnx::GraphProto& g,
                          const OutputVector& state, const OutputVector& scan_inputs,
                          const std::vector<int64_t>& in_axes, const std::vector<int64_t>& in_dirs,
                          const std::vector<int64_t>& out_axes,
                          const std::vector<int64_t>& out_dirs) {
    const size_t n = state.size();
    const size_t m = scan_inputs.size();
    const size_t k = out_axes.size();
    std::vector<std::pair<element::Type, PartialShape>> types;
    for (const auto& v : state) types.emplace_back(v.get_element_type(), PartialShape::dynamic());
    OutputVector bound(n);
    ParameterVector slices;
    for (size_t j = 0; j < m; ++j) {
        PartialShape shape = scan_inputs[j].get_partial_shape();  // static rank: checked
        shape[static_cast<size_t>(in_axes[j])] = Dimension(1);
        auto p = op::parameter(scan_inputs[j].get_element_type(), shape);
        p->set_friendly_name(g.input_size() > static_cast<int>(n + j)
                                 ? g.input(static_cast<int>(n + j)).name()
                                 : ctx.name() + "/scan_input_" + std::to_string(j));
        slices.push_back(p);
        bound.push_back(op::squeeze(p, ints({in_axes[j]})));
        types.emplace_back(scan_inputs[j].get_element_type(), PartialShape::dynamic());
    }
    ImportedBody b = ctx.graph().import_body(g, types, bound);
    if (b.outputs.size() != n + k)
        ctx.fail("the body has ", b.outputs.size(), " outputs, expected ", n + k);
    OutputVector results = b.outputs;
    std::vector<int64_t> stacked_axes(k);  // each scan output's axis, normalized
    for (size_t j = 0; j < k; ++j) {
        const Output& r = results[n + j];
        if (!r.get_partial_shape().rank_is_static() && out_axes[j] < 0)
            ctx.unsupported("scan output ", j, " has a dynamic rank and a negative axis ",
                            out_axes[j]);
        const int64_t rank = r.get_partial_shape().rank_is_static()
                                 ? static_cast<int64_t>(r.get_partial_shape().size()) + 1
                                 : out_axes[j] + 1;
        stacked_axes[j] = normalize_axis(ctx, out_axes[j], rank);
        results[n + j] = op::unsqueeze(r, ints({stacked_axes[j]}));
    }
    ParameterVector params(b.inputs.begin(), b.inputs.begin() + static_cast<std::ptrdiff_t>(n));
    params.insert(params.end(), slices.begin(), slices.end());
    params.insert(params.end(), b.captures.begin(), b.captures.end());
    auto model = std::make_shared<Model>(results, params, ctx.name() + "/body");

    // Slicing fields per port: axis, start, stride, end, part size (-1 axis: whole value).
    const std::vector<int64_t> whole{-1, 0, 1, -1, 1};
    auto sliced = [](int64_t axis, int64_t backwards) {
        return backwards ? std::vector<int64_t>{axis, -1, -1, 0, 1}
                         : std::vector<int64_t>{axis, 0, 1, -1, 1};
    };
    op::LoopPorts ports;
    for (size_t p = 0; p < params.size(); ++p) {
        ports.input_ports.push_back(static_cast<int64_t>(2 + p));
        ports.back_edges.push_back(p < n ? static_cast<int64_t>(p) : -1);
        const auto f = p >= n && p < n + m ? sliced(in_axes[p - n], in_dirs[p - n]) : whole;
        ports.input_slicing.insert(ports.input_slicing.end(), f.begin(), f.end());
    }
    for (size_t r = 0; r < n + k; ++r) {
        ports.output_results.push_back(static_cast<int64_t>(r));
        const auto f = r < n ? whole : sliced(stacked_axes[r - n], out_dirs[r - n]);
        ports.output_slicing.insert(ports.output_slicing.end(), f.begin(), f.end());
    }
    // The trip count is the longest scan input's length, so that inputs of unequal lengths fail
    // (a shorter one runs out) instead of being read partly.
    Output trip;
    for (size_t j = 0; j < m; ++j) {
        const auto& d = scan_inputs[j].get_partial_shape()[static_cast<size_t>(in_axes[j])];
        const Output length =
            d.is_static() ? Output(op::int64_scalar(d.get_length()))
                          : Output(op::gather(op::shape_of(scan_inputs[j]),
                                              op::int64_scalar(in_axes[j]), op::int64_scalar(0)));
        trip = trip ? Output(op::maximum(trip, length)) : length;
    }
    OutputVector inputs = state;
    inputs.insert(inputs.end(), scan_inputs.begin(), scan_inputs.end());
    inputs.insert(inputs.end(), b.captured.begin(), b.captured.end());
    return op::loop(trip, op::constant<int>(element::boolean, Shape{}, {1}), inputs, model, ports)
        ->outputs();
}

OutputVector scan(const NodeContext& ctx) {
    const auto& g = body(ctx, "body");
    const int64_t m = ctx.attr_int("num_scan_inputs");
    const int64_t n = static_cast<int64_t>(ctx.input_size()) - m;  // state variables
    if (m < 1 || n < 0)
        ctx.fail("num_scan_inputs ", m, " does not fit ", ctx.input_size(), " inputs");
    const int64_t k = g.output_size() - n;
    const auto zeros = [](int64_t count) {
        return std::vector<int64_t>(static_cast<size_t>(std::max<int64_t>(count, 0)), 0);
    };
    OutputVector state, scan_inputs;
    for (int64_t i = 0; i < n; ++i) state.push_back(ctx.input(static_cast<size_t>(i)));
    for (int64_t j = 0; j < m; ++j) scan_inputs.push_back(ctx.input(static_cast<size_t>(n + j)));
    std::vector<int64_t> in_axes = ctx.attr_ints("scan_input_axes", zeros(m));
    const auto in_dirs = ctx.attr_ints("scan_input_directions", zeros(m));
    const auto out_axes = ctx.attr_ints("scan_output_axes", zeros(k));
    const auto out_dirs = ctx.attr_ints("scan_output_directions", zeros(k));
    // Unrolled when the length is static and short enough (the device then sees one flat graph);
    // otherwise a Loop.
    const int64_t steps = scan_length(ctx, scan_inputs, k, in_axes, in_dirs, out_axes, out_dirs);
    const int64_t per_step = g.node_size() + 2 * m;
    if (steps < 0 || steps > kMaxScanUnrolledNodes / std::max<int64_t>(per_step, 1) ||
        (steps == 0 && k > 0))
        return scan_as_loop(ctx, g, state, scan_inputs, in_axes, in_dirs, out_axes, out_dirs);
    return unroll_scan(ctx, g, state, scan_inputs, in_axes, in_dirs, out_axes, out_dirs);
}

// Scan-8: input 0 an optional sequence_lens, then states [B, ...] and scan inputs [B, T, ...];
// the body sees one batch entry. Unrolled per batch entry (B static) over axis 1, results
// stacked on axis 0. Per-entry sequence lengths shorter than T are not supported.
OutputVector scan_v8(const NodeContext& ctx) {
    const auto& g = body(ctx, "body");
    const int64_t m = ctx.attr_int("num_scan_inputs");
    const int64_t n = static_cast<int64_t>(ctx.input_size()) - 1 - m;
    if (m < 1 || n < 0)
        ctx.fail("num_scan_inputs ", m, " does not fit ", ctx.input_size(),
                 " inputs (sequence_lens first)");
    if (ctx.has_input(0))
        ctx.unsupported(
            "Scan-8 with sequence_lens is not supported (every entry scans the whole "
            "sequence when it is omitted)");
    const int64_t k = g.output_size() - n;
    const auto dirs = ctx.attr_ints("directions", std::vector<int64_t>(static_cast<size_t>(m), 0));
    int64_t batch = -1;
    for (size_t i = 1; i < ctx.input_size(); ++i) {
        const auto& shape = ctx.input(i).get_partial_shape();
        if (static_rank(ctx, ctx.input(i)) < 1 || shape[0].is_dynamic())
            ctx.unsupported("the batch axis must be static (Scan-8 is unrolled per batch entry)");
        if (batch >= 0 && shape[0].get_length() != batch)
            ctx.fail("inputs disagree on the batch size");
        batch = shape[0].get_length();
    }
    if (batch < 1) ctx.unsupported("Scan-8 over an empty batch is not supported");
    std::vector<OutputVector> per_batch;
    for (int64_t b = 0; b < batch; ++b) {
        auto entry = [&](size_t i) {
            return op::squeeze(
                       op::slice(ctx.input(i), ints({b}), ints({b + 1}), ints({1}), ints({0})),
                       ints({0}))
                ->output(0);
        };
        OutputVector state, scan_inputs;
        for (int64_t i = 0; i < n; ++i) state.push_back(entry(static_cast<size_t>(1 + i)));
        for (int64_t j = 0; j < m; ++j)
            scan_inputs.push_back(entry(static_cast<size_t>(1 + n + j)));
        per_batch.push_back(
            unroll_scan(ctx, g, state, scan_inputs, std::vector<int64_t>(static_cast<size_t>(m), 0),
                        dirs, std::vector<int64_t>(static_cast<size_t>(std::max<int64_t>(k, 0)), 0),
                        std::vector<int64_t>(static_cast<size_t>(std::max<int64_t>(k, 0)), 0)));
    }
    OutputVector out;
    for (size_t r = 0; r < static_cast<size_t>(n + k); ++r) {
        OutputVector parts;
        for (const auto& results : per_batch) parts.push_back(op::unsqueeze(results[r], ints({0})));
        out.push_back(op::concat(parts, 0));
    }
    return out;
}

}  // namespace

void register_control_flow(TranslatorRegistry& r) {
    r.add("", "If", 1, if_op);
    r.add("", "Loop", 1, loop);
    r.add("", "Scan", 8, scan_v8);
    r.add("", "Scan", 9, scan);
}

}  // namespace vireo::onnx_import
