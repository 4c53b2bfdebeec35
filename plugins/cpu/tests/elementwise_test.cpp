// Element-wise, concatenation and reduction steps on oneDNN (graph_compiler_elementwise.cpp), the
// folding of shape arithmetic before compiling, the per-shape cache and CPU_REFERENCE_OPS: each
// gives TEMPLATE's results, and the profile shows oneDNN steps where reference kernels ran before.
#include <gtest/gtest.h>

#include <iostream>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

using ModelPtr = std::shared_ptr<Model>;

ModelPtr model_of(const OutputVector& outputs, const ParameterVector& params) {
    return std::make_shared<Model>(outputs, params, "elementwise");
}

NodePtr random_constant(const Shape& shape, unsigned seed, float scale = 0.3f) {
    return op::constant(random_tensor(shape, seed, -scale, scale));
}

NodePtr f32_scalar(double value) {
    return op::constant<float>(element::f32, Shape{}, {static_cast<float>(value)});
}

NodePtr i64_vector(const std::vector<int64_t>& values) {
    return op::constant<int64_t>(element::i64, Shape{values.size()}, values);
}

NodePtr conv1x1(const Output& x, size_t out_channels, size_t in_channels, unsigned seed) {
    return op::convolution(x, random_constant({out_channels, in_channels, 1, 1}, seed), {1, 1},
                           {0, 0}, {0, 0}, {1, 1});
}

// The rows of a profile that ran on a reference kernel (exec_type "ref"), printed on failure.
size_t reference_rows(const std::vector<ProfilingInfo>& rows) {
    size_t n = 0;
    for (const auto& r : rows)
        if (r.exec_type == "ref") {
            ++n;
            std::cout << "  reference row: " << r.node_name << " [" << r.node_type << "]\n";
        }
    return n;
}

size_t type_rows(const std::vector<ProfilingInfo>& rows, const std::string& type) {
    size_t n = 0;
    for (const auto& r : rows) n += r.node_type == type;
    return n;
}

TEST(Elementwise, EveryUnaryOpRunsOnOneDnnWithTemplatesValues) {
    // 3 x 37: a tail that is not a multiple of any vector width.
    for (const char* type : {"Relu", "Sigmoid", "Tanh", "Exp", "Abs", "Negative", "HSwish",
                             "HSigmoid", "Mish", "SoftPlus", "Round"}) {
        SCOPED_TRACE(type);
        auto x = op::parameter(element::f32, {3, 37}, "x");
        auto y = op::unary(type, x);
        auto model = model_of({y}, {x});
        expect_matches_template(model, 1e-5, 1e-5);
        const auto rows = cpu_profile(model);
        EXPECT_EQ(reference_rows(rows), 0u);
        EXPECT_EQ(type_rows(rows, type), 1u);
    }
}

// Convert runs as a reorder only where the reorder converts as ONNX does: integers to f32, and
// f32 to integers when the values are integers already; other f32 -> integer Converts truncate
// on the reference kernel (a reorder would round 2.6 to 3).
TEST(Elementwise, ConvertRunsAsAReorderOnlyWhereExact) {
    auto x = op::parameter(element::f32, {3, 40}, "x");
    auto scaled = op::multiply(x, f32_scalar(3.7));
    auto truncated = op::convert(scaled, element::i32);  // reference kernel
    auto rounded = op::convert(
        op::clamp(op::add(make_node("Round", {scaled}, {{"mode", std::string("half_to_even")}}),
                          f32_scalar(100)),
                  0, 255),
        element::u8);                                   // integers already: reorder
    auto back = op::convert(truncated, element::f32);   // i32 -> f32: reorder
    auto back_u8 = op::convert(rounded, element::f32);  // u8 -> f32: reorder
    auto model = model_of({back, back_u8}, {x});
    expect_matches_template(model, 0, 0, 7);
    size_t reorders = 0, reference = 0;
    for (const auto& r : cpu_profile(model)) {
        if (r.node_type != "Convert") continue;
        reference += r.exec_type == "ref";
        reorders += r.exec_type.find("->") != std::string::npos;
    }
    EXPECT_EQ(reference, 1u);
    EXPECT_EQ(reorders, 3u);
}

TEST(Elementwise, ActivationsWithAttributesAndPositiveDomains) {
    auto x = op::parameter(element::f32, {2, 5, 7}, "x");
    // Sqrt and Log of |x| + 0.5 (positive); Elu, Clamp, Gelu (both forms), Swish with a beta.
    auto positive = op::add(op::unary("Abs", x), f32_scalar(0.5));
    OutputVector outs{op::sqrt(positive),           op::unary("Log", positive), op::elu(x, 0.7),
                      op::clamp(x, -0.3, 0.4),      op::gelu(x, "erf"),         op::gelu(x, "tanh"),
                      op::swish(x, f32_scalar(1.5))};
    auto model = model_of(outs, {x});
    expect_matches_template(model, 1e-5, 1e-5);
    // Log alone stays on its reference kernel (oneDNN's log(1) is -1.4e-6, not 0).
    const auto rows = cpu_profile(model);
    EXPECT_EQ(reference_rows(rows), 1u);
    for (const auto& r : rows)
        if (r.exec_type == "ref") {
            EXPECT_EQ(r.node_type, "Log");
        }
}

// PRelu with a single slope (ONNX's LeakyRelu imports as it) is oneDNN's relu with alpha, alone
// and fused after a convolution; a per-channel slope is still PRelu's own reference step.
TEST(Elementwise, PReluWithOneSlopeIsALeakyRelu) {
    auto x = op::parameter(element::f32, {1, 3, 6, 7}, "x");
    auto w = op::constant(random_tensor({5, 3, 3, 3}, 41, -0.5f, 0.5f));
    auto conv = op::convolution(x, w, {1, 1}, {1, 1}, {1, 1}, {1, 1});
    auto leaky_alone = op::prelu(x, f32_scalar(0.01));
    auto leaky_after_conv = op::prelu(conv, f32_scalar(0.2));
    auto per_channel = op::prelu(x, op::constant(random_tensor({3, 1, 1}, 42, 0.f, 0.5f)));
    auto model = model_of({leaky_alone, leaky_after_conv, per_channel}, {x});
    expect_matches_template(model, 1e-5, 1e-5);
    const auto rows = cpu_profile(model);
    EXPECT_EQ(reference_rows(rows), 1u);  // the per-channel one
    size_t fused = 0;
    for (const auto& r : rows) fused += r.node_type == "Convolution+PRelu";
    EXPECT_EQ(fused, 1u);
}

TEST(Elementwise, RepeatedActivationsInOneChainKeepTheirOwnConstants) {
    // oneDNN 2.6 computed a second eltwise post-op of one algorithm with the first one's
    // constants: 0.5 * x, |.|, + 0.6 gave 0.5 * |0.5 x|; two clips kept the first's bounds.
    auto x = op::parameter(element::f32, {4, 33}, "x");
    auto a = op::add(op::unary("Abs", op::multiply(x, f32_scalar(0.5))), f32_scalar(0.6));
    auto b = op::clamp(op::unary("Tanh", op::clamp(x, -0.5, 2.0)), -2.0, 0.25);
    auto model = model_of({a, b}, {x});
    expect_matches_template(model, 1e-5, 1e-5);
    EXPECT_EQ(reference_rows(cpu_profile(model)), 0u);
}

TEST(Elementwise, ScalarOperandsOnEitherSide) {
    auto x = op::parameter(element::f32, {4, 9}, "x");
    auto two = f32_scalar(2.0);
    auto shifted = op::add(op::unary("Abs", x), f32_scalar(1.0));
    OutputVector outs{op::subtract(two, x), op::subtract(x, two), op::divide(two, shifted),
                      op::divide(x, two),   op::multiply(two, x), op::power(shifted, two),
                      op::maximum(x, two),  op::minimum(two, x)};
    auto model = model_of(outs, {x});
    expect_matches_template(model, 1e-5, 1e-5);
    EXPECT_EQ(reference_rows(cpu_profile(model)), 0u);
}

// x / s is IEEE division, not x * (1/s): the two differ by an ulp for many x when 1/s is not
// exact (s not a power of two), and quantization arithmetic rounds right after (ONNX's
// DynamicQuantizeLinear scale (max - min) / 255, QuantizeLinear's x / scale), so an ulp moves a
// quantized value by one step. Found by IS-Net's dynamically quantized export (docs/onnx.md).
TEST(Elementwise, DivisionByAScalarConstantIsExactDivision) {
    const size_t n = 64;
    Tensor a(element::f32, Shape{n}), b(element::f32, Shape{n});
    float* pa = a.data<float>();
    float* pb = b.data<float>();
    size_t differs = 0;  // elements where the reciprocal's product is not the quotient
    for (size_t i = 0; i < n; ++i) {
        pa[i] = 0.37f + 0.113f * static_cast<float>(i);
        pb[i] = -0.05f * static_cast<float>(i % 7);
        const float d = pa[i] - pb[i];
        differs += d * (1.f / 255.f) != d / 255.f;
    }
    ASSERT_GT(differs, 0u);  // the inputs do tell the two apart
    auto x = op::parameter(element::f32, {n}, "x");
    auto y = op::parameter(element::f32, {n}, "y");
    auto alone = op::divide(x, f32_scalar(255.0));                     // one eltwise step
    auto chained = op::divide(op::subtract(x, y), f32_scalar(255.0));  // a post-op of the Subtract
    auto by_eight = op::divide(op::subtract(y, x), f32_scalar(8.0));   // exact either way
    auto model = model_of({alone, chained, by_eight}, {x, y});
    Core core = make_core();
    const auto out = run_model(core, model, "CPU", {a, b});
    for (size_t i = 0; i < n; ++i) {
        EXPECT_EQ(out[0].data<float>()[i], pa[i] / 255.f) << "x / 255 at " << i;
        EXPECT_EQ(out[1].data<float>()[i], (pa[i] - pb[i]) / 255.f) << "(x - y) / 255 at " << i;
        EXPECT_EQ(out[2].data<float>()[i], (pb[i] - pa[i]) / 8.f) << "(y - x) / 8 at " << i;
    }
    EXPECT_EQ(reference_rows(cpu_profile(model)), 0u);  // still on oneDNN
}

TEST(Elementwise, BinaryBroadcastingOfEveryRank) {
    struct Case {
        Shape a, b;
        size_t reference_rows;
    };
    const std::vector<Case> cases{
        {{2, 3, 4, 5}, {5}, 0},
        {{2, 3, 4, 5}, {1, 3, 1, 1}, 0},
        {{2, 3, 4, 5}, {2, 3, 4, 5}, 0},
        {{3, 17}, {17}, 0},
        {{3, 17}, {3, 1}, 0},
        {{5}, {1}, 0},
        // A broadcast along middle axes: oneDNN has only its reference implementation for it,
        // slower than the reference kernel, which runs it.
        {{2, 1, 3, 2, 4}, {3, 1, 1}, 1},
        {{1, 3, 1, 1}, {2, 3, 4, 5}, 0},  // the first one broadcasts
        {{7, 1}, {7, 6}, 0}};
    for (const char* type : {"Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum"}) {
        for (const auto& [a_shape, b_shape, expected_reference] : cases) {
            SCOPED_TRACE(std::string(type) + " " + PartialShape(a_shape).to_string() + " " +
                         PartialShape(b_shape).to_string());
            auto a = op::parameter(element::f32, a_shape, "a");
            auto b = op::parameter(element::f32, b_shape, "b");
            // Divide by values away from zero: b is shifted by 2.
            Output rhs = b;
            if (std::string(type) == "Divide") rhs = op::add(op::unary("Abs", b), f32_scalar(2));
            NodePtr y = std::string(type) == "Add"        ? op::add(a, rhs)
                        : std::string(type) == "Subtract" ? op::subtract(a, rhs)
                        : std::string(type) == "Multiply" ? op::multiply(a, rhs)
                        : std::string(type) == "Divide"   ? op::divide(a, rhs)
                        : std::string(type) == "Maximum"  ? op::maximum(a, rhs)
                                                          : op::minimum(a, rhs);
            auto model = model_of({y}, {a, b});
            expect_matches_template(model, 1e-5, 1e-5);
            EXPECT_EQ(reference_rows(cpu_profile(model)), expected_reference);
        }
    }
}

TEST(Elementwise, BinaryWithAConstantOperandAndAFusedChain) {
    auto x = op::parameter(element::f32, {2, 6, 5}, "x");
    auto y =
        op::relu(op::multiply(op::add(x, random_constant({6, 1}, 3)), random_constant({5}, 4)));
    auto model = model_of({y}, {x});
    expect_matches_template(model, 1e-5, 1e-5);
    const auto rows = cpu_profile(model);
    EXPECT_EQ(reference_rows(rows), 0u);
    // The Relu rides on the step before it (oneDNN 2.6 takes no per-last-axis binary post-op
    // after a binary broadcasting along another axis, so the Multiply is a step of its own).
    EXPECT_EQ(type_rows(rows, "Add") + type_rows(rows, "Add+Multiply+Relu") +
                  type_rows(rows, "Multiply+Relu"),
              rows.size());
    EXPECT_LE(rows.size(), 2u);
}

TEST(Elementwise, SqueezeExcitationStaysChannelsLast) {
    // EfficientNet's block: conv, global average pool, 1x1 conv, Swish, 1x1 conv, Sigmoid, and
    // the input scaled per channel (a broadcast Multiply).
    auto x = op::parameter(element::f32, {1, 16, 12, 12}, "x");
    auto features = op::relu(conv1x1(x, 32, 16, 1));
    auto pooled = op::reduce_mean(features, i64_vector({2, 3}), true);
    auto squeezed = op::swish(conv1x1(pooled, 8, 32, 2));
    auto gate = op::sigmoid(conv1x1(squeezed, 32, 8, 3));
    auto y = op::multiply(features, gate);
    auto model = model_of({y}, {x});
    expect_matches_template(model, 1e-5, 1e-5);
    const auto rows = cpu_profile(model);
    EXPECT_EQ(reference_rows(rows), 0u);
    EXPECT_EQ(type_rows(rows, "ReduceMean"), 1u);
    EXPECT_EQ(type_rows(rows, "Multiply"), 1u);
    // Into NHWC at the input and back at the output: nothing in between.
    EXPECT_EQ(type_rows(rows, "Reorder"), 2u);
}

TEST(Elementwise, ConcatOfBranchesAndOfOneInputTwice) {
    auto x = op::parameter(element::f32, {1, 8, 6, 6}, "x");
    auto a = op::relu(conv1x1(x, 4, 8, 1));
    auto b = op::relu(conv1x1(x, 12, 8, 2));
    auto pooled = op::max_pool(x, {1, 1}, {1, 1}, {1, 1}, {3, 3});
    auto c = op::concat({a, b, pooled, a}, 1);                      // `a` twice
    auto d = op::concat({x, random_constant({1, 8, 6, 6}, 5)}, 0);  // a constant input, batch axis
    auto model = model_of({c, d}, {x});
    expect_matches_template(model, 1e-5, 1e-5);
    const auto rows = cpu_profile(model);
    EXPECT_EQ(reference_rows(rows), 0u);
    EXPECT_EQ(type_rows(rows, "Concat"), 2u);
}

TEST(Elementwise, ReductionsOverAnyAxesWithAndWithoutKeptDims) {
    // Values for every case; oneDNN runs those it has a fast kernel for (the reference kernel
    // runs the rest, see GlobalPoolingRunsOnOneDnn).
    const std::vector<std::vector<int64_t>> axis_sets{{1}, {-1}, {0, 2}, {1, 2, 3}, {2, 3}};
    for (const char* type : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                             "ReduceL1", "ReduceL2"})
        for (bool keep : {true, false})
            for (const auto& set : axis_sets) {
                SCOPED_TRACE(std::string(type) + (keep ? " keep" : "") + " axes " +
                             std::to_string(set.size()) + " first " + std::to_string(set[0]));
                auto x = op::parameter(element::f32, {2, 3, 4, 5}, "x");
                // Prod of 60 values near 1 stays finite: inputs in [0.5, 1.5).
                Output in = x;
                if (std::string(type) == "ReduceProd") in = op::add(x, f32_scalar(1.0));
                auto y = op::reduce(type, in, i64_vector(set), keep);
                expect_matches_template(model_of({y}, {x}), 1e-5, 1e-5);
            }
}

TEST(Elementwise, GlobalPoolingRunsOnOneDnn) {
    // Mean and max over every spatial axis of 3-, 4- and 5-D tensors, in a channels-last region
    // (after a convolution) and on a plain input.
    for (const Shape& shape : {Shape{2, 8, 9}, Shape{1, 8, 5, 7}, Shape{1, 8, 3, 4, 5}})
        for (const char* type : {"ReduceMean", "ReduceMax"})
            for (bool after_conv : {false, true}) {
                SCOPED_TRACE(std::string(type) + " rank " + std::to_string(shape.size()) +
                             (after_conv ? " after a convolution" : ""));
                auto x = op::parameter(element::f32, shape, "x");
                Output in = x;
                if (after_conv) {
                    Shape w{8, 8};
                    w.resize(shape.size(), 1);
                    const std::vector<int64_t> ones(shape.size() - 2, 1),
                        zeros(shape.size() - 2, 0);
                    in = op::convolution(x, random_constant(w, 3), ones, zeros, zeros, ones);
                }
                std::vector<int64_t> spatial;
                for (size_t i = 2; i < shape.size(); ++i)
                    spatial.push_back(static_cast<int64_t>(i));
                auto y = op::reduce(type, in, i64_vector(spatial), true);
                auto model = model_of({y}, {x});
                expect_matches_template(model, 1e-5, 1e-5);
                const auto rows = cpu_profile(model);
                EXPECT_EQ(reference_rows(rows), 0u);
                EXPECT_EQ(type_rows(rows, type), 1u);
            }
}

TEST(Elementwise, EmptyTensorsGiveEmptyOutputs) {
    auto x = op::parameter(element::f32, {0, 4}, "x");
    auto y = op::relu(op::add(x, random_constant({4}, 1)));
    auto model = model_of({y}, {x});
    Core core = make_core();
    const auto out = run_model(core, model, "CPU", {Tensor(element::f32, Shape{0, 4})});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].get_shape(), (Shape{0, 4}));
}

// x [?, 3, 4, 4] -> conv -> Reshape to [batch, -1] with the batch read by ShapeOf -> Gather ->
// Concat (as exporters write Flatten) -> MatMul.
ModelPtr flatten_by_shape_of(const PartialShape& input) {
    auto x = op::parameter(element::f32, input, "x");
    auto c = op::relu(conv1x1(x, 6, 3, 1));
    auto batch = op::gather(op::shape_of(c), i64_vector({0}),
                            op::constant<int64_t>(element::i64, Shape{}, {0}));
    auto target = op::concat({batch, i64_vector({-1})}, 0);
    auto flat = op::reshape(c, target, false);
    auto y = op::matmul(flat, random_constant({96, 2}, 2));
    y->set_friendly_name("logits");
    return model_of({y}, {x});
}

TEST(ShapeFolding, AStaticModelWithShapeArithmeticRunsWhollyOnOneDnn) {
    auto model = flatten_by_shape_of({-1, 3, 4, 4});
    model->reshape(PartialShape{4, 3, 4, 4});
    Core core = make_core();
    auto compiled = core.compile_model(model, "CPU");
    // Before: ShapeOf of a static tensor was not folded, the Reshape stayed dynamic and every op
    // of the model ran on its reference kernel.
    EXPECT_EQ(compiled.output(0).get_partial_shape(), PartialShape({4, 2}));
    EXPECT_TRUE(compiled.get_property("CPU_REFERENCE_OPS").as<std::vector<std::string>>().empty());
    expect_matches_template(model);
    EXPECT_EQ(reference_rows(cpu_profile(model)), 0u);
}

TEST(ShapeFolding, ReferenceOpsAreListedOnce) {
    auto x = op::parameter(element::f32, {2, 8}, "x");
    auto idx = op::constant<int64_t>(element::i64, Shape{3}, {5, 0, 7});
    auto axis = op::constant<int64_t>(element::i64, Shape{}, {1});
    // Two Gathers of a computed value: a reference op type, listed once.
    auto y = op::add(op::gather(op::relu(x), idx, axis), op::gather(op::sigmoid(x), idx, axis));
    Core core = make_core();
    auto compiled = core.compile_model(model_of({y}, {x}), "CPU");
    EXPECT_EQ(compiled.get_property("CPU_REFERENCE_OPS").as<std::vector<std::string>>(),
              std::vector<std::string>{"Gather"});
}

// Whether the last run of `request` ran its convolution as the graph compiled for its shapes
// (oneDNN), rather than the generic dynamic graph's im2col and sgemm.
bool ran_compiled_graph(InferRequest& request) {
    size_t compiled = 0, generic = 0;
    for (const auto& r : request.get_profiling_info()) {
        if (r.node_type.rfind("Convolution", 0) != 0) continue;
        compiled += r.exec_type != "ref" && r.exec_type != "im2col_sgemm";
        generic += r.exec_type == "im2col_sgemm";
    }
    EXPECT_EQ(compiled + generic, 1u);
    return compiled == 1;
}

TEST(ShapeCache, ShapesBeyondTheCacheStillRunOnOneDnn) {
    // A dynamic model, a cache of two shape sets, five shapes in turn (three times): a shape's
    // first run is the generic graph's; from its second on it is compiled for its shapes (least
    // recently used out, and an evicted shape set is compiled again at its next run), never a
    // permanent fall-back.
    auto model = flatten_by_shape_of({-1, 3, 4, 4});
    Core core = make_core();
    auto compiled =
        core.compile_model(model, "CPU", {{"CPU_SHAPE_CACHE_SIZE", 2}, {"PERF_COUNT", true}});
    EXPECT_EQ(compiled.get_property("CPU_SHAPE_CACHE_SIZE").as<uint32_t>(), 2u);
    auto request = compiled.create_infer_request();
    Core oracle_core = make_core();
    auto oracle = oracle_core.compile_model(model, "TEMPLATE").create_infer_request();
    for (int round = 0; round < 3; ++round)
        for (size_t batch = 1; batch <= 5; ++batch) {
            SCOPED_TRACE("round " + std::to_string(round) + ", batch " + std::to_string(batch));
            const Tensor x = random_tensor({batch, 3, 4, 4}, static_cast<unsigned>(batch));
            request.set_input_tensor(x);
            request.infer();
            oracle.set_input_tensor(x);
            oracle.infer();
            EXPECT_TRUE(
                all_close(request.get_output_tensor(), oracle.get_output_tensor(), 1e-4, 1e-5));
            EXPECT_EQ(request.get_output_tensor().get_shape(), (Shape{batch, 2}));
            EXPECT_EQ(ran_compiled_graph(request), round > 0);
        }
}

TEST(ShapeCache, ShapesThatChangeAtEveryCallAreNeverCompiled) {
    // A decoder fed its past as inputs is one token longer at every call: each shape set comes
    // once, so each runs the generic graph (compiling it would cost more than the run), also
    // beyond the cache's size; a shape that comes back is compiled then. Two requests share the
    // compiled model's cache.
    auto model = flatten_by_shape_of({-1, 3, 4, 4});
    Core core = make_core();
    auto compiled =
        core.compile_model(model, "CPU", {{"CPU_SHAPE_CACHE_SIZE", 4}, {"PERF_COUNT", true}});
    auto request = compiled.create_infer_request();
    auto other = compiled.create_infer_request();
    Core oracle_core = make_core();
    for (size_t batch = 1; batch <= 12; ++batch) {
        SCOPED_TRACE("batch " + std::to_string(batch));
        const Tensor x = random_tensor({batch, 3, 4, 4}, static_cast<unsigned>(batch));
        const auto expected = run_model(oracle_core, model, "TEMPLATE", {x});
        request.set_input_tensor(x);
        request.infer();
        EXPECT_TRUE(all_close(request.get_output_tensor(), expected[0], 1e-4, 1e-5));
        EXPECT_FALSE(ran_compiled_graph(request));
    }
    // Batch 3 again, from the other request: its second use.
    const Tensor x = random_tensor({3, 3, 4, 4}, 77);
    other.set_input_tensor(x);
    other.infer();
    EXPECT_TRUE(all_close(other.get_output_tensor(),
                          run_model(oracle_core, model, "TEMPLATE", {x})[0], 1e-4, 1e-5));
    EXPECT_TRUE(ran_compiled_graph(other));
}

TEST(ShapeCache, SizeZeroRunsTheReferenceGraphAndBadSizesAreRefused) {
    auto model = flatten_by_shape_of({-1, 3, 4, 4});
    Core core = make_core();
    auto compiled = core.compile_model(model, "CPU", {{"CPU_SHAPE_CACHE_SIZE", 0}});
    auto request = compiled.create_infer_request();
    request.set_input_tensor(random_tensor({2, 3, 4, 4}, 1));
    request.infer();
    EXPECT_EQ(request.get_output_tensor().get_shape(), (Shape{2, 2}));
    EXPECT_THROW(core.compile_model(model, "CPU", {{"CPU_SHAPE_CACHE_SIZE", -1}}), Exception);
    EXPECT_THROW(core.compile_model(model, "CPU", {{"CPU_SHAPE_CACHE_SIZE", 100000}}), Exception);
}

}  // namespace
}  // namespace vireo::cpu_test
