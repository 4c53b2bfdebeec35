// Defines ScaledDotProductAttention-13: softmax(Q·Kᵀ · scale + mask) · V over the last two axes,
// with an optional boolean or additive mask, an optional scale and a `causal` attribute.
#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

bool is_real_or_boolean(element::Type t) {
    return is_real(t) || is_boolean(t);
}

// Inputs: 0 Q [batch..., L, E], 1 K [batch..., S, E], 2 V [batch..., S, Ev], 3 attn_mask
// (boolean or Q's type, broadcastable to [batch..., L, S]), 4 scale (a scalar of Q's type).
// Output: [batch..., L, Ev] of Q's type, batch the numpy broadcast of the three batches.
Outputs infer_sdpa(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, std::vector<size_t>{0, 1, 2});
    check_type(node, in, 0, "query", is_real, "a floating-point type");
    const char* names[] = {"query", "key", "value"};
    std::optional<int64_t> rank;
    for (size_t i = 0; i < 3; ++i) {
        const auto r = static_rank(in[i]);
        if (!r) continue;
        if (*r < 3)
            throw_error<InvalidArgument>(node.describe(), ": input ", i, " (", names[i],
                                         ") must have rank >= 3 ([batch..., rows, columns]), got "
                                         "shape ",
                                         in[i].shape);
        if (rank && *rank != *r)
            throw_error<InvalidArgument>(node.describe(),
                                         ": query, key and value must have one "
                                         "rank, got shapes ",
                                         in[0].shape, ", ", in[1].shape, " and ", in[2].shape);
        rank = r;
    }
    if (in.size() > 3) {
        check_type(node, in, 3, "attn_mask", is_real_or_boolean,
                   "boolean or a floating-point type");
        if (!is_boolean(in[3].type) && in[3].type.is_static() && type.is_static() &&
            in[3].type != type)
            throw_error<InvalidArgument>(node.describe(), ": input 3 (attn_mask) is ", in[3].type,
                                         "; a float mask must have the query's type ", type);
    }
    if (in.size() > 4) {
        merge_types(node, in, 0, 4);
        check_scalar_input(node, in, 4, "scale");
    }
    for (size_t i = 0; i < 3; ++i)
        if (!in[i].shape.rank_is_static()) return {{type, PartialShape::dynamic()}};
    const size_t r = static_cast<size_t>(*rank);
    const PartialShape& q = in[0].shape;
    const PartialShape& k = in[1].shape;
    const PartialShape& v = in[2].shape;
    Dimension e, s;
    if (!Dimension::merge(e, q[r - 1], k[r - 1]))
        throw_error<InvalidArgument>(
            node.describe(), ": input 0 (query) ", q, " and input 1 (key) ", k,
            " differ in the last dimension (E): ", q[r - 1], " vs ", k[r - 1]);
    if (!Dimension::merge(s, k[r - 2], v[r - 2]))
        throw_error<InvalidArgument>(
            node.describe(), ": input 1 (key) ", k, " and input 2 (value) ", v,
            " differ in the sequence dimension (S): ", k[r - 2], " vs ", v[r - 2]);
    auto batch_of = [r](const PartialShape& p) {
        return PartialShape(std::vector<Dimension>(p.begin(), p.begin() + (r - 2)));
    };
    PartialShape batch = batch_of(q);
    for (size_t i = 1; i < 3; ++i)
        if (!PartialShape::broadcast_merge_into(batch, batch_of(in[i].shape)))
            throw_error<InvalidArgument>(node.describe(), ": the batch dimensions of query ", q,
                                         ", key ", k, " and value ", v, " do not broadcast");
    PartialShape scores = batch;
    scores.push_back(q[r - 2]);
    scores.push_back(s);
    if (in.size() > 3 && !node.get_attribute<bool>("causal") && in[3].shape.rank_is_static()) {
        // The mask broadcasts to the scores [batch..., L, S] and must not make them larger.
        const PartialShape& m = in[3].shape;
        bool ok = m.size() <= r;
        for (size_t i = 0; ok && i < m.size(); ++i) {
            const Dimension& md = m[m.size() - 1 - i];
            const Dimension& sd = scores[r - 1 - i];
            ok = (md.is_static() && md.get_length() == 1) || md.compatible(sd);
        }
        if (!ok)
            throw_error<InvalidArgument>(node.describe(), ": input 3 (attn_mask) ", m,
                                         " does not broadcast to the scores' shape ", scores,
                                         " ([batch..., L, S])");
    }
    PartialShape out = batch;
    out.push_back(q[r - 2]);
    out.push_back(v[r - 1]);
    return {{type, out}};
}

}  // namespace

void register_attention_ops(OpRegistry& r) {
    r.add(OpDef{"ScaledDotProductAttention",
                13,
                "",
                3,
                5,
                {optional_attr("causal", AttrType::kBool, false)},
                infer_sdpa,
                {}});
}

}  // namespace vireo::ops_impl
