// Translators for ONNX's RNN, GRU and LSTM onto the core's RNNSequence-5, GRUSequence-5 and
// LSTMSequence-1: one node per layer, so the sequence length and batch may be dynamic and a long
// sequence costs nothing at import. Only layouts, biases and defaults are adapted here.
#include <algorithm>
#include <cctype>
#include <map>

#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

enum class Kind { kRnn, kGru, kLstm };

size_t per_direction(Kind kind) {
    return kind == Kind::kRnn ? 1 : kind == Kind::kGru ? 2 : 3;
}

// ONNX's activation attributes as the core op's: lower-case names, and alpha/beta lists with one
// entry per activation (ONNX lists only the values of the activations that take them, in order;
// the spec's defaults fill the rest). Empty lists when no activation takes a parameter.
struct Activations {
    std::vector<std::string> names;
    std::vector<double> alpha, beta;
};

Activations activations(const NodeContext& ctx, Kind kind, int64_t directions) {
    static const std::vector<std::string> known{
        "Sigmoid",    "Tanh",        "Relu", "Affine",   "LeakyRelu", "ThresholdedRelu",
        "ScaledTanh", "HardSigmoid", "Elu",  "Softsign", "Softplus"};
    const std::vector<std::string> defaults =
        kind == Kind::kRnn   ? std::vector<std::string>{"Tanh"}
        : kind == Kind::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                             : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    std::vector<std::string> names;
    for (const auto& a : ctx.proto().attribute())
        if (a.name() == "activations") names.assign(a.strings().begin(), a.strings().end());
    if (names.empty())
        for (int64_t d = 0; d < directions; ++d)
            names.insert(names.end(), defaults.begin(), defaults.end());
    const size_t expected = per_direction(kind) * static_cast<size_t>(directions);
    if (names.size() != expected)
        ctx.fail("activations has ", names.size(), " entries, expected ", expected);
    const auto alpha = ctx.attr_floats("activation_alpha"),
               beta = ctx.attr_floats("activation_beta");
    Activations out;
    size_t ai = 0, bi = 0;
    bool parameters = false;
    for (const auto& n : names) {
        if (std::find(known.begin(), known.end(), n) == known.end())
            ctx.unsupported("activation '", n, "' is not one the ONNX specification allows");
        const bool takes_alpha = n == "LeakyRelu" || n == "HardSigmoid" || n == "Affine" ||
                                 n == "ScaledTanh" || n == "Elu" || n == "ThresholdedRelu";
        const bool takes_beta = n == "HardSigmoid" || n == "Affine" || n == "ScaledTanh";
        parameters = parameters || takes_alpha;
        out.alpha.push_back(takes_alpha && ai < alpha.size() ? alpha[ai++]
                            : n == "LeakyRelu"               ? 0.01
                            : n == "HardSigmoid"             ? 0.2
                                                             : 1.0);
        out.beta.push_back(takes_beta && bi < beta.size() ? beta[bi++]
                           : n == "HardSigmoid"           ? 0.5
                           : n == "ScaledTanh"            ? 1.0
                                                          : 0.0);
        std::string lower;
        for (char c : n) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out.names.push_back(lower);
    }
    if (!parameters) out.alpha.clear(), out.beta.clear();
    return out;
}

// ONNX's B [dirs, 2*G*H] (input then recurrent biases) as the core's [dirs, G*H], or for GRU with
// linear_before_reset [dirs, 4*H]: z and r summed, the candidate's two kept apart.
Output bias(const NodeContext& ctx, int64_t directions, int64_t gates, int64_t hidden,
            bool linear_before_reset, element::Type type) {
    const int64_t rows = (gates + (linear_before_reset ? 1 : 0)) * hidden;
    if (!ctx.has_input(3))
        return op::constant<double>(
            type, Shape{static_cast<size_t>(directions), static_cast<size_t>(rows)},
            std::vector<double>(static_cast<size_t>(directions * rows)));
    if (!linear_before_reset) {
        auto halves = op::split(ctx.input(3), op::int64_scalar(1), 2);
        return op::add(halves->output(0), halves->output(1));
    }
    auto p = op::split(ctx.input(3), op::int64_scalar(1), 6);  // Wz Wr Wh Rz Rr Rh
    return op::concat({op::add(p->output(0), p->output(3)), op::add(p->output(1), p->output(4)),
                       p->output(2), p->output(5)},
                      1);
}

OutputVector recurrent(const NodeContext& ctx, Kind kind) {
    const int64_t gates = kind == Kind::kRnn ? 1 : kind == Kind::kGru ? 3 : 4;
    const int64_t layout = ctx.attr_int("layout", 0);
    if (layout != 0 && layout != 1) ctx.fail("layout must be 0 or 1, got ", layout);
    Output x = with_rank(ctx, ctx.input(0), 3, "X");
    if (layout == 0) x = op::transpose(x, ints({1, 0, 2}));  // [batch, seq, input]
    const std::string dir = ctx.attr_string("direction", "forward");
    if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
        ctx.fail("direction '", dir, "' is not forward, reverse or bidirectional");
    const int64_t directions = dir == "bidirectional" ? 2 : 1;
    if (!ctx.has_attribute("hidden_size")) ctx.fail("attribute 'hidden_size' is required");
    const int64_t hidden = ctx.attr_int("hidden_size");
    if (hidden <= 0) ctx.fail("hidden_size must be > 0, got ", hidden);
    const auto t = x.get_element_type();
    const bool lbr = kind == Kind::kGru && ctx.attr_int("linear_before_reset", 0) != 0;

    Output batch = dims(x, 0, 1);  // [1]
    Output lens = ctx.has_input(4)
                      ? Output(op::convert(ctx.input(4), element::i64))
                      : Output(op::broadcast(op::squeeze(dims(x, 1, 2), ints({0})), batch));
    // Initial states: ONNX's [dirs, batch, H] (layout 0) as [batch, dirs, H], or zeros.
    auto state = [&](size_t input) -> Output {
        if (ctx.has_input(input))
            return layout == 0 ? Output(op::transpose(ctx.input(input), ints({1, 0, 2})))
                               : ctx.input(input);
        return op::broadcast(scalar(t, 0.0), op::concat({batch, ints({directions, hidden})}, 0));
    };
    const auto acts = activations(ctx, kind, directions);
    std::map<std::string, AttrValue> attrs{
        {"hidden_size", hidden},         {"direction", dir},
        {"activations", acts.names},     {"activations_alpha", acts.alpha},
        {"activations_beta", acts.beta}, {"clip", ctx.attr_float("clip", 0.0)}};
    const Output b = bias(ctx, directions, gates, hidden, lbr, t);
    NodePtr node;
    if (kind == Kind::kLstm) {
        // LSTMSequence-1 reads ONNX's gate order (iofc) and peepholes as they are.
        attrs.emplace("input_forget", ctx.attr_int("input_forget", 0) != 0);
        attrs.emplace("weights_format", std::string("iofc"));
        OutputVector in{x, state(5), state(6), lens, ctx.input(1), ctx.input(2), b};
        if (ctx.has_input(7)) in.push_back(ctx.input(7));
        node = make_node("LSTMSequence", in, attrs, 1);
    } else {
        if (kind == Kind::kGru) attrs.emplace("linear_before_reset", lbr);
        node = make_node(kind == Kind::kGru ? "GRUSequence" : "RNNSequence",
                         {x, state(5), lens, ctx.input(1), ctx.input(2), b}, attrs, 5);
    }
    // Y [batch, dirs, seq, H] -> [seq, dirs, batch, H] (layout 0) or [batch, seq, dirs, H].
    Output y = op::transpose(node->output(0), ints(layout == 0 ? std::vector<int64_t>{2, 1, 0, 3}
                                                               : std::vector<int64_t>{0, 2, 1, 3}));
    auto final_state = [&](size_t i) -> Output {
        return layout == 0 ? Output(op::transpose(node->output(i), ints({1, 0, 2})))
                           : node->output(i);
    };
    OutputVector out{y, final_state(1)};
    if (kind == Kind::kLstm) out.push_back(final_state(2));
    return out;
}

}  // namespace

void register_recurrent(TranslatorRegistry& r) {
    r.add("", "RNN", 7, [](const NodeContext& ctx) { return recurrent(ctx, Kind::kRnn); });
    r.add("", "GRU", 7, [](const NodeContext& ctx) { return recurrent(ctx, Kind::kGru); });
    r.add("", "LSTM", 7, [](const NodeContext& ctx) { return recurrent(ctx, Kind::kLstm); });
}

}  // namespace vireo::onnx_import
