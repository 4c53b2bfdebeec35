// ScaledDotProductAttention on CPU (the flash kernel, attention_kernel.hpp) against TEMPLATE (the
// reference kernel) on random data: causal and not, float and boolean masks, an exported causal +
// padding mask, one query row, lengths that are not a multiple of the blocks, S = 0 and 1,
// broadcast batches, static and dynamic graphs; and the exported attention pattern fused when the
// CPU compiles it, with the same results as TEMPLATE running it unfused.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
// A named namespace: the unity build puts this file next to others with their own helpers.
namespace attention_test {
namespace {

using ModelPtr = std::shared_ptr<Model>;

enum class Mask { kNone, kFloat, kBoolean, kCausalAttribute, kExportedCausal };

struct Case {
    size_t b, h, l, s, e, ev;
    Mask mask;
    bool dynamic;               // parameters with dynamic dimensions: the dynamic graph
    bool kv_broadcast = false;  // K and V with one head, broadcast over the query heads
};

std::string describe(const Case& c) {
    return "B" + std::to_string(c.b) + " H" + std::to_string(c.h) + " L" + std::to_string(c.l) +
           " S" + std::to_string(c.s) + " E" + std::to_string(c.e) + " Ev" + std::to_string(c.ev) +
           " mask " + std::to_string(static_cast<int>(c.mask)) +
           (c.dynamic ? " dynamic" : " static") + (c.kv_broadcast ? " kv-broadcast" : "");
}

PartialShape maybe_dynamic(const Shape& s, bool dynamic) {
    if (!dynamic) return PartialShape(s);
    std::vector<Dimension> dims;
    for (size_t i = 0; i < s.size(); ++i)
        dims.push_back(i == 1 ? Dimension(static_cast<int64_t>(s[i])) : Dimension::dynamic());
    return PartialShape(dims);
}

// The [B, 1, L, S] mask an exporter builds from attention_mask: 0 where query i (at absolute
// position S - L + i) may see key j (j <= its position, key not padding), the f32 lowest else.
// The first `padding` keys of batch 0 are padding.
Tensor exported_mask(size_t b, size_t l, size_t s, size_t padding) {
    Tensor t(element::f32, Shape{b, 1, l, s});
    float* p = t.data<float>();
    for (size_t n = 0; n < b; ++n)
        for (size_t i = 0; i < l; ++i)
            for (size_t j = 0; j < s; ++j) {
                const bool visible = j <= s - l + i && !(n == 0 && j < padding);
                p[(n * l + i) * s + j] = visible ? 0.f : std::numeric_limits<float>::lowest();
            }
    return t;
}

Tensor boolean_mask(size_t l, size_t s, unsigned seed) {
    Tensor t(element::boolean, Shape{1, 1, l, s});
    auto* p = static_cast<uint8_t*>(t.data());
    std::mt19937 rng(seed);
    for (size_t i = 0; i < t.get_size(); ++i) p[i] = (i % s == 0) || (rng() % 3 != 0);
    return t;
}

// Runs one SDPA node on CPU and TEMPLATE with the same random inputs; expects the CPU step to be
// the flash kernel.
void check(const Case& c) {
    SCOPED_TRACE(describe(c));
    const size_t kvh = c.kv_broadcast ? 1 : c.h;
    const Shape qs{c.b, c.h, c.l, c.e}, ks{c.b, kvh, c.s, c.e}, vs{c.b, kvh, c.s, c.ev};
    auto q = op::parameter(element::f32, maybe_dynamic(qs, c.dynamic), "q");
    auto k = op::parameter(element::f32, maybe_dynamic(ks, c.dynamic), "k");
    auto v = op::parameter(element::f32, maybe_dynamic(vs, c.dynamic), "v");
    std::vector<NodePtr> params{q, k, v};
    std::vector<Tensor> inputs{random_tensor(qs, 11, -2.f, 2.f), random_tensor(ks, 12, -2.f, 2.f),
                               random_tensor(vs, 13)};
    Output mask, scale;
    if (c.mask == Mask::kFloat || c.mask == Mask::kExportedCausal) {
        const Shape ms{c.b, 1, c.l, c.s};
        auto m = op::parameter(element::f32, maybe_dynamic(ms, c.dynamic), "mask");
        params.push_back(m);
        inputs.push_back(c.mask == Mask::kFloat ? random_tensor(ms, 14, -3.f, 3.f)
                                                : exported_mask(c.b, c.l, c.s, 3));
        mask = m;
        scale = op::constant<float>(element::f32, {}, {0.37f});
    } else if (c.mask == Mask::kBoolean) {
        auto m = op::parameter(element::boolean, PartialShape(Shape{1, 1, c.l, c.s}), "mask");
        params.push_back(m);
        inputs.push_back(boolean_mask(c.l, c.s, 15));
        mask = m;
    } else if (c.mask == Mask::kCausalAttribute) {
        mask = op::constant<float>(element::f32, {}, {0.f});
    }
    auto node =
        op::scaled_dot_product_attention(q, k, v, mask, scale, c.mask == Mask::kCausalAttribute);
    node->set_friendly_name("sdpa");
    auto model = std::make_shared<Model>(OutputVector{node}, params, "sdpa");
    Core core = make_core();
    const auto expected = run_model(core, model, "TEMPLATE", inputs);
    const auto actual = run_model(core, model, "CPU", inputs);
    ASSERT_EQ(actual.size(), 1u);
    EXPECT_TRUE(all_close(actual[0], expected[0], 1e-4, 1e-5));
    const auto runtime = core.compile_model(model, "CPU").get_runtime_model();
    size_t flash = 0;
    for (const auto& n : runtime->get_ordered_ops())
        if (n->get_type_name() == "ScaledDotProductAttention")
            flash += n->get_rt_info().at("primitiveType").as<std::string>() == "flash_attention";
    EXPECT_EQ(flash, 1u);
}

TEST(Attention, MatchesTemplateWithoutMask) {
    check({1, 2, 37, 37, 64, 64, Mask::kNone, false});
    check({2, 3, 70, 150, 16, 24, Mask::kNone, true});  // E, Ev not multiples of the vector
}

TEST(Attention, MatchesTemplateWithAFloatMask) {
    check({2, 2, 33, 65, 64, 64, Mask::kFloat, false});
    check({1, 3, 100, 129, 20, 8, Mask::kFloat, true});
}

TEST(Attention, MatchesTemplateWithABooleanMask) {
    check({1, 2, 45, 70, 32, 32, Mask::kBoolean, false});
}

TEST(Attention, MatchesTemplateWhenCausal) {
    check({1, 2, 100, 100, 64, 64, Mask::kCausalAttribute, false});
    check({1, 1, 40, 130, 8, 8, Mask::kCausalAttribute, true});  // L < S: top-left aligned
    check({1, 1, 70, 30, 8, 8, Mask::kCausalAttribute, false});  // L > S
}

TEST(Attention, MatchesTemplateWithTheExportedCausalPaddingMask) {
    // Rows 0-2 of batch 0 see only padding: every score is the lowest float, as in the
    // reference; the other rows' hidden key blocks are skipped.
    check({2, 2, 100, 100, 64, 64, Mask::kExportedCausal, true});
    check({1, 2, 1, 200, 64, 64, Mask::kExportedCausal, true});  // a decode step
}

TEST(Attention, MatchesTemplateForOneQueryRow) {
    check({2, 3, 1, 40, 64, 64, Mask::kNone, true});
    check({1, 4, 1, 300, 64, 64, Mask::kFloat, false});
    check({1, 2, 3, 300, 64, 48, Mask::kFloat, false});  // 3 rows: the unpacked product
}

TEST(Attention, MatchesTemplateForFewKeys) {
    check({1, 2, 5, 1, 16, 16, Mask::kNone, false});
    check({1, 2, 1, 1, 64, 64, Mask::kFloat, true});
    check({1, 2, 4, 0, 16, 16, Mask::kNone, true});  // no keys: zeros
}

TEST(Attention, MatchesTemplateWithBroadcastKeysAndValues) {
    check({2, 4, 33, 50, 16, 16, Mask::kNone, false, true});
}

// The attention exporters write: CPU compiles it to one flash step, TEMPLATE runs it op by op.
TEST(Attention, ExportedPatternIsFusedAndMatchesTemplate) {
    const size_t b = 2, h = 3, l = 50, s = 50, e = 16;
    const PartialShape dyn = PartialShape::parse("?,3,?,16");
    auto q = op::parameter(element::f32, dyn, "q");
    auto k = op::parameter(element::f32, dyn, "k");
    auto v = op::parameter(element::f32, dyn, "v");
    auto m = op::parameter(element::f32, PartialShape::parse("?,1,?,?"), "mask");
    auto scores = op::matmul(q, op::transpose(k, op::int64_vector({0, 1, 3, 2})));
    auto scaled = op::multiply(scores, op::constant<float>(element::f32, {}, {0.25f}));
    auto probs = op::softmax(op::add(scaled, m), -1);
    auto out = op::relu(op::matmul(probs, v));
    auto model = std::make_shared<Model>(OutputVector{out}, std::vector<NodePtr>{q, k, v, m}, "x");
    std::vector<Tensor> inputs{random_tensor({b, h, l, e}, 1), random_tensor({b, h, s, e}, 2),
                               random_tensor({b, h, s, e}, 3), exported_mask(b, l, s, 2)};
    Core core = make_core();
    const auto expected = run_model(core, model, "TEMPLATE", inputs);
    const auto actual = run_model(core, model, "CPU", inputs);
    EXPECT_TRUE(all_close(actual[0], expected[0], 1e-4, 1e-5));
    const auto runtime = core.compile_model(model, "CPU").get_runtime_model();
    size_t fused = 0, softmax = 0;
    for (const auto& n : runtime->get_ordered_ops()) {
        fused += n->get_type_name() == "ScaledDotProductAttention";
        softmax += n->get_type_name() == "Softmax";
    }
    EXPECT_EQ(fused, 1u);
    EXPECT_EQ(softmax, 0u);
    // The first run at new shapes runs the generic graph (the flash kernel); the second uses the
    // graph compiled for them, which starts from the model before the fusion: attention on
    // oneDNN's matmul and softmax, faster than the flash kernel for static shapes. The values
    // stay TEMPLATE's.
    auto compiled = core.compile_model(model, "CPU", {enable_profiling(true)});
    auto request = compiled.create_infer_request();
    for (size_t i = 0; i < inputs.size(); ++i) request.set_input_tensor(i, inputs[i]);
    for (int run = 0; run < 2; ++run) {
        SCOPED_TRACE("run " + std::to_string(run));
        request.infer();
        EXPECT_TRUE(all_close(request.get_output_tensor(), expected[0], 1e-4, 1e-5));
        size_t flash_rows = 0, softmax_rows = 0;
        for (const auto& row : request.get_profiling_info()) {
            flash_rows += row.exec_type == "flash_attention";
            softmax_rows += row.node_type.find("Softmax") != std::string::npos;
        }
        EXPECT_EQ(flash_rows, run == 0 ? 1u : 0u);
        EXPECT_EQ(softmax_rows >= 1u, run == 1);
    }
}

// Llama's repeat_kv as torch exports it: x [B, Hkv, S, E] -> Unsqueeze(2) -> Expand to
// [B, Hkv, n, S, E] (the target from x's own shape) -> Reshape to [B, Hkv*n, S, E].
Output repeat_kv(const Output& x, int64_t kv_heads, int64_t groups, int64_t e) {
    auto shape = op::shape_of(x);
    auto dim = [&](int64_t i) {
        return op::gather(shape, op::int64_vector({i}), op::int64_vector({0}));
    };
    auto target = op::concat({dim(0), op::int64_vector({kv_heads, groups}), dim(2), dim(3)}, 0);
    auto wide = op::broadcast(op::unsqueeze(x, op::int64_vector({2})), target, "bidirectional");
    auto merged = op::concat(
        {dim(0), op::int64_vector({kv_heads * groups}), dim(2), op::int64_vector({e})}, 0);
    return op::reshape(wide, merged, false);
}

// Grouped-query attention (6 query heads over 2 key/value heads): fused without the repeat's
// copies, the dynamic graph's flash step reading K and V as [B, 2, 1, S, E] (the Broadcast left
// in front of it widens nothing and is passed through); the values are TEMPLATE's, at two shape
// sets, a one-token decode step among them.
TEST(Attention, GroupedQueryAttentionSkipsTheRepeatedHeads) {
    const int64_t kvh = 2, groups = 3, e = 16;
    // Q as exporters write it: [B, L, H·E] split into heads by a Reshape to a computed target and
    // transposed, so its head count is unknown at compile time (the run-time split's path).
    auto x = op::parameter(element::f32, PartialShape::parse("?,?,96"), "q");
    auto xshape = op::shape_of(x);
    auto xdims = op::gather(xshape, op::int64_vector({0, 1}), op::int64_vector({0}));
    auto q = op::transpose(op::reshape(x, op::concat({xdims, op::int64_vector({6, 16})}, 0), false),
                           op::int64_vector({0, 2, 1, 3}));
    auto k = op::parameter(element::f32, PartialShape::parse("?,2,?,16"), "k");
    auto v = op::parameter(element::f32, PartialShape::parse("?,2,?,16"), "v");
    auto m = op::parameter(element::f32, PartialShape::parse("?,1,?,?"), "mask");
    auto kt = op::transpose(repeat_kv(k, kvh, groups, e), op::int64_vector({0, 1, 3, 2}));
    auto scores = op::multiply(op::matmul(q, kt), op::constant<float>(element::f32, {}, {0.25f}));
    auto probs = op::softmax(op::add(scores, m), -1);
    auto out = op::relu(op::matmul(probs, repeat_kv(v, kvh, groups, e)));
    auto model =
        std::make_shared<Model>(OutputVector{out}, std::vector<NodePtr>{x, k, v, m}, "gqa");
    Core core = make_core();
    const AnyMap dynamic_graph{{"CPU_SHAPE_CACHE_SIZE", 0}, {"PERF_COUNT", true}};
    auto compiled = core.compile_model(model, "CPU", dynamic_graph);
    size_t fused = 0, softmax = 0;
    for (const auto& n : compiled.get_runtime_model()->get_ordered_ops()) {
        if (n->get_type_name() == "ScaledDotProductAttention") {
            ++fused;
            // Q [B, 2, 3, L, 16]; K and V [B, 2, 1, S, 16] (dimensions the exported shape
            // arithmetic leaves unknown at compile time).
            for (size_t i = 0; i < 3; ++i)
                EXPECT_EQ(n->input_value(i).get_partial_shape().size(), 5u) << i;
        }
        softmax += n->get_type_name() == "Softmax";
    }
    EXPECT_EQ(fused, 1u);
    EXPECT_EQ(softmax, 0u);
    auto request = compiled.create_infer_request();
    for (const auto& [b, l, s] : {std::tuple<size_t, size_t, size_t>{2, 5, 37}, {1, 1, 40}}) {
        SCOPED_TRACE("B" + std::to_string(b) + " L" + std::to_string(l) + " S" + std::to_string(s));
        std::vector<Tensor> inputs{random_tensor({b, l, 96}, 1, -2.f, 2.f),
                                   random_tensor({b, 2, s, 16}, 2, -2.f, 2.f),
                                   random_tensor({b, 2, s, 16}, 3), exported_mask(b, l, s, 2)};
        const auto expected = run_model(core, model, "TEMPLATE", inputs);
        for (size_t i = 0; i < inputs.size(); ++i) request.set_input_tensor(i, inputs[i]);
        request.infer();
        EXPECT_TRUE(all_close(request.get_output_tensor(), expected[0], 1e-4, 1e-5));
        size_t flash = 0;
        for (const auto& row : request.get_profiling_info())
            flash += row.exec_type == "flash_attention";
        EXPECT_EQ(flash, 1u);
    }
}

}  // namespace
}  // namespace attention_test
}  // namespace vireo::cpu_test
