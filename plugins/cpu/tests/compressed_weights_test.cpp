// Weight-only compression (vireo::compress_weights) and the CPU's MatMul over the integers: the
// transformation's pattern and counts, the compressed model's results next to the f32 model's
// (within the quantization error) and next to TEMPLATE running the decompression as written
// (within float rounding), for token-sized and prompt-sized inputs, static and dynamic shapes,
// per-channel and grouped scales, symmetric and asymmetric; the profile shows the integer kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_utils.hpp"
#include "vireo/ops.hpp"
#include "vireo/transformations.hpp"

namespace vireo::cpu_test {
namespace {

using ModelPtr = std::shared_ptr<Model>;

// x [rows..., K] -> MatMul(x, W) -> Add(bias) with W [K, N] (or [N, K] with transpose_b).
ModelPtr linear_model(const PartialShape& x_shape, size_t k, size_t n, bool transpose_b,
                      unsigned seed) {
    auto x = op::parameter(element::f32, x_shape, "x");
    const Shape w_shape = transpose_b ? Shape{n, k} : Shape{k, n};
    auto w = op::constant(random_tensor(w_shape, seed));
    auto mm = op::matmul(x, w, false, transpose_b);
    mm->set_friendly_name("fc");
    auto y = op::add(mm, op::constant(random_tensor(Shape{n}, seed + 1)));
    return std::make_shared<Model>(OutputVector{y}, std::vector<NodePtr>{x}, "linear");
}

size_t count_type(const Model& model, const std::string& type) {
    size_t count = 0;
    for (const auto& node : model.get_ordered_ops()) count += node->get_type_name() == type;
    return count;
}

// The profile of one CPU run of `model` on `x` (stage rows left out).
std::vector<ProfilingInfo> profile_rows(const ModelPtr& model, const Tensor& x) {
    Core core = make_core();
    auto request =
        core.compile_model(model, "CPU", {{enable_profiling.name(), true}}).create_infer_request();
    request.set_input_tensor(x);
    request.infer();
    std::vector<ProfilingInfo> rows;
    for (const auto& row : request.get_profiling_info())
        if (row.node_type != "Stage") rows.push_back(row);
    return rows;
}

// Largest |a - b| over all elements.
double max_diff(const Tensor& a, const Tensor& b) {
    double worst = 0;
    for (size_t i = 0; i < a.get_size(); ++i)
        worst = std::max(worst, std::fabs(static_cast<double>(a.data<float>()[i]) -
                                          static_cast<double>(b.data<float>()[i])));
    return worst;
}

TEST(CompressWeights, ReplacesConstantMatMulWeightsByIntegersWithAScalePerChannel) {
    for (const bool transpose_b : {false, true}) {
        auto model = linear_model(PartialShape{2, 96}, 96, 80, transpose_b, 3);
        const auto stats = compress_weights(model);
        EXPECT_EQ(stats.matmuls, 1u);
        EXPECT_EQ(stats.bytes_before, 96u * 80 * 4);
        EXPECT_EQ(stats.bytes_after, 96u * 80 + 80 * 4);  // i8 values + one f32 scale per channel
        EXPECT_EQ(count_type(*model, "Convert"), 1u);
        EXPECT_EQ(count_type(*model, "Multiply"), 1u);
        EXPECT_EQ(count_type(*model, "Subtract"), 0u);
        for (const auto& node : model->get_ordered_ops()) {
            if (node->get_type_name() != "MatMul") continue;
            EXPECT_TRUE(node->get_attribute<bool>("transpose_b"));
            EXPECT_EQ(node->input_value(1).get_partial_shape(), PartialShape({80, 96}));
        }
        EXPECT_EQ(model->get_results().at(0)->input_value(0).get_partial_shape(),
                  PartialShape({2, 80}));
    }
}

TEST(CompressWeights, AsymmetricGroupsAddZeroPointsAndAReshape) {
    auto model = linear_model(PartialShape{1, 128}, 128, 64, false, 5);
    const auto stats = compress_weights(
        model, {WeightCompressionMode::kInt8Asym, /*group_size=*/32, /*min_elements=*/1});
    EXPECT_EQ(stats.matmuls, 1u);
    EXPECT_EQ(stats.bytes_after, 128u * 64 + 64 * 4 * (4 + 1));  // u8, scales, u8 zero points
    EXPECT_EQ(count_type(*model, "Subtract"), 1u);
    EXPECT_EQ(count_type(*model, "Reshape"), 1u);
}

TEST(CompressWeights, Int4PacksTwoWeightsPerByteInGroupsOf128ByDefault) {
    auto model = linear_model(PartialShape{1, 256}, 256, 64, false, 9);
    const auto stats = compress_weights(model, {WeightCompressionMode::kInt4Sym});
    EXPECT_EQ(stats.matmuls, 1u);
    EXPECT_EQ(stats.bytes_after, 256u * 64 / 2 + 64 * 2 * 4);  // nibbles + a scale per 128
    bool found = false;
    for (const auto& node : model->get_ordered_ops())
        if (node->get_type_name() == "Constant" &&
            node->get_output_element_type(0) == element::i4) {
            EXPECT_EQ(node->get_output_partial_shape(0), PartialShape({64, 2, 128}));
            found = true;
        }
    EXPECT_TRUE(found);
    // An odd reduction length cannot be packed by rows: the weights stay f32.
    auto odd = linear_model(PartialShape{1, 4097}, 4097, 2, false, 9);
    EXPECT_EQ(compress_weights(odd, {WeightCompressionMode::kInt4Asym}).matmuls, 0u);
}

TEST(CompressWeights, LeavesSmallAndNonConstantWeightsAndNamesABadMode) {
    auto small = linear_model(PartialShape{1, 16}, 16, 8, false, 1);
    EXPECT_EQ(compress_weights(small).matmuls, 0u);  // 128 elements < min_elements 4096
    auto a = op::parameter(element::f32, PartialShape{4, 64}, "a");
    auto b = op::parameter(element::f32, PartialShape{64, 128}, "b");
    auto both = std::make_shared<Model>(OutputVector{op::matmul(a, b)}, std::vector<NodePtr>{a, b},
                                        "two_inputs");
    EXPECT_EQ(compress_weights(both).matmuls, 0u);
    // A weight that is not finite has no integer: that MatMul stays f32.
    Tensor nan_weights = random_tensor(Shape{128, 64}, 2);
    nan_weights.data<float>()[5] = std::numeric_limits<float>::quiet_NaN();
    auto x = op::parameter(element::f32, PartialShape{1, 128}, "x");
    auto nan_model = std::make_shared<Model>(OutputVector{op::matmul(x, op::constant(nan_weights))},
                                             std::vector<NodePtr>{x}, "nan");
    EXPECT_EQ(compress_weights(nan_model).matmuls, 0u);
    try {
        weight_compression_mode("int3");
        FAIL() << "int3 accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("'int3'"), std::string::npos) << e.what();
    }
}

struct Case {
    const char* name;
    PartialShape model_shape;  // what the model declares (dynamic dims run the dynamic graph)
    Shape input;               // what is fed
    size_t k, n;
    WeightCompressionMode mode;
    size_t group;
};

class CompressedMatMul : public ::testing::TestWithParam<Case> {};

// CPU multiplies with the integers; TEMPLATE runs Convert, Multiply and MatMul as written: the
// same numbers up to float rounding. Both are within the quantization error of the f32 model.
TEST_P(CompressedMatMul, MatchesTemplateAndStaysNearTheF32Model) {
    const Case& c = GetParam();
    auto f32 = linear_model(c.model_shape, c.k, c.n, false, 11);
    auto model = f32->clone();
    ASSERT_EQ(compress_weights(model, {c.mode, c.group, 1}).matmuls, 1u);
    Core core = make_core();
    const Tensor x = random_tensor(c.input, 7);
    const Tensor cpu = run_model(core, model, "CPU", {x}).at(0);
    const Tensor ref = run_model(core, model, "TEMPLATE", {x}).at(0);
    const Tensor exact = run_model(core, f32, "TEMPLATE", {x}).at(0);
    ASSERT_EQ(cpu.get_shape(), ref.get_shape());
    EXPECT_TRUE(all_close(cpu, ref, 1e-4, 1e-4));
    // Weights in [-1, 1): a quantum of at most 2/255 (int8) or 2/14 (int4) per weight, half of
    // it as error, times the sum of |x| over K (at most K).
    const bool int4 =
        c.mode == WeightCompressionMode::kInt4Sym || c.mode == WeightCompressionMode::kInt4Asym;
    const double bound = 0.5 * (2.0 / (int4 ? 14.0 : 254.0)) * static_cast<double>(c.k);
    EXPECT_LT(max_diff(cpu, exact), bound);
    EXPECT_GT(max_diff(cpu, exact), 0.0);  // the integers were used, not the f32 weights
    // The step that ran is the integer kernel, not a oneDNN or reference MatMul.
    bool found = false;
    for (const auto& row : profile_rows(model, x))
        if (row.node_type == "MatMul") {
            EXPECT_EQ(row.exec_type.rfind("compressed_", 0), 0u) << row.exec_type;
            found = true;
        }
    EXPECT_TRUE(found);
}

const auto kSym = WeightCompressionMode::kInt8Sym;
const auto kAsym = WeightCompressionMode::kInt8Asym;
const auto kSym4 = WeightCompressionMode::kInt4Sym;
const auto kAsym4 = WeightCompressionMode::kInt4Asym;
INSTANTIATE_TEST_SUITE_P(
    Shapes, CompressedMatMul,
    ::testing::Values(
        // One token (the GEMV path), channels not a multiple of 4, K with a tail after 16s.
        Case{"token", PartialShape{1, 100}, Shape{1, 100}, 100, 70, kSym, 0},
        Case{"token_asym", PartialShape{1, 96}, Shape{1, 96}, 96, 64, kAsym, 0},
        Case{"rows3_groups", PartialShape{3, 128}, Shape{3, 128}, 128, 67, kSym, 32},
        Case{"rows4_asym_groups", PartialShape{4, 128}, Shape{4, 128}, 128, 33, kAsym, 64},
        // More rows: dequantized blocks and sgemm (more channels than one block of 256).
        Case{"prompt", PartialShape{2, 9, 64}, Shape{2, 9, 64}, 64, 300, kSym, 0},
        Case{"prompt_asym_groups", PartialShape{17, 64}, Shape{17, 64}, 64, 40, kAsym, 16},
        // Dynamic models run the dynamic graph, with the shapes of each call.
        Case{"dynamic_token", PartialShape{Dimension::dynamic(), 80}, Shape{1, 80}, 80, 48, kSym,
             0},
        Case{"dynamic_rows", PartialShape{1, Dimension::dynamic(), 80}, Shape{1, 6, 80}, 80, 48,
             kAsym, 0},
        // A vector input [K] gives [N].
        Case{"vector", PartialShape{72}, Shape{72}, 72, 20, kSym, 0},
        // int4, two weights per byte: groups with a tail after the 16s, per channel, asymmetric,
        // the GEMV and the blocked paths, a dynamic model.
        Case{"int4_token", PartialShape{1, 96}, Shape{1, 96}, 96, 70, kSym4, 48},
        Case{"int4_token_channel", PartialShape{2, 100}, Shape{2, 100}, 100, 9, kSym4, 100},
        Case{"int4_asym_rows4", PartialShape{4, 128}, Shape{4, 128}, 128, 37, kAsym4, 32},
        Case{"int4_prompt", PartialShape{9, 64}, Shape{9, 64}, 64, 260, kAsym4, 16},
        Case{"int4_dynamic", PartialShape{Dimension::dynamic(), 64}, Shape{1, 64}, 64, 24, kSym4,
             0}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// Decompressed weights that something else reads too stay an ordinary (folded) constant on CPU:
// the results are still those of the compressed model.
TEST(CompressedMatMulShared, DecompressionReadByAnotherOpRunsAsWritten) {
    auto model = linear_model(PartialShape{2, 64}, 64, 32, false, 13);
    ASSERT_EQ(compress_weights(model, {kSym, 0, 1}).matmuls, 1u);
    Output decompressed;
    for (const auto& node : model->get_ordered_ops())
        if (node->get_type_name() == "MatMul") decompressed = node->input_value(1);
    auto sum = op::reduce_sum(decompressed, op::int64_vector({1}), false);  // [32]
    model->add_results({op::result(sum)});
    model->validate();
    expect_matches_template(model, 1e-4, 1e-4);
    for (const auto& row : cpu_profile(model)) {
        if (row.node_type == "MatMul") {
            EXPECT_EQ(row.exec_type.find("compressed_"), std::string::npos);
        }
    }
}

// A compressed model changes input shape between calls on one request (a decoder's prompt, then
// its tokens): every call gives TEMPLATE's answer.
TEST(CompressedMatMulDynamic, ShapesThatChangeBetweenCallsOfOneRequest) {
    auto model = linear_model(PartialShape{Dimension::dynamic(), 64}, 64, 96, false, 17);
    ASSERT_EQ(compress_weights(model, {kSym, 0, 1}).matmuls, 1u);
    Core core = make_core();
    auto cpu = core.compile_model(model, "CPU").create_infer_request();
    auto ref = core.compile_model(model, "TEMPLATE").create_infer_request();
    for (size_t rows : {7u, 1u, 2u, 12u, 1u}) {
        const Tensor x = random_tensor(Shape{rows, 64}, static_cast<unsigned>(rows));
        cpu.set_input_tensor(x);
        ref.set_input_tensor(x);
        cpu.infer();
        ref.infer();
        EXPECT_TRUE(all_close(cpu.get_output_tensor(), ref.get_output_tensor(), 1e-4, 1e-4))
            << rows << " rows";
    }
}

// Hostile shapes of the pattern: zero groups ([N, 0, G] integers for K = 0) and an empty
// reduction run as written (no division by a zero group count), giving TEMPLATE's zeros.
TEST(CompressedMatMulHostile, EmptyReductionAndZeroGroups) {
    for (const bool grouped : {false, true}) {
        auto a = op::parameter(element::f32, PartialShape{2, 0}, "a");
        const Shape q_shape = grouped ? Shape{4, 0, 16} : Shape{4, 0};
        const Shape s_shape = grouped ? Shape{4, 0, 1} : Shape{4, 1};
        Output w =
            op::multiply(op::convert(op::constant(Tensor(element::i8, q_shape)), element::f32),
                         op::constant(Tensor(element::f32, s_shape)));
        if (grouped) w = op::reshape(w, op::int64_vector({4, 0}), false);
        auto model = std::make_shared<Model>(OutputVector{op::matmul(a, w, false, true)},
                                             std::vector<NodePtr>{a}, "empty_k");
        Core core = make_core();
        const Tensor x(element::f32, Shape{2, 0});
        const Tensor cpu = run_model(core, model, "CPU", {x}).at(0);
        ASSERT_EQ(cpu.get_shape(), Shape({2, 4}));
        for (size_t i = 0; i < cpu.get_size(); ++i) EXPECT_EQ(cpu.data<float>()[i], 0.f);
    }
}

}  // namespace
}  // namespace vireo::cpu_test
