// Defines the recurrent sequence ops with OpenVINO's semantics: RNNSequence-5, GRUSequence-5 and
// LSTMSequence-1/5 (X [batch, seq, input]; states [batch, directions, hidden]; Y [batch,
// directions, seq, hidden]). The sequence length and batch may be dynamic: the layer is one node.
#include <algorithm>

#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

enum class Cell { kRnn, kGru, kLstm };

// Activation names a cell accepts (OpenVINO's three plus the rest of ONNX's list, lower case).
const std::vector<std::string>& activation_names() {
    static const std::vector<std::string> names{
        "sigmoid",    "tanh",        "relu", "affine",   "leakyrelu", "thresholdedrelu",
        "scaledtanh", "hardsigmoid", "elu",  "softsign", "softplus"};
    return names;
}

size_t activations_per_direction(Cell cell) {
    return cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 2 : 3;
}

size_t gate_count(Cell cell) {
    return cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 3 : 4;
}

void check_activations(const Node& node, Cell cell, int64_t directions) {
    const auto& acts = node.get_attribute<std::vector<std::string>>("activations");
    const size_t per_dir = activations_per_direction(cell);
    if (acts.size() != per_dir && acts.size() != per_dir * static_cast<size_t>(directions))
        throw_error<InvalidArgument>(
            node.describe(), ": activations has ", acts.size(), " entries, expected ", per_dir,
            " (or ", per_dir * static_cast<size_t>(directions), ", one set per direction)");
    for (const auto& a : acts)
        if (std::find(activation_names().begin(), activation_names().end(), a) ==
            activation_names().end())
            throw_error<InvalidArgument>(node.describe(), ": activation '", a,
                                         "' is not one of sigmoid, tanh, relu, affine, leakyrelu, "
                                         "thresholdedrelu, scaledtanh, hardsigmoid, elu, softsign, "
                                         "softplus");
    for (const char* name : {"activations_alpha", "activations_beta"}) {
        const auto& v = node.get_attribute<std::vector<double>>(name);
        if (!v.empty() && v.size() != acts.size())
            throw_error<InvalidArgument>(node.describe(), ": ", name, " has ", v.size(),
                                         " entries, expected none or one per activation (",
                                         acts.size(), ")");
    }
    if (node.get_attribute<double>("clip") < 0)
        throw_error<InvalidArgument>(node.describe(), ": clip must be >= 0, got ",
                                     node.get_attribute<double>("clip"));
}

// Merges `d` (axis `axis` of input `i`) into `into`, naming the input and what it disagrees on.
void merge_dim(const Node& node, const Inputs& in, Dimension& into, size_t i, size_t axis,
               const char* what) {
    if (!Dimension::merge(into, into, in[i].shape[axis]))
        throw_error<InvalidArgument>(node.describe(), ": input ", i, " ", in[i].shape, " has ",
                                     what, " ", in[i].shape[axis], " on axis ", axis,
                                     ", the other inputs ", into);
}

// Inputs: X, H0, [C0], sequence_lengths, W, R, B [, P]; LSTM has two states, RNN and GRU one.
Outputs infer_sequence(const Node& node, const Inputs& in, Cell cell) {
    const size_t states = cell == Cell::kLstm ? 2 : 1;
    const size_t lens = 1 + states, w = lens + 1, r = w + 1, b = r + 1;
    const element::Type type = merge_types(node, in, std::vector<size_t>{0, 1, w, r, b});
    check_type(node, in, 0, "X", is_real, "a floating-point type");
    check_type(node, in, lens, "sequence_lengths", is_integral_number, "an integer type");
    const std::string& direction = node.get_attribute<std::string>("direction");
    const int64_t directions = direction == "bidirectional" ? 2 : 1;
    const int64_t hidden = node.get_attribute<int64_t>("hidden_size");
    if (hidden <= 0)
        throw_error<InvalidArgument>(node.describe(), ": hidden_size must be > 0, got ", hidden);
    check_activations(node, cell, directions);
    const auto gates = static_cast<int64_t>(gate_count(cell));
    const bool lbr = cell == Cell::kGru && node.get_attribute<bool>("linear_before_reset");
    check_rank(node, in, 0, "X", 3, 3);
    for (size_t s = 1; s <= states; ++s) check_rank(node, in, s, "initial state", 3, 3);
    check_rank(node, in, lens, "sequence_lengths", 1, 1);
    check_rank(node, in, w, "W", 3, 3);
    check_rank(node, in, r, "R", 3, 3);
    check_rank(node, in, b, "B", 2, 2);
    // Every dimension that two inputs share must agree: batch (X, states, lengths), directions
    // (states, W, R, B), hidden (states, R's columns), input (X, W's columns), gate rows (W, R, B).
    Dimension batch, seq, input, dirs(directions), state(hidden);
    Dimension rows(gates * hidden), bias_rows((gates + (lbr ? 1 : 0)) * hidden);
    auto static_rank_of = [&](size_t i) { return in[i].shape.rank_is_static(); };
    if (static_rank_of(0)) {
        merge_dim(node, in, batch, 0, 0, "batch");
        seq = in[0].shape[1];
        merge_dim(node, in, input, 0, 2, "input size");
    }
    for (size_t s = 1; s <= states; ++s) {
        if (!static_rank_of(s)) continue;
        merge_dim(node, in, batch, s, 0, "batch");
        merge_dim(node, in, dirs, s, 1, "directions");
        merge_dim(node, in, state, s, 2, "hidden size");
    }
    if (static_rank_of(lens)) merge_dim(node, in, batch, lens, 0, "batch");
    if (static_rank_of(w)) {
        merge_dim(node, in, dirs, w, 0, "directions");
        merge_dim(node, in, rows, w, 1, "gate rows");
        merge_dim(node, in, input, w, 2, "input size");
    }
    if (static_rank_of(r)) {
        merge_dim(node, in, dirs, r, 0, "directions");
        merge_dim(node, in, rows, r, 1, "gate rows");
        merge_dim(node, in, state, r, 2, "hidden size");
    }
    if (static_rank_of(b)) {
        merge_dim(node, in, dirs, b, 0, "directions");
        merge_dim(node, in, bias_rows, b, 1, "bias rows");
    }
    if (cell == Cell::kLstm && in.size() > 7) {
        check_rank(node, in, 7, "P", 2, 2);
        Dimension peephole(3 * hidden);
        if (static_rank_of(7)) {
            merge_dim(node, in, dirs, 7, 0, "directions");
            merge_dim(node, in, peephole, 7, 1, "peephole rows");
        }
    }
    const PartialShape state_shape{batch, Dimension(directions), Dimension(hidden)};
    Outputs out{{type, PartialShape{batch, Dimension(directions), seq, Dimension(hidden)}},
                {type, state_shape}};
    if (cell == Cell::kLstm) out.push_back({type, state_shape});
    return out;
}

std::vector<AttrSpec> common_attrs(std::vector<std::string> activations) {
    return {required_attr("hidden_size", AttrType::kInt),
            required_attr("direction", AttrType::kString, {"forward", "reverse", "bidirectional"}),
            optional_attr("activations", AttrType::kStringList, std::move(activations)),
            optional_attr("activations_alpha", AttrType::kFloatList, std::vector<double>{}),
            optional_attr("activations_beta", AttrType::kFloatList, std::vector<double>{}),
            optional_attr("clip", AttrType::kFloat, 0.0)};
}

}  // namespace

void register_recurrent_ops(OpRegistry& r) {
    r.add(OpDef{"RNNSequence",
                5,
                "",
                6,
                6,
                common_attrs({"tanh"}),
                [](const Node& n, const Inputs& in) { return infer_sequence(n, in, Cell::kRnn); },
                {}});
    auto gru = common_attrs({"sigmoid", "tanh"});
    gru.push_back(optional_attr("linear_before_reset", AttrType::kBool, false));
    r.add(OpDef{"GRUSequence",
                5,
                "",
                6,
                6,
                gru,
                [](const Node& n, const Inputs& in) { return infer_sequence(n, in, Cell::kGru); },
                {}});
    // LSTMSequence-1 (OpenVINO's opset1 form): gates in `weights_format` order, optional
    // peepholes P [dirs, 3*H] (input, output, forget) and input_forget; -5: gates f, i, c, o.
    auto lstm1 = common_attrs({"sigmoid", "tanh", "tanh"});
    lstm1.push_back(optional_attr("input_forget", AttrType::kBool, false));
    lstm1.push_back(optional_attr("weights_format", AttrType::kString, std::string("ifco"),
                                  {"fico", "icof", "ifco", "ifoc", "iofc"}));
    r.add(OpDef{"LSTMSequence",
                1,
                "",
                7,
                8,
                lstm1,
                [](const Node& n, const Inputs& in) { return infer_sequence(n, in, Cell::kLstm); },
                {}});
    r.add(OpDef{"LSTMSequence",
                5,
                "",
                7,
                7,
                common_attrs({"sigmoid", "tanh", "tanh"}),
                [](const Node& n, const Inputs& in) { return infer_sequence(n, in, Cell::kLstm); },
                {}});
}

}  // namespace vireo::ops_impl
