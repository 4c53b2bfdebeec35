// ScaledDotProductAttention-13: shape inference and its errors, and
// fuse_scaled_dot_product_attention on the exported attention pattern and on near misses.
#include <cmath>

#include "ops_test_utils.hpp"
#include "vireo/model.hpp"
#include "vireo/transformations.hpp"

namespace vireo::test {
// A named namespace: the unity build puts this file next to others with their own helpers.
namespace attention_test {
namespace {

NodePtr f32_scalar(float v, const Shape& shape = {}) {
    return op::constant<float>(element::f32, shape, std::vector<float>(shape_size(shape), v));
}

NodePtr sdpa(const Output& q, const Output& k, const Output& v, const Output& mask = {},
             const Output& scale = {}, bool causal = false) {
    return op::scaled_dot_product_attention(q, k, v, mask, scale, causal);
}

TEST(Sdpa, InfersTheOutputShape) {
    EXPECT_EQ(shape_of(sdpa(param("2,12,7,64"), param("2,12,9,64"), param("2,12,9,32"))),
              "[2,12,7,32]");
    // Batches broadcast; dynamic dimensions flow through.
    EXPECT_EQ(shape_of(sdpa(param("?,4,?,8"), param("1,4,?,8"), param("?,1,5,16"))), "[?,4,?,16]");
    EXPECT_EQ(shape_of(sdpa(param("3,5,8"), param("3,6,8"), param("3,6,8"), param("5,6"),
                            f32_scalar(0.5f))),
              "[3,5,8]");
    // A boolean mask, a scalar mask, a [1] scale.
    EXPECT_EQ(shape_of(sdpa(param("1,2,5,8"), param("1,2,6,8"), param("1,2,6,8"),
                            param("1,1,5,6", element::boolean))),
              "[1,2,5,8]");
    EXPECT_EQ(shape_of(sdpa(param("1,2,5,8"), param("1,2,6,8"), param("1,2,6,8"), f32_scalar(0.f),
                            f32_scalar(1.f, Shape{1}))),
              "[1,2,5,8]");
    EXPECT_EQ(shape_of(sdpa(param("..."), param("..."), param("..."))), "[...]");
    const auto node = sdpa(param("1,1,2,4"), param("1,1,3,4"), param("1,1,3,4"), {}, {}, true);
    EXPECT_TRUE(node->get_attribute<bool>("causal"));
    EXPECT_EQ(node->get_version(), 13);
}

TEST(Sdpa, RejectsBadRanks) {
    expect_invalid([] { sdpa(param("5,8"), param("6,8"), param("6,8")); },
                   {"ScaledDotProductAttention '", "query", "rank"});
    expect_invalid([] { sdpa(param("1,5,8"), param("1,1,6,8"), param("1,1,6,8")); },
                   {"ScaledDotProductAttention '", "one rank", "[1,5,8]", "[1,1,6,8]"});
}

TEST(Sdpa, RejectsMismatchedDimensions) {
    expect_invalid([] { sdpa(param("1,2,5,8"), param("1,2,6,4"), param("1,2,6,8")); },
                   {"ScaledDotProductAttention '", "input 0 (query)", "input 1 (key)", "(E)"});
    expect_invalid([] { sdpa(param("1,2,5,8"), param("1,2,6,8"), param("1,2,7,8")); },
                   {"ScaledDotProductAttention '", "input 2 (value)", "(S)"});
    expect_invalid([] { sdpa(param("2,2,5,8"), param("3,2,6,8"), param("3,2,6,8")); },
                   {"ScaledDotProductAttention '", "batch dimensions"});
}

TEST(Sdpa, RejectsAMaskThatDoesNotBroadcast) {
    expect_invalid(
        [] { sdpa(param("1,2,5,8"), param("1,2,6,8"), param("1,2,6,8"), param("1,1,5,7")); },
        {"ScaledDotProductAttention '", "input 3 (attn_mask)", "[1,1,5,7]", "[1,2,5,6]"});
    // A mask larger than the scores would widen them.
    expect_invalid(
        [] { sdpa(param("1,1,5,8"), param("1,1,6,8"), param("1,1,6,8"), param("1,3,5,6")); },
        {"input 3 (attn_mask)"});
    expect_invalid([] { sdpa(param("1,5,8"), param("1,6,8"), param("1,6,8"), param("1,1,5,6")); },
                   {"input 3 (attn_mask)"});
    expect_invalid(
        [] {
            sdpa(param("1,2,5,8"), param("1,2,6,8"), param("1,2,6,8"), param("5,6", element::i32));
        },
        {"attn_mask"});
}

TEST(Sdpa, RejectsAScaleThatIsNotOneNumber) {
    expect_invalid(
        [] {
            sdpa(param("1,2,5,8"), param("1,2,6,8"), param("1,2,6,8"), f32_scalar(0.f),
                 f32_scalar(1.f, Shape{2}));
        },
        {"ScaledDotProductAttention '", "scale"});
    EXPECT_THROW(sdpa(param("1,2,5,8"), param("1,2,6,8"), param("1,2,6,8"), {}, f32_scalar(1.f)),
                 InvalidArgument);
}

// ---- the pattern ----

// The attention an exporter writes (GPT-2 style, as the ONNX frontend imports it): Q·Transpose(K)
// (or transpose_b), times a scalar, plus a mask, Softmax on the last axis, times V, then a
// consumer. `tweak` changes one piece to make near misses.
struct Exported {
    std::shared_ptr<Model> model;
    NodePtr q, k, v, mask;
};

enum class Tweak {
    kNone,
    kTransposeB,        // K read with transpose_b (what the CPU's transpose fold leaves)
    kDivide,            // scores / 8 instead of * 0.125
    kScaleFirst,        // the constant as Multiply's first operand
    kScaleOnQuery,      // Multiply(Q, 0.125) before the MatMul
    kNoMask,            // no Add
    kSoftmaxOtherAxis,  // Softmax over axis 2
    kVectorScale,       // a [1,1,1,S] "scale"
    kScoresUsedTwice,   // the scores also feed an output
    kMaskWidensScores,  // a mask [1,3,L,S] over scores [1,1,L,S]
};

Exported exported_attention(Tweak tweak) {
    const size_t heads = tweak == Tweak::kMaskWidensScores ? 1 : 2;
    Exported e;
    e.q = op::parameter(element::f32, PartialShape::parse("?," + std::to_string(heads) + ",?,8"));
    e.k = op::parameter(element::f32, PartialShape::parse("?," + std::to_string(heads) + ",?,8"));
    e.v = op::parameter(element::f32, PartialShape::parse("?," + std::to_string(heads) + ",?,8"));
    e.mask = op::parameter(element::f32, tweak == Tweak::kMaskWidensScores
                                             ? PartialShape::parse("1,3,?,?")
                                             : PartialShape::parse("?,1,?,?"));
    Output query = e.q;
    if (tweak == Tweak::kScaleOnQuery) query = op::multiply(e.q, f32_scalar(0.125f));
    NodePtr scores = tweak == Tweak::kTransposeB
                         ? op::matmul(query, e.k, false, true)
                         : op::matmul(query, op::transpose(e.k, op::int64_vector({0, 1, 3, 2})));
    NodePtr scaled = scores;
    if (tweak == Tweak::kDivide)
        scaled = op::divide(scores, f32_scalar(8.f));
    else if (tweak == Tweak::kScaleFirst)
        scaled = op::multiply(f32_scalar(0.125f), scores);
    else if (tweak == Tweak::kVectorScale)
        scaled = op::multiply(scores, f32_scalar(0.125f, Shape{1, 1, 1, 5}));
    else if (tweak != Tweak::kScaleOnQuery)
        scaled = op::multiply(scores, f32_scalar(0.125f));
    NodePtr masked = tweak == Tweak::kNoMask ? scaled : op::add(scaled, e.mask);
    NodePtr probs = op::softmax(masked, tweak == Tweak::kSoftmaxOtherAxis ? 2 : -1);
    NodePtr out = op::matmul(probs, e.v);
    out->set_friendly_name("attention_output");
    out->output(0).set_names({"attn"});
    NodePtr next = op::relu(out);
    OutputVector results{next};
    if (tweak == Tweak::kScoresUsedTwice) results.push_back(scaled);
    ParameterVector params{e.q, e.k, e.v};
    if (tweak != Tweak::kNoMask) params.push_back(e.mask);
    e.model = std::make_shared<Model>(results, params, "attention");
    return e;
}

size_t count_type(const Model& model, const std::string& type) {
    size_t n = 0;
    for (const auto& node : model.get_ordered_ops()) n += node->get_type_name() == type;
    return n;
}

TEST(FuseAttention, ReplacesTheExportedPattern) {
    for (Tweak tweak : {Tweak::kNone, Tweak::kTransposeB, Tweak::kDivide, Tweak::kScaleFirst,
                        Tweak::kScaleOnQuery, Tweak::kNoMask}) {
        SCOPED_TRACE(static_cast<int>(tweak));
        Exported e = exported_attention(tweak);
        EXPECT_EQ(fuse_scaled_dot_product_attention(e.model), 1u);
        EXPECT_EQ(count_type(*e.model, "ScaledDotProductAttention"), 1u);
        EXPECT_EQ(count_type(*e.model, "Softmax"), 0u);
        EXPECT_EQ(count_type(*e.model, "MatMul"), 0u);
        NodePtr fused;
        for (const auto& node : e.model->get_ordered_ops())
            if (node->get_type_name() == "ScaledDotProductAttention") fused = node;
        ASSERT_TRUE(fused);
        EXPECT_EQ(fused->input_value(0), Output(e.q));
        EXPECT_EQ(fused->input_value(1), Output(e.k));
        EXPECT_EQ(fused->input_value(2), Output(e.v));
        if (tweak == Tweak::kNoMask) {
            EXPECT_EQ(fused->input_value(3).get_node()->get_type_name(), "Constant");
        } else {
            EXPECT_EQ(fused->input_value(3), Output(e.mask));
        }
        const Tensor& scale = fused->input_value(4).get_node()->get_constant_value();
        EXPECT_FLOAT_EQ(*static_cast<const float*>(scale.data()), 0.125f);
        EXPECT_EQ(fused->get_friendly_name(), "attention_output");
        EXPECT_EQ(fused->output(0).get_names(), (std::set<std::string>{"attn"}));
        EXPECT_EQ(shape_of(fused), "[?,2,?,8]");
        EXPECT_FALSE(fused->get_attribute<bool>("causal"));
    }
}

TEST(FuseAttention, LeavesNearMissesAlone) {
    for (Tweak tweak : {Tweak::kSoftmaxOtherAxis, Tweak::kVectorScale, Tweak::kScoresUsedTwice,
                        Tweak::kMaskWidensScores}) {
        SCOPED_TRACE(static_cast<int>(tweak));
        Exported e = exported_attention(tweak);
        const size_t ops = e.model->get_ordered_ops().size();
        EXPECT_EQ(fuse_scaled_dot_product_attention(e.model), 0u);
        EXPECT_EQ(count_type(*e.model, "ScaledDotProductAttention"), 0u);
        EXPECT_EQ(e.model->get_ordered_ops().size(), ops);
    }
}

TEST(FuseAttention, FusesEveryLayer) {
    // Two layers reading one mask, as a decoder's blocks do.
    auto mask = op::parameter(element::f32, PartialShape::parse("?,1,?,?"));
    auto x = op::parameter(element::f32, PartialShape::parse("?,2,?,8"));
    Output h = x;
    for (int layer = 0; layer < 2; ++layer) {
        auto scores = op::matmul(h, op::transpose(h, op::int64_vector({0, 1, 3, 2})));
        auto probs = op::softmax(op::add(op::multiply(scores, f32_scalar(0.35f)), mask), 3);
        h = op::matmul(probs, h);
    }
    auto model = std::make_shared<Model>(OutputVector{h}, ParameterVector{x, mask}, "two_layers");
    EXPECT_EQ(fuse_scaled_dot_product_attention(model), 2u);
    EXPECT_EQ(count_type(*model, "ScaledDotProductAttention"), 2u);
    EXPECT_EQ(count_type(*model, "Softmax"), 0u);
}

// repeat_kv as torch exports it: x [B, kv_heads, S, 8] -> Unsqueeze(2) -> Expand to
// [B, kv_heads, groups, S, 8] -> Reshape to [B, kv_heads*groups, S, 8], the targets computed
// from x's shape (or `shape_source`'s: an exporter may read the keys' shape for the values), so
// the batch and sequence in between are unknown at compile time.
Output repeat_kv(const Output& x, int64_t kv_heads, int64_t groups, Output shape_source = {}) {
    auto shape = op::shape_of(shape_source ? shape_source : x);
    auto dim = [&](int64_t i) {
        return op::gather(shape, op::int64_vector({i}), op::int64_vector({0}));
    };
    auto wide =
        op::broadcast(op::unsqueeze(x, op::int64_vector({2})),
                      op::concat({dim(0), op::int64_vector({kv_heads, groups}), dim(2), dim(3)}, 0),
                      "bidirectional");
    return op::reshape(
        wide, op::concat({dim(0), op::int64_vector({kv_heads * groups}), dim(2), dim(3)}, 0),
        false);
}

std::shared_ptr<Model> grouped_attention(int64_t q_heads, int64_t kv_heads, NodePtr* k, NodePtr* q,
                                         bool v_shape_from_k = false) {
    *q = op::parameter(element::f32, PartialShape::parse("?," + std::to_string(q_heads) + ",?,8"));
    *k = op::parameter(element::f32, PartialShape::parse("?," + std::to_string(kv_heads) + ",?,8"));
    auto v =
        op::parameter(element::f32, PartialShape::parse("?," + std::to_string(kv_heads) + ",?,8"));
    auto mask = op::parameter(element::f32, PartialShape::parse("?,1,?,?"));
    const int64_t groups = q_heads / kv_heads;
    auto kt = op::transpose(repeat_kv(*k, kv_heads, groups), op::int64_vector({0, 1, 3, 2}));
    auto scores = op::multiply(op::matmul(*q, kt), f32_scalar(0.125f));
    auto out = op::matmul(op::softmax(op::add(scores, mask), -1),
                          repeat_kv(v, kv_heads, groups, v_shape_from_k ? Output(*k) : Output()));
    out->output(0).set_names({"attn"});
    return std::make_shared<Model>(OutputVector{op::relu(out)}, ParameterVector{*q, *k, v, mask},
                                   "gqa");
}

TEST(FuseAttention, GroupedQueryAttentionReadsTheKeyValueHeadsOnce) {
    NodePtr k, q;
    auto model = grouped_attention(6, 2, &k, &q);
    EXPECT_EQ(fuse_scaled_dot_product_attention(model), 1u);
    NodePtr fused, out;
    for (const auto& node : model->get_ordered_ops())
        if (node->get_type_name() == "ScaledDotProductAttention") fused = node;
    ASSERT_TRUE(fused);
    // Q [B, 2, 3, L, 8] by a Reshape of q; K and V the sources' Unsqueeze, read as they are (the
    // Expand's target is their own shape with the groups: partial_dims proves it widens nothing
    // else), so no Broadcast and none of its shape arithmetic is left; the result merged back to
    // 6 heads.
    EXPECT_EQ(fused->input_value(0).get_node()->get_type_name(), "Reshape");
    EXPECT_EQ(fused->input_value(0).get_node()->input_value(0), Output(q));
    EXPECT_EQ(shape_of(fused->input_value(0).get_node_shared_ptr()), "[?,2,3,?,8]");
    const Node* ku = fused->input_value(1).get_node();
    EXPECT_EQ(ku->get_type_name(), "Unsqueeze");
    EXPECT_EQ(ku->input_value(0), Output(k));
    EXPECT_EQ(fused->input_value(2).get_node()->get_type_name(), "Unsqueeze");
    EXPECT_EQ(fused->get_input_size(), 5u);
    EXPECT_EQ(count_type(*model, "Broadcast"), 0u);
    for (const auto& node : model->get_ordered_ops())  // the keys' shape: read by nothing
        if (node->get_type_name() == "ShapeOf") EXPECT_NE(node->input_value(0), Output(k));
    const auto& result = model->get_results().front();
    Node* merged = result->input_value(0).get_node()->input_value(0).get_node();
    EXPECT_EQ(merged->get_type_name(), "Reshape");
    EXPECT_EQ(merged->output(0).get_names(), (std::set<std::string>{"attn"}));
    EXPECT_EQ(merged->get_output_partial_shape(0).size(), 4u);
}

TEST(FuseAttention, GroupedQueryAttentionKeepsABroadcastItCannotProveWidensNothing) {
    // The values' Expand target read from the keys' shape: the same batch and length at run
    // time, perhaps, but nothing in the graph says so. V stays broadcast (with 1 for the
    // groups, so every other dimension broadcasts as the model wrote it); K is read as it is.
    NodePtr k, q;
    auto model = grouped_attention(6, 2, &k, &q, /*v_shape_from_k=*/true);
    EXPECT_EQ(fuse_scaled_dot_product_attention(model), 1u);
    NodePtr fused;
    for (const auto& node : model->get_ordered_ops())
        if (node->get_type_name() == "ScaledDotProductAttention") fused = node;
    ASSERT_TRUE(fused);
    EXPECT_EQ(fused->input_value(1).get_node()->get_type_name(), "Unsqueeze");
    const Node* vb = fused->input_value(2).get_node();
    EXPECT_EQ(vb->get_type_name(), "Broadcast");
    EXPECT_EQ(vb->input_value(0).get_node()->get_type_name(), "Unsqueeze");
    EXPECT_EQ(count_type(*model, "Broadcast"), 1u);
}

TEST(FuseAttention, GroupedQueryAttentionNearMissIsFusedPlainly) {
    // A repeat_kv of one group (4 query heads over 4 key/value heads: nothing repeated, so
    // nothing to gain): the plain fused op, reading K and V as the graph gives them.
    NodePtr k, q;
    auto model = grouped_attention(4, 4, &k, &q);
    EXPECT_EQ(fuse_scaled_dot_product_attention(model), 1u);
    for (const auto& node : model->get_ordered_ops())
        if (node->get_type_name() == "ScaledDotProductAttention") {
            EXPECT_EQ(node->input_value(0), Output(q));
            EXPECT_EQ(node->input_value(1).get_node()->get_type_name(), "Reshape");
        }
}

}  // namespace
}  // namespace attention_test
}  // namespace vireo::test
