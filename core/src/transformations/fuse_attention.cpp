// fuse_scaled_dot_product_attention: exported attention subgraphs (MatMul -> scale -> mask ->
// Softmax -> MatMul) become one ScaledDotProductAttention-13 node (see vireo/transformations.hpp).
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "vireo/exception.hpp"
#include "vireo/op_registry.hpp"
#include "vireo/ops.hpp"
#include "vireo/transformations.hpp"

namespace vireo {
namespace {

using Readers = std::map<Output, std::vector<Input>>;

// The single reader of `out`, or nullptr when it has none or several (or a Result reads it: a
// model output must stay where it is).
Node* only_reader(const Readers& readers, const Output& out) {
    const auto it = readers.find(out);
    if (it == readers.end() || it->second.size() != 1) return nullptr;
    Node* reader = it->second.front().get_node();
    return reader->get_type_name() == "Result" ? nullptr : reader;
}

// The value of a Constant holding exactly one real number, or nullopt.
std::optional<double> scalar_constant(const Output& out) {
    const Node& node = *out.get_node();
    if (node.get_type_name() != "Constant") return std::nullopt;
    const Tensor& t = node.get_constant_value();
    if (t.get_size() != 1) return std::nullopt;
    if (t.get_element_type() == element::f32) return *static_cast<const float*>(t.data());
    if (t.get_element_type() == element::f64) return *static_cast<const double*>(t.data());
    return std::nullopt;
}

// For a Multiply or Divide with one scalar constant operand: the other operand and the factor it
// is multiplied by (1/c for a Divide by c). A Divide of a constant by the scores is no scale.
std::optional<std::pair<Output, double>> scaled_operand(const Node& node) {
    const std::string& type = node.get_type_name();
    if ((type != "Multiply" && type != "Divide") || node.get_input_size() != 2) return std::nullopt;
    for (size_t i = 0; i < 2; ++i) {
        const auto c = scalar_constant(node.input_value(i));
        if (!c) continue;
        if (type == "Divide") {
            if (i != 1 || *c == 0) return std::nullopt;
            return std::make_pair(node.input_value(0), 1.0 / *c);
        }
        return std::make_pair(node.input_value(1 - i), *c);
    }
    return std::nullopt;
}

// Whether `node` is a Transpose with a constant order that keeps every axis but swaps the last two.
bool swaps_last_two(const Node& node) {
    if (node.get_type_name() != "Transpose" || node.get_input_size() != 2) return false;
    const Node& order = *node.input_value(1).get_node();
    if (order.get_type_name() != "Constant") return false;
    const Tensor& t = order.get_constant_value();
    const auto values =
        InferInput{t.get_element_type(), PartialShape(t.get_shape()), t}.int_values();
    if (!values) return false;
    const size_t r = values->size();
    if (r < 2) return false;
    for (size_t i = 0; i + 2 < r; ++i)
        if ((*values)[i] != static_cast<int64_t>(i)) return false;
    return (*values)[r - 2] == static_cast<int64_t>(r - 1) &&
           (*values)[r - 1] == static_cast<int64_t>(r - 2);
}

struct Match {
    Output q, k, v, mask;  // mask empty: none
    double scale = 1.0;
    Node* output = nullptr;  // the MatMul with V
};

// The mask `m` may be added to scores of shape `scores`: one real type, a rank no larger, and no
// dimension that would widen the scores (a mask dimension > 1 where the scores have 1).
bool mask_fits(const Output& m, const Output& scores) {
    if (m.get_element_type() != scores.get_element_type()) return false;
    const PartialShape& ms = m.get_partial_shape();
    const PartialShape& ss = scores.get_partial_shape();
    if (!ms.rank_is_static() || !ss.rank_is_static() || ms.size() > ss.size()) return false;
    for (size_t i = 0; i < ms.size(); ++i) {
        const Dimension& md = ms[ms.size() - 1 - i];
        const Dimension& sd = ss[ss.size() - 1 - i];
        if (md.is_static() && md.get_length() == 1) continue;
        if (sd.is_static() && sd.get_length() == 1) return false;
        if (!md.compatible(sd)) return false;
    }
    return true;
}

std::optional<Match> match_attention(Node& softmax, const Readers& readers) {
    if (softmax.get_type_name() != "Softmax") return std::nullopt;
    const PartialShape& shape = softmax.get_output_partial_shape(0);
    if (!shape.rank_is_static() || shape.size() < 3) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(shape.size());
    const int64_t axis = softmax.get_attribute<int64_t>("axis");
    if (axis != rank - 1 && axis != -1) return std::nullopt;
    Match m;
    // Softmax -> MatMul(probs, V).
    Node* out = only_reader(readers, softmax.output(0));
    if (!out || out->get_type_name() != "MatMul" || out->input_value(0) != softmax.output(0) ||
        out->get_attribute<bool>("transpose_a") || out->get_attribute<bool>("transpose_b"))
        return std::nullopt;
    m.output = out;
    m.v = out->input_value(1);
    // Backwards from the Softmax: the chain of ops each read only by the next one.
    std::vector<const Node*> chain{&softmax};
    Output scores = softmax.input_value(0);
    auto step_back = [&](const Output& to) {
        if (only_reader(readers, scores) != chain.back()) return false;
        chain.push_back(scores.get_node());
        scores = to;
        return true;
    };
    // [Add(scores, mask)] -> Softmax.
    if (const Node* add = scores.get_node(); add->get_type_name() == "Add") {
        std::optional<size_t> side;
        for (size_t i = 0; i < 2 && !side; ++i) {
            const std::string& t = add->input_value(i).get_node()->get_type_name();
            if ((t == "Multiply" || t == "Divide" || t == "MatMul") &&
                mask_fits(add->input_value(1 - i), add->input_value(i)))
                side = i;
        }
        if (!side) return std::nullopt;
        m.mask = add->input_value(1 - *side);
        if (!step_back(add->input_value(*side))) return std::nullopt;
    }
    // [Multiply/Divide by a scalar] -> ...
    if (scores.get_node()->get_type_name() != "MatMul") {
        const auto scaled = scaled_operand(*scores.get_node());
        if (!scaled) return std::nullopt;
        m.scale = scaled->second;
        if (!step_back(scaled->first)) return std::nullopt;
    }
    // MatMul(Q, Kᵀ) -> ...
    const Node* qk = scores.get_node();
    if (qk->get_type_name() != "MatMul" || qk->get_attribute<bool>("transpose_a") ||
        only_reader(readers, scores) != chain.back())
        return std::nullopt;
    m.q = qk->input_value(0);
    const Output kt = qk->input_value(1);
    if (qk->get_attribute<bool>("transpose_b")) {
        m.k = kt;
    } else if (swaps_last_two(*kt.get_node())) {
        m.k = kt.get_node()->input_value(0);
    } else {
        const PartialShape& ks = kt.get_partial_shape();
        if (!ks.rank_is_static() || ks.size() < 3) return std::nullopt;
        std::vector<int64_t> order(ks.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
        std::swap(order[order.size() - 1], order[order.size() - 2]);
        m.k = op::transpose(kt, op::int64_vector(order));
    }
    // Multiply(Q, c) -> MatMul: the scale applied to the queries (only when it is the one scale).
    if (m.scale == 1.0 && only_reader(readers, m.q) == qk)
        if (const auto scaled = scaled_operand(*m.q.get_node());
            scaled && m.q.get_node()->get_type_name() == "Multiply") {
            m.scale = scaled->second;
            m.q = scaled->first;
        }
    // One real type and one static rank >= 3 for Q, K and V.
    const element::Type type = m.q.get_element_type();
    if (!type.is_real() || !type.is_static()) return std::nullopt;
    for (const Output* x : {&m.q, &m.k, &m.v}) {
        const PartialShape& p = x->get_partial_shape();
        if (x->get_element_type() != type || !p.rank_is_static() || p.size() < 3 ||
            p.size() != m.q.get_partial_shape().size())
            return std::nullopt;
    }
    if (!std::isfinite(m.scale)) return std::nullopt;
    return m;
}

}  // namespace

size_t fuse_scaled_dot_product_attention(const std::shared_ptr<Model>& model) {
    if (!model) throw_error<InvalidArgument>("fuse_scaled_dot_product_attention: no model");
    const NodeVector ops = model->get_ordered_ops();
    Readers readers;
    for (const auto& node : ops)
        for (size_t i = 0; i < node->get_input_size(); ++i)
            readers[node->input_value(i)].push_back(node->input(i));
    size_t fused = 0;
    for (const auto& node : ops) {
        const auto m = match_attention(*node, readers);
        if (!m) continue;
        const element::Type type = m->q.get_element_type();
        Tensor scale_value(type, Shape{});
        if (type == element::f32)
            *static_cast<float*>(scale_value.data()) = static_cast<float>(m->scale);
        else if (type == element::f64)
            *static_cast<double*>(scale_value.data()) = m->scale;
        else
            continue;  // the scale constant is written in f32 or f64 only
        Output mask = m->mask;
        if (!mask) {
            Tensor zero(type, Shape{});
            std::memset(zero.data(), 0, type.size());
            mask = op::constant(zero);
        }
        NodePtr sdpa;
        try {
            sdpa = op::scaled_dot_product_attention(m->q, m->k, m->v, mask,
                                                    op::constant(scale_value), false);
        } catch (const Exception&) {
            continue;  // shapes the op refuses (a mask it cannot broadcast): leave the subgraph
        }
        Node* out = m->output;
        if (sdpa->get_output_element_type(0) != out->get_output_element_type(0) ||
            !sdpa->get_output_partial_shape(0).compatible(out->get_output_partial_shape(0)))
            continue;
        sdpa->set_friendly_name(out->get_friendly_name());
        sdpa->output(0).set_names(out->output(0).get_names());
        sdpa->get_rt_info() = out->get_rt_info();
        for (const Input& reader : readers[out->output(0)])
            reader.replace_source_output(sdpa->output(0));
        out->output(0).set_names({});
        ++fused;
    }
    if (fused) model->validate();
    return fused;
}

}  // namespace vireo
