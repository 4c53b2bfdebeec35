// Implements lower_einsums (see einsum_lowering.hpp): an Einsum contraction of two operands is
// rewritten into the ops the graph compiler runs on oneDNN — Transposes (reorders), Reshapes
// (views) and one MatMul — so attention written as einsum (MaxViT's "BGHID,BGHJD->BGHIJ") and
// other batched products do not run the reference kernel's one-element-at-a-time summation.
#include "einsum_lowering.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vireo/exception.hpp"
#include "vireo/ops.hpp"
#include "vireo/reference/dispatch.hpp"

namespace vireo::cpu_plugin {
namespace {

// An equation with every ellipsis replaced by fresh labels, one per axis it stands for.
struct Equation {
    std::vector<std::string> inputs;  // one label per axis
    std::string output;
};

// Ellipsis axes are labelled '0'..'9' (never letters, so never the equation's own labels).
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// One subscript's tokens (reference::parse_einsum_equation's) as one label per axis of a rank
// `rank` operand, the ellipsis becoming the last of the labels '0'..'9' it stands for (numpy
// right-aligns it across inputs); nullopt when the rank does not fit.
std::optional<std::string> labels_of(const std::vector<char>& tokens, size_t rank) {
    const std::string ellipsis = "0123456789";
    const auto dots = static_cast<size_t>(std::count(tokens.begin(), tokens.end(), '.'));
    const size_t letters = tokens.size() - dots;
    if (dots > 1 || letters > rank || (dots == 0 && letters != rank)) return std::nullopt;
    const size_t extra = rank - letters;
    if (extra > ellipsis.size()) return std::nullopt;
    std::string out;
    for (char c : tokens)
        out += c == '.' ? ellipsis.substr(ellipsis.size() - extra) : std::string(1, c);
    return out;
}

// The equation of a two-input Einsum over inputs of ranks `ra` and `rb`, its ellipses expanded;
// nullopt for what the lowering does not take (the reference kernel runs it).
std::optional<Equation> parse(const std::string& text, size_t ra, size_t rb) {
    reference::EinsumEquation tokens;
    try {
        tokens = reference::parse_einsum_equation(text, 2, "Einsum");
    } catch (const Exception&) {
        return std::nullopt;
    }
    Equation e;
    size_t longest = 0;  // the output's ellipsis stands for the longest of the inputs' ones
    for (size_t i = 0; i < 2; ++i) {
        auto labels = labels_of(tokens.inputs[i], i == 0 ? ra : rb);
        if (!labels) return std::nullopt;
        longest =
            std::max<size_t>(longest, std::count_if(labels->begin(), labels->end(), is_digit));
        e.inputs.push_back(*labels);
    }
    const auto dots =
        static_cast<size_t>(std::count(tokens.output.begin(), tokens.output.end(), '.'));
    auto out = labels_of(tokens.output, tokens.output.size() - dots + (dots ? longest : 0));
    if (!out) return std::nullopt;
    e.output = *out;
    return e;
}

bool repeats(const std::string& labels) {
    for (size_t i = 0; i < labels.size(); ++i)
        if (labels.find(labels[i], i + 1) != std::string::npos) return true;
    return false;
}

NodePtr i64s(const std::vector<int64_t>& values) {
    return op::int64_vector(values);
}

// `x` (axes labelled `labels`) with its axes put in the order of `target` (a permutation of
// `labels`); `x` itself when nothing moves.
Output permuted(const Output& x, const std::string& labels, const std::string& target) {
    if (labels == target) return x;
    std::vector<int64_t> order;
    for (char c : target) order.push_back(static_cast<int64_t>(labels.find(c)));
    return op::transpose(x, i64s(order));
}

Output reshaped(const Output& x, const std::vector<int64_t>& dims) {
    const Shape shape = x.get_shape();
    if (shape.size() == dims.size() &&
        std::equal(shape.begin(), shape.end(), dims.begin(),
                   [](size_t a, int64_t b) { return static_cast<int64_t>(a) == b; }))
        return x;
    return op::reshape(x, i64s(dims), false);
}

// The letters of `labels` that `keep` accepts, in the order of `labels`.
template <typename Keep>
std::string only(const std::string& labels, Keep keep) {
    std::string out;
    for (char c : labels)
        if (keep(c)) out += c;
    return out;
}

// The Einsum as ops the compiler runs on oneDNN, or nullptr when it is not a plain contraction.
NodePtr lower(const Node& einsum) {
    if (einsum.get_input_size() != 2 || einsum.get_output_size() != 1) return nullptr;
    const Output a_in = einsum.input_value(0), b_in = einsum.input_value(1);
    for (const Output& x : {a_in, b_in})
        if (x.get_element_type() != element::f32 || !x.get_partial_shape().is_static())
            return nullptr;
    if (!einsum.get_output_partial_shape(0).is_static()) return nullptr;
    const Shape sa = a_in.get_shape(), sb = b_in.get_shape();
    const auto eq = parse(einsum.get_attribute<std::string>("equation"), sa.size(), sb.size());
    if (!eq || repeats(eq->inputs[0]) || repeats(eq->inputs[1]) || repeats(eq->output))
        return nullptr;
    std::map<char, int64_t> dim;
    for (const auto& [labels, shape] :
         {std::make_pair(eq->inputs[0], sa), std::make_pair(eq->inputs[1], sb)})
        for (size_t i = 0; i < labels.size(); ++i) {
            const auto d = static_cast<int64_t>(shape[i]);
            auto [it, inserted] = dim.emplace(labels[i], d);
            if (!inserted && it->second != d) return nullptr;  // a broadcast ellipsis axis
        }
    const std::string& la = eq->inputs[0];
    const std::string& lb = eq->inputs[1];
    const std::string& lo = eq->output;
    auto in = [](const std::string& s, char c) { return s.find(c) != std::string::npos; };
    for (char c : lo)
        if (!in(la, c) && !in(lb, c)) return nullptr;

    // Labels of one input only and not of the output are summed over first.
    Output a = a_in, b = b_in;
    std::string ka = la, kb = lb;
    for (auto* side : {&a, &b}) {
        std::string& labels = side == &a ? ka : kb;
        const std::string& other = side == &a ? lb : la;
        std::vector<int64_t> axes;
        std::string kept;
        for (size_t i = 0; i < labels.size(); ++i) {
            if (!in(other, labels[i]) && !in(lo, labels[i]))
                axes.push_back(static_cast<int64_t>(i));
            else
                kept += labels[i];
        }
        if (axes.empty()) continue;
        *side = op::reduce_sum(*side, i64s(axes), false);
        labels = kept;
    }
    const std::string batch = only(lo, [&](char c) { return in(ka, c) && in(kb, c); });
    const std::string m = only(ka, [&](char c) { return in(lo, c) && !in(kb, c); });
    const std::string n = only(kb, [&](char c) { return in(lo, c) && !in(ka, c); });
    const std::string k = only(ka, [&](char c) { return in(kb, c) && !in(lo, c); });
    auto product = [&](const std::string& labels) {
        int64_t p = 1;
        for (char c : labels) p *= dim.at(c);
        return p;
    };
    const int64_t nb = product(batch), nm = product(m), nn = product(n), nk = product(k);

    // Each input as [batch, rows, columns], transposed by the MatMul's flag where it already
    // lies as [batch, K, M] or [batch, N, K].
    // Without batch labels the operands are 2-D, so a constant one is a MatMul's weights.
    const bool ta = ka != batch + m + k && ka == batch + k + m;
    const bool tb = kb != batch + k + n && kb == batch + n + k;
    auto dims3 = [&](int64_t rows, int64_t cols) {
        return batch.empty() ? std::vector<int64_t>{rows, cols}
                             : std::vector<int64_t>{nb, rows, cols};
    };
    a = reshaped(permuted(a, ka, batch + (ta ? k + m : m + k)), ta ? dims3(nk, nm) : dims3(nm, nk));
    b = reshaped(permuted(b, kb, batch + (tb ? n + k : k + n)), tb ? dims3(nn, nk) : dims3(nk, nn));
    NodePtr product_node = op::matmul(a, b, ta, tb);
    product_node->set_friendly_name(einsum.get_friendly_name());
    // [batch, M, N] back to the labels' own axes, then to the output's order.
    const std::string labels = batch + m + n;
    std::vector<int64_t> dims;
    for (char c : labels) dims.push_back(dim.at(c));
    Output out = permuted(reshaped(product_node, dims), labels, lo);
    if (out.get_shape() != einsum.get_output_shape(0)) return nullptr;
    return out.get_node_shared_ptr();
}

}  // namespace

size_t lower_einsums(Model& model) {
    const NodeVector ops = model.get_ordered_ops();
    std::map<Output, std::vector<Input>> readers;
    for (const auto& node : ops)
        for (size_t i = 0; i < node->get_input_size(); ++i)
            readers[node->input_value(i)].push_back(node->input(i));
    size_t lowered = 0;
    for (const auto& node : ops) {
        if (node->get_type_name() != "Einsum") continue;
        NodePtr out;
        try {
            out = lower(*node);
        } catch (const Exception&) {
            out = nullptr;  // an op refused its inputs: the reference kernel runs the Einsum
        }
        if (!out) continue;
        const Output old = node->output(0);
        out->output(0).set_names(old.get_names());
        for (const Input& reader : readers[old]) reader.replace_source_output(out->output(0));
        old.set_names({});
        ++lowered;
    }
    if (lowered) model.validate();
    return lowered;
}

}  // namespace vireo::cpu_plugin
