// fuse_scaled_dot_product_attention: exported attention subgraphs (MatMul -> scale -> mask ->
// Softmax -> MatMul) become one ScaledDotProductAttention-13 node (see vireo/transformations.hpp).
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "ops/op_helpers.hpp"
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

// One static dimension of `p`, or -1.
int64_t static_dim(const PartialShape& p, size_t i) {
    return p.rank_is_static() && i < p.size() && p[i].is_static() ? p[i].get_length() : -1;
}

// Grouped-query attention as exporters write it (Llama's repeat_kv): K (or V) is
// Reshape(Broadcast(Unsqueeze(x, r-2), target)) of a rank-r x [batch..., Hkv, S, E], repeating each
// of its Hkv heads n times ([..., Hkv, n, S, E]) and merging the two into Hkv·n heads.
struct RepeatedHeads {
    Output source;  // x
    Node* broadcast = nullptr;
    int64_t kv_heads = 0;
};

// Whether `x` is such a repeat of a source with a static Hkv and E whose merged dimensions are
// compatible with [batch..., Hkv·groups, S, E]. The exported shape arithmetic (the Expand's and
// the Reshape's targets are computed from shapes) leaves the intermediate dimensions unknown at
// compile time, so the repeat count is not read from the graph: the caller takes it from Q's
// static head count, which the original MatMul(Q, Kᵀ) makes equal to Hkv·n (or K has one head
// and broadcasts, which the grouped form reproduces). What is assumed, not proven, is that a
// rank-r Reshape whose dimensions are all compatible with the merge is the merge (and not, say,
// batch folded into S with the same element count): that is what repeat_kv writes.
std::optional<RepeatedHeads> repeated_heads(const Output& x, int64_t groups) {
    const PartialShape& xs = x.get_partial_shape();
    if (!xs.rank_is_static() || xs.size() < 3) return std::nullopt;
    const size_t r = xs.size();
    Node* reshape = x.get_node();
    if (reshape->get_type_name() != "Reshape") return std::nullopt;
    Node* broadcast = reshape->input_value(0).get_node();
    if (broadcast->get_type_name() != "Broadcast" || broadcast->get_input_size() != 2)
        return std::nullopt;
    const std::string mode = broadcast->get_attribute<std::string>("mode");
    if (mode != "numpy" && mode != "bidirectional") return std::nullopt;
    const element::Type tt = broadcast->input_value(1).get_element_type();
    if (tt != element::i64 && tt != element::i32) return std::nullopt;
    const PartialShape& target = broadcast->input_value(1).get_partial_shape();
    if (!target.is_static() || target.to_shape() != Shape{r + 1}) return std::nullopt;
    Node* unsqueeze = broadcast->input_value(0).get_node();
    if (unsqueeze->get_type_name() != "Unsqueeze") return std::nullopt;
    const Node& axes = *unsqueeze->input_value(1).get_node();
    if (axes.get_type_name() != "Constant") return std::nullopt;
    const Tensor& at = axes.get_constant_value();
    const auto axis =
        InferInput{at.get_element_type(), PartialShape(at.get_shape()), at}.int_values();
    if (!axis || axis->size() != 1) return std::nullopt;
    const int64_t a = (*axis)[0] < 0 ? (*axis)[0] + static_cast<int64_t>(r) + 1 : (*axis)[0];
    if (a != static_cast<int64_t>(r) - 2) return std::nullopt;
    RepeatedHeads rep;
    rep.source = unsqueeze->input_value(0);
    const PartialShape& src = rep.source.get_partial_shape();
    if (!src.rank_is_static() || src.size() != r) return std::nullopt;
    rep.kv_heads = static_dim(src, r - 3);
    const int64_t e = static_dim(src, r - 1);
    if (rep.kv_heads < 1 || e < 1 ||
        (groups > 0 && !xs[r - 3].compatible(Dimension(rep.kv_heads * groups))) ||
        !xs[r - 1].compatible(Dimension(e)) || !xs[r - 2].compatible(src[r - 2]))
        return std::nullopt;
    for (size_t i = 0; i + 3 < r; ++i)
        if (!xs[i].compatible(src[i])) return std::nullopt;
    rep.broadcast = broadcast;
    return rep;
}

// Whether every element of the Broadcast's target but the repeat's is the repeated value's own
// dimension — a number equal to its static length (or 1 in bidirectional mode, which keeps it),
// or the same dimension
// read by a ShapeOf of the value or of its source (repeat_kv builds the target from the source's
// shape): then the Broadcast widens nothing else.
bool repeats_only_the_group_axis(const RepeatedHeads& rep) {
    const Output data = rep.broadcast->input_value(0);  // Unsqueeze(source, r - 2)
    const PartialShape& ds = data.get_partial_shape();
    const auto target = ops_impl::partial_dims(rep.broadcast->input_value(1));
    if (!target || !ds.rank_is_static() || target->size() != ds.size() || ds.size() < 3)
        return false;
    const size_t group = ds.size() - 3;
    const bool bidirectional = rep.broadcast->get_attribute<std::string>("mode") == "bidirectional";
    for (size_t j = 0; j < ds.size(); ++j) {
        if (j == group) continue;
        const ops_impl::PartialElement& e = (*target)[j];
        if (e.value) {
            const bool keeps = *e.value == 1 && bidirectional;  // numpy's 1 would widen to 1
            if (!keeps && !(ds[j].is_static() && *e.value == ds[j].get_length())) return false;
            continue;
        }
        const bool of_data = e.source == data && e.axis == j;
        const bool of_source =
            e.source == rep.source && e.axis == (j < group ? j : j - 1) && j != group;
        if (!e.symbolic() || !(of_data || of_source)) return false;
    }
    return true;
}

// The repeated source as [batch..., Hkv, 1, S, E]: the Broadcast's input when its target repeats
// along the group axis only; else the Broadcast again, with 1 where it repeated (its target times
// (1, .., 0, 1, 1) plus (0, .., 1, 0, 0)), so every other dimension broadcasts exactly as before
// (when none does, the CPU plugin passes the value through without a copy, but the target's
// shape arithmetic runs at every inference).
Output unrepeated(const RepeatedHeads& rep) {
    if (repeats_only_the_group_axis(rep)) return rep.broadcast->input_value(0);
    const Output target = rep.broadcast->input_value(1);
    const size_t n = target.get_partial_shape().to_shape()[0];
    const element::Type t = target.get_element_type();
    Tensor keep(t, Shape{n}), one(t, Shape{n});
    for (size_t i = 0; i < n; ++i) {
        const bool at_groups = i == n - 3;
        if (t == element::i64) {
            static_cast<int64_t*>(keep.data())[i] = at_groups ? 0 : 1;
            static_cast<int64_t*>(one.data())[i] = at_groups ? 1 : 0;
        } else {
            static_cast<int32_t*>(keep.data())[i] = at_groups ? 0 : 1;
            static_cast<int32_t*>(one.data())[i] = at_groups ? 1 : 0;
        }
    }
    const auto ones_there = op::add(op::multiply(target, op::constant(keep)), op::constant(one));
    return op::broadcast(rep.broadcast->input_value(0), ones_there,
                         rep.broadcast->get_attribute<std::string>("mode"));
}

// Q [batch..., H, L, E], and K, V both repeated from Hkv heads n times (H = Hkv·n): the
// attention as a rank-(r+1) one on Q [batch..., Hkv, n, L, E] and K, V [batch..., Hkv, 1, S, E]
// (broadcast over n), reshaped back to [batch..., H, L, Ev]; nullptr when the inputs are not so.
NodePtr grouped_attention(const Match& m, const Output& mask, const Output& scale) {
    const PartialShape& qs = m.q.get_partial_shape();
    const size_t r = qs.size();
    const auto probe = repeated_heads(m.k, 0);  // 0: any head count
    if (!probe) return nullptr;
    const int64_t kv_heads = probe->kv_heads;
    // Q's heads are often unknown here (its Reshape target is computed too); when known, they
    // must be kv_heads times a repeat of at least 2.
    const int64_t heads = static_dim(qs, r - 3);
    int64_t groups = 0;
    if (heads > 0) {
        if (heads % kv_heads != 0 || heads / kv_heads < 2) return nullptr;
        groups = heads / kv_heads;
    }
    const auto k = repeated_heads(m.k, groups);
    const auto v = repeated_heads(m.v, groups);
    if (!k || !v || v->kv_heads != kv_heads) return nullptr;
    // The mask's head axis (if it has one) must be 1; it gets a second axis of 1 for the groups.
    Output mask5 = mask;
    const PartialShape& ms = mask.get_partial_shape();
    if (!ms.rank_is_static()) return nullptr;
    if (ms.size() >= 3) {
        if (static_dim(ms, ms.size() - 3) != 1) return nullptr;
        mask5 = op::unsqueeze(mask, op::int64_vector({static_cast<int64_t>(ms.size()) - 2}));
    }
    // Q [batch..., H, L, E] -> [batch..., Hkv, H / Hkv, L, E]: constants when H and E are known,
    // else from Q's shape at run time (a run-time Reshape error if H does not divide, where the
    // original MatMul would have failed too).
    const int64_t e = static_dim(qs, r - 1);
    auto dims_of = [](const Output& x, std::vector<int64_t> indices) -> Output {
        return op::gather(op::shape_of(x), op::int64_vector(indices), op::int64_vector({0}));
    };
    std::vector<int64_t> batch(r - 3);
    for (size_t i = 0; i < batch.size(); ++i) batch[i] = static_cast<int64_t>(i);
    Output q5;
    if (groups > 0 && e > 0) {
        std::vector<int64_t> split(r - 3, 0);
        split.insert(split.end(), {kv_heads, groups, -1, e});
        q5 = op::reshape(m.q, op::int64_vector(split), true);
    } else {
        OutputVector pieces;
        if (!batch.empty()) pieces.push_back(dims_of(m.q, batch));
        pieces.push_back(op::int64_vector({kv_heads, -1}));
        pieces.push_back(dims_of(m.q, {static_cast<int64_t>(r) - 2, static_cast<int64_t>(r) - 1}));
        q5 = op::reshape(m.q, op::concat(pieces, 0), false);
    }
    const auto sdpa =
        op::scaled_dot_product_attention(q5, unrepeated(*k), unrepeated(*v), mask5, scale, false);
    // Back to [batch..., H, L, Ev]: the two head axes merged.
    OutputVector merged;
    if (!batch.empty()) merged.push_back(dims_of(sdpa, batch));
    merged.push_back(op::int64_vector({-1}));
    merged.push_back(dims_of(sdpa, {static_cast<int64_t>(r) - 1, static_cast<int64_t>(r)}));
    return op::reshape(sdpa, op::concat(merged, 0), false);
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
            sdpa = grouped_attention(*m, mask, op::constant(scale_value));
        } catch (const Exception&) {
            sdpa = nullptr;  // the grouped form refused: the plain one below
        }
        try {
            if (!sdpa)
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
