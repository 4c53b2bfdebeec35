// Translators for ONNX's RNN, GRU and LSTM: unrolled over a static sequence length into MatMul,
// Add and the gate activations, one chain per direction. The input projection of every step is one
// MatMul over the whole sequence; each step adds its recurrent MatMul.
#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

struct Activation {
    std::string name;
    double alpha = 0, beta = 0;
};

Output activate(const NodeContext& ctx, const Activation& a, const Output& x) {
    const auto t = x.get_element_type();
    if (a.name == "Sigmoid") return op::sigmoid(x);
    if (a.name == "Tanh") return op::tanh(x);
    if (a.name == "Relu") return op::relu(x);
    if (a.name == "LeakyRelu") return op::prelu(x, scalar(t, a.alpha));
    if (a.name == "HardSigmoid")
        return op::minimum(
            op::maximum(op::add(op::multiply(x, scalar(t, a.alpha)), scalar(t, a.beta)),
                        scalar(t, 0.0)),
            scalar(t, 1.0));
    if (a.name == "Affine") return op::add(op::multiply(x, scalar(t, a.alpha)), scalar(t, a.beta));
    if (a.name == "ScaledTanh")
        return op::multiply(op::tanh(op::multiply(x, scalar(t, a.beta))), scalar(t, a.alpha));
    if (a.name == "Softsign") return op::divide(x, op::add(op::unary("Abs", x), scalar(t, 1.0)));
    if (a.name == "Softplus") return make_node("SoftPlus", {x});
    if (a.name == "Elu") return op::elu(x, a.alpha);
    if (a.name == "ThresholdedRelu")
        return op::select(op::greater(x, scalar(t, a.alpha)), x, scalar(t, 0.0));
    ctx.unsupported("activation '", a.name, "' is not supported");
}

enum class Kind { kRnn, kGru, kLstm };

// The activations for each direction: f (and g, h), with the spec's defaults.
std::vector<Activation> activations(const NodeContext& ctx, Kind kind, int64_t directions) {
    std::vector<std::string> defaults = kind == Kind::kRnn ? std::vector<std::string>{"Tanh"}
                                        : kind == Kind::kGru
                                            ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                            : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    std::vector<std::string> names;
    if (ctx.has_attribute("activations")) {
        for (const auto& s : ctx.proto().attribute())
            if (s.name() == "activations")
                for (const auto& n : s.strings()) names.push_back(n);
    }
    if (names.empty())
        for (int64_t d = 0; d < directions; ++d)
            names.insert(names.end(), defaults.begin(), defaults.end());
    if (names.size() != defaults.size() * static_cast<size_t>(directions))
        ctx.fail("activations has ", names.size(), " entries, expected ",
                 defaults.size() * directions);
    const auto alpha = ctx.attr_floats("activation_alpha"),
               beta = ctx.attr_floats("activation_beta");
    std::vector<Activation> out;
    size_t ai = 0, bi = 0;
    for (const auto& n : names) {
        Activation a{n};
        // Only the parameterised activations consume entries of activation_alpha/beta.
        const bool takes_alpha = n == "LeakyRelu" || n == "HardSigmoid" || n == "Affine" ||
                                 n == "ScaledTanh" || n == "Elu" || n == "ThresholdedRelu";
        const bool takes_beta = n == "HardSigmoid" || n == "Affine" || n == "ScaledTanh";
        if (takes_alpha)
            a.alpha = ai < alpha.size() ? alpha[ai++]
                                        : (n == "LeakyRelu"     ? 0.01
                                           : n == "HardSigmoid" ? 0.2
                                                                : 1.0);
        if (takes_beta)
            a.beta = bi < beta.size() ? beta[bi++]
                                      : (n == "HardSigmoid"  ? 0.5
                                         : n == "ScaledTanh" ? 1.0
                                                             : 0.0);
        out.push_back(a);
    }
    return out;
}

// Slice [d] of a [num_directions, ...] tensor, squeezed.
Output direction(const Output& v, int64_t d) {
    return op::squeeze(op::slice(v, ints({d}), ints({d + 1}), ints({1}), ints({0})), ints({0}));
}

OutputVector recurrent(const NodeContext& ctx, Kind kind) {
    const int gates = kind == Kind::kRnn ? 1 : kind == Kind::kGru ? 3 : 4;
    Output x = ctx.input(0);
    const int64_t layout = ctx.attr_int("layout", 0);
    if (layout == 1) x = op::transpose(x, ints({1, 0, 2}));
    const auto& xs = x.get_partial_shape();
    if (xs.rank().is_dynamic() || xs.rank().get_length() != 3 || xs[0].is_dynamic())
        ctx.unsupported("the sequence length must be static (the layer is unrolled)");
    const int64_t steps = xs[0].get_length();
    const std::string dir = ctx.attr_string("direction", "forward");
    if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
        ctx.fail("direction '", dir, "' is unknown");
    const int64_t directions = dir == "bidirectional" ? 2 : 1;
    const int64_t hidden = ctx.attr_int("hidden_size");
    const double clip = ctx.attr_float("clip", 0.0);
    Output lens;  // per-batch lengths when they may be shorter than the sequence
    if (ctx.has_input(4)) {
        auto values = ctx.const_ints(4);
        bool full = values.has_value();
        if (values)
            for (int64_t l : *values) full = full && l == steps;
        if (!full) {
            // Forward steps past a batch entry's length keep its state and output zeros; a
            // reverse pass would have to start at each entry's own end, which is not supported.
            if (dir != "forward")
                ctx.unsupported("sequence_lens with a reverse direction are not supported");
            lens = op::unsqueeze(op::convert(ctx.input(4), element::i64), ints({1}));  // [B, 1]
        }
    }
    if (kind == Kind::kLstm && ctx.attr_int("input_forget", 0) != 0)
        ctx.unsupported("input_forget=1 is not supported");
    const auto acts = activations(ctx, kind, directions);
    const size_t per_dir = acts.size() / static_cast<size_t>(directions);
    const auto t = x.get_element_type();
    const bool linear_before_reset = ctx.attr_int("linear_before_reset", 0) != 0;

    // Batch size as a 1-D tensor, for zero initial states.
    Output batch = dims(x, 1, 2);
    auto zeros_state = [&]() -> Output {
        return op::broadcast(scalar(t, 0.0), op::concat({batch, ints({hidden})}, 0));
    };
    auto maybe_clip = [&](const Output& v) -> Output {
        return clip > 0 ? Output(op::clamp(v, -clip, clip)) : v;
    };

    OutputVector y_dirs, h_dirs, c_dirs;
    for (int64_t d = 0; d < directions; ++d) {
        const bool reverse = dir == "reverse" || d == 1;
        const Activation* act = &acts[static_cast<size_t>(d) * per_dir];
        Output w = direction(ctx.input(1), d), r = direction(ctx.input(2), d);
        // Input projection for every step at once: [S, B, I] x [I, G*H].
        Output xw = op::matmul(x, w, false, true);
        Output wb, rb;
        if (ctx.has_input(3)) {
            auto halves = op::split(direction(ctx.input(3), d), op::int64_scalar(0), 2);
            wb = halves->output(0);
            rb = halves->output(1);
            xw = op::add(xw, wb);
        }
        Output h = ctx.has_input(5) ? direction(ctx.input(5), d) : zeros_state();
        Output c = kind == Kind::kLstm
                       ? (ctx.has_input(6) ? direction(ctx.input(6), d) : zeros_state())
                       : Output();
        OutputVector pi_o_f;
        if (kind == Kind::kLstm && ctx.has_input(7)) {
            auto p = op::split(direction(ctx.input(7), d), op::int64_scalar(0), 3);
            pi_o_f = {p->output(0), p->output(1), p->output(2)};  // input, output, forget
        }
        // Gate-wise recurrent weights and biases for GRU's reset handling.
        std::shared_ptr<Node> r_split, rb_split;
        if (kind == Kind::kGru) {
            r_split = op::split(r, op::int64_scalar(0), 3);
            if (rb) rb_split = op::split(rb, op::int64_scalar(0), 3);
        }
        OutputVector hs(static_cast<size_t>(steps));
        for (int64_t i = 0; i < steps; ++i) {
            const int64_t step = reverse ? steps - 1 - i : i;
            const Output h_prev = h, c_prev = c;
            Output xt = op::squeeze(
                op::slice(xw, ints({step}), ints({step + 1}), ints({1}), ints({0})), ints({0}));
            if (kind == Kind::kRnn) {
                Output pre = op::add(xt, op::matmul(h, r, false, true));
                if (rb) pre = op::add(pre, rb);
                h = activate(ctx, act[0], maybe_clip(pre));
            } else if (kind == Kind::kLstm) {
                Output pre = op::add(xt, op::matmul(h, r, false, true));
                if (rb) pre = op::add(pre, rb);
                auto g = op::split(pre, op::int64_scalar(-1), 4);  // i, o, f, c
                Output gi = g->output(0), go = g->output(1), gf = g->output(2), gc = g->output(3);
                if (!pi_o_f.empty()) {
                    gi = op::add(gi, op::multiply(pi_o_f[0], c));
                    gf = op::add(gf, op::multiply(pi_o_f[2], c));
                }
                Output it = activate(ctx, act[0], maybe_clip(gi));
                Output ft = activate(ctx, act[0], maybe_clip(gf));
                Output ct = activate(ctx, act[1], maybe_clip(gc));
                c = op::add(op::multiply(ft, c), op::multiply(it, ct));
                if (!pi_o_f.empty()) go = op::add(go, op::multiply(pi_o_f[1], c));
                Output ot = activate(ctx, act[0], maybe_clip(go));
                h = op::multiply(ot, activate(ctx, act[2], c));
            } else {
                auto xg = op::split(xt, op::int64_scalar(-1), 3);  // z, r, h
                auto recur = [&](int gate, const Output& state) -> Output {
                    Output v = op::matmul(state, r_split->output(gate), false, true);
                    return rb_split ? Output(op::add(v, rb_split->output(gate))) : v;
                };
                Output zt = activate(ctx, act[0], maybe_clip(op::add(xg->output(0), recur(0, h))));
                Output rt = activate(ctx, act[0], maybe_clip(op::add(xg->output(1), recur(1, h))));
                Output hpre = linear_before_reset
                                  ? Output(op::add(xg->output(2), op::multiply(rt, recur(2, h))))
                                  : Output(op::add(xg->output(2), recur(2, op::multiply(rt, h))));
                Output ht = activate(ctx, act[1], maybe_clip(hpre));
                // (1 - z) * h~ + z * h_prev
                h = op::add(op::multiply(op::subtract(scalar(t, 1.0), zt), ht),
                            op::multiply(zt, h));
            }
            Output y_step = h;
            if (lens) {
                Output live = op::less(op::int64_scalar(step), lens);
                h = op::select(live, h, h_prev);
                if (c) c = op::select(live, c, c_prev);
                y_step = op::select(live, y_step, scalar(t, 0.0));
            }
            hs[static_cast<size_t>(step)] = op::unsqueeze(y_step, ints({0}));
        }
        y_dirs.push_back(op::unsqueeze(op::concat(hs, 0), ints({1})));  // [S, 1, B, H]
        h_dirs.push_back(op::unsqueeze(h, ints({0})));
        if (c) c_dirs.push_back(op::unsqueeze(c, ints({0})));
    }
    Output y = directions == 1 ? y_dirs[0] : Output(op::concat(y_dirs, 1));
    Output yh = directions == 1 ? h_dirs[0] : Output(op::concat(h_dirs, 0));
    Output yc = c_dirs.empty()    ? Output()
                : directions == 1 ? c_dirs[0]
                                  : Output(op::concat(c_dirs, 0));
    if (layout == 1) {
        y = op::transpose(y, ints({2, 0, 1, 3}));
        yh = op::transpose(yh, ints({1, 0, 2}));
        if (yc) yc = op::transpose(yc, ints({1, 0, 2}));
    }
    OutputVector out{y, yh};
    if (kind == Kind::kLstm) out.push_back(yc);
    (void)gates;
    return out;
}

}  // namespace

void register_recurrent(TranslatorRegistry& r) {
    r.add("", "RNN", 7, [](const NodeContext& ctx) { return recurrent(ctx, Kind::kRnn); });
    r.add("", "GRU", 7, [](const NodeContext& ctx) { return recurrent(ctx, Kind::kGru); });
    r.add("", "LSTM", 7, [](const NodeContext& ctx) { return recurrent(ctx, Kind::kLstm); });
}

}  // namespace vireo::onnx_import
