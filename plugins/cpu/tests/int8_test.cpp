// Int8 execution of quantized (QDQ) models: each int8 fusion gives TEMPLATE's results on random
// data (f32 outputs within float tolerance, requantized outputs within one quantum), the profile
// shows the int8 step, and what cannot run in int8 (a zero scale) falls back to the f32 ops.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

using ModelPtr = std::shared_ptr<Model>;

NodePtr scalar_f32(float v) {
    return op::constant(element::f32, Shape{}, std::vector<float>{v});
}

// DequantizeLinear as the ONNX reader writes it: (float(q) - zero point) * scale.
NodePtr dequantize(const Output& q, float scale, int32_t zero_point) {
    Output v = op::convert(q, element::f32);
    if (zero_point != 0) v = op::subtract(v, scalar_f32(static_cast<float>(zero_point)));
    return op::multiply(v, scalar_f32(scale));
}

// QuantizeLinear: saturate(round_half_even(x / scale) + zero point) in `type`.
NodePtr quantize(const Output& x, float scale, int32_t zero_point, element::Type type) {
    Output v = make_node("Round", {op::divide(x, scalar_f32(scale))},
                         {{"mode", std::string("half_to_even")}});
    v = op::add(v, scalar_f32(static_cast<float>(zero_point)));
    const bool u8 = type == element::u8;
    return op::convert(op::clamp(v, u8 ? 0 : -128, u8 ? 255 : 127), type);
}

// Symmetric s8 weights of `shape` dequantized per output channel (axis 0) or per tensor.
struct Weights {
    Tensor q;
    std::vector<float> scales;
};
Weights random_weights(const Shape& shape, bool per_channel, unsigned seed) {
    Weights w;
    w.q = Tensor(element::i8, shape);
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> dist(-127, 127);
    for (size_t i = 0; i < w.q.get_size(); ++i)
        w.q.data<int8_t>()[i] = static_cast<int8_t>(dist(gen));
    const size_t channels = per_channel ? shape[0] : 1;
    for (size_t c = 0; c < channels; ++c)
        w.scales.push_back(0.002f * static_cast<float>(c % 5 + 1));
    return w;
}

NodePtr dequantized_weights(const Weights& w, size_t axis = 0) {
    Output v = op::convert(op::constant(w.q), element::f32);
    Shape scale_shape(w.q.get_shape().size(), 1);
    if (w.scales.size() > 1) scale_shape[axis] = w.scales.size();
    return op::multiply(v, op::constant(element::f32, scale_shape, w.scales));
}

Tensor random_integers(element::Type type, const Shape& shape, unsigned seed) {
    Tensor t(type, shape);
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> dist(type == element::u8 ? 0 : -128,
                                            type == element::u8 ? 255 : 127);
    for (size_t i = 0; i < t.get_size(); ++i) {
        if (type == element::u8)
            t.data<uint8_t>()[i] = static_cast<uint8_t>(dist(gen));
        else
            t.data<int8_t>()[i] = static_cast<int8_t>(dist(gen));
    }
    return t;
}

double element_as_double(const Tensor& t, size_t i) {
    const auto type = t.get_element_type();
    if (type == element::u8) return t.data<uint8_t>()[i];
    if (type == element::i8) return t.data<int8_t>()[i];
    return t.data<float>()[i];
}

std::pair<std::vector<Tensor>, std::vector<Tensor>> run_both(const ModelPtr& model,
                                                             const std::vector<Tensor>& inputs) {
    Core core = make_core();
    return {run_model(core, model, "CPU", inputs), run_model(core, model, "TEMPLATE", inputs)};
}

// Integer outputs: no element more than one quantum from TEMPLATE's.
::testing::AssertionResult within_one_quantum(const Tensor& actual, const Tensor& expected) {
    if (actual.get_element_type() != expected.get_element_type() ||
        actual.get_size() != expected.get_size())
        return ::testing::AssertionFailure() << "types or sizes differ";
    size_t off_by_one = 0;
    for (size_t i = 0; i < actual.get_size(); ++i) {
        const double d = std::fabs(element_as_double(actual, i) - element_as_double(expected, i));
        if (d > 1)
            return ::testing::AssertionFailure()
                   << "element " << i << ": " << element_as_double(actual, i) << " vs expected "
                   << element_as_double(expected, i);
        off_by_one += d == 1;
    }
    // Rounding ties decided differently are rare: a systematic offset is an error.
    if (off_by_one * 100 > actual.get_size())
        return ::testing::AssertionFailure() << off_by_one << " elements off by one";
    return ::testing::AssertionSuccess();
}

// Profiling rows of one CPU run of `model` on `inputs` (cpu_profile feeds f32 only).
std::vector<ProfilingInfo> profile(const ModelPtr& model, const std::vector<Tensor>& inputs) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "CPU", {{enable_profiling.name(), true}});
    InferRequest request = compiled.create_infer_request();
    for (size_t i = 0; i < inputs.size(); ++i) request.set_input_tensor(i, inputs[i]);
    request.infer();
    return request.get_profiling_info();
}

size_t rows_with_type_prefix(const std::vector<ProfilingInfo>& rows, const std::string& prefix) {
    size_t n = 0;
    for (const auto& r : rows) n += r.node_type.rfind(prefix, 0) == 0;
    return n;
}

size_t count_value(const Tensor& t, double v) {
    size_t n = 0;
    for (size_t i = 0; i < t.get_size(); ++i) n += element_as_double(t, i) == v;
    return n;
}

// u8/s8 input -> DQ -> Conv (s8 weights) -> + bias [-> Relu] [-> Q].
ModelPtr conv_model(element::Type in_type, float in_scale, int32_t in_zp, bool per_channel,
                    bool relu, std::optional<std::pair<float, int32_t>> out_q,
                    element::Type out_type = element::u8) {
    auto x = op::parameter(in_type, {1, 16, 9, 9}, "x");
    const Weights w = random_weights({24, 16, 3, 3}, per_channel, 3);
    Output y = op::convolution(dequantize(x, in_scale, in_zp), dequantized_weights(w), {1, 1},
                               {1, 1}, {1, 1}, {1, 1});
    y = op::add(y, op::constant(random_tensor({1, 24, 1, 1}, 4, -0.5f, 0.5f)));
    if (relu) y = op::relu(y);
    if (out_q) y = quantize(y, out_q->first, out_q->second, out_type);
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "int8_conv");
}

TEST(Int8, ConvPerChannelAsymmetricU8ToF32) {
    auto model = conv_model(element::u8, 0.02f, 131, true, true, std::nullopt);
    const std::vector<Tensor> in{random_integers(element::u8, {1, 16, 9, 9}, 1)};
    const auto [cpu, ref] = run_both(model, in);
    EXPECT_TRUE(all_close(cpu[0], ref[0], 1e-4, 1e-4));
    const auto rows = profile(model, in);
    EXPECT_EQ(rows_with_type_prefix(rows, "Int8Convolution+Add+Relu"), 1u);
    EXPECT_EQ(rows_with_type_prefix(rows, "Dequantize"), 0u);  // the conv reads the integers
}

// An unpadded convolution (1x1, or a 3x3 "valid" one) of a u8 input with a zero point: the zero
// point's share goes into the bias, so oneDNN picks the kernel it picks for a zero point of 0 (in
// 2.6 its brgemm convolutions take no source zero point); f32 and requantized outputs match.
ModelPtr unpadded_conv_model(int32_t in_zp, size_t kernel, bool requantize, bool bias) {
    auto x = op::parameter(element::u8, {1, 32, 14, 14}, "x");
    const Weights w = random_weights({48, 32, kernel, kernel}, true, 21);
    Output y = op::convolution(dequantize(x, 0.03f, in_zp), dequantized_weights(w), {1, 1}, {0, 0},
                               {0, 0}, {1, 1});
    if (bias) y = op::add(y, op::constant(random_tensor({1, 48, 1, 1}, 22, -0.5f, 0.5f)));
    if (requantize) y = quantize(y, 0.05f, 120, element::u8);
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "int8_conv_valid");
}

std::string conv_implementation(const ModelPtr& model, const std::vector<Tensor>& in) {
    for (const auto& row : profile(model, in))
        if (row.node_type.rfind("Int8Convolution", 0) == 0) return row.exec_type;
    return "none";
}

TEST(Int8, UnpaddedConvFoldsTheSourceZeroPointIntoTheBias) {
    const std::vector<Tensor> in{random_integers(element::u8, {1, 32, 14, 14}, 23)};
    for (size_t kernel : {1, 3})
        for (bool requantize : {false, true})
            for (bool bias : {false, true}) {
                SCOPED_TRACE("kernel " + std::to_string(kernel) + (requantize ? " u8" : " f32") +
                             (bias ? " bias" : ""));
                auto model = unpadded_conv_model(137, kernel, requantize, bias);
                const auto [cpu, ref] = run_both(model, in);
                if (requantize)
                    EXPECT_TRUE(within_one_quantum(cpu[0], ref[0]));
                else
                    EXPECT_TRUE(all_close(cpu[0], ref[0], 1e-4, 1e-3));
                EXPECT_EQ(
                    conv_implementation(model, in),
                    conv_implementation(unpadded_conv_model(0, kernel, requantize, bias), in));
            }
}

// What exporters and vireo_quantize write around an activation between two convolutions:
// Conv -> Q -> DQ -> SiLU (x * sigmoid(x)) -> Q -> DQ -> Conv. The first convolution takes the
// round trip as post-ops (rounded to its quantum and clipped), the SiLU, and the second
// quantization as its integer destination: one step, no Dequantize and no f32 SiLU step, values
// within one quantum of TEMPLATE's. With `second_reader` the SiLU's result is also a model output,
// so no integers go on from it: that chain is not extended.
ModelPtr activation_between_qdq_model(bool second_reader) {
    auto x = op::parameter(element::u8, {1, 16, 10, 10}, "x");
    const Weights w1 = random_weights({24, 16, 1, 1}, true, 31);
    const Weights w2 = random_weights({8, 24, 1, 1}, true, 32);
    Output y = op::convolution(dequantize(x, 0.02f, 128), dequantized_weights(w1), {1, 1}, {0, 0},
                               {0, 0}, {1, 1});
    y = op::add(y, op::constant(random_tensor({1, 24, 1, 1}, 33, -0.5f, 0.5f)));
    y = dequantize(quantize(y, 0.04f, 110, element::u8), 0.04f, 110);
    const Output act = op::multiply(y, op::sigmoid(y));
    y = dequantize(quantize(act, 0.03f, 9, element::u8), 0.03f, 9);
    y = op::convolution(y, dequantized_weights(w2), {1, 1}, {0, 0}, {0, 0}, {1, 1});
    OutputVector outputs{y};
    if (second_reader) outputs.push_back(act);
    return std::make_shared<Model>(outputs, ParameterVector{x}, "qdq_activation");
}

TEST(Int8, ActivationBetweenQdqPairsFusesIntoTheConvolution) {
    const std::vector<Tensor> in{random_integers(element::u8, {1, 16, 10, 10}, 34)};
    for (bool second_reader : {false, true}) {
        SCOPED_TRACE(second_reader ? "SiLU also an output" : "SiLU read only by its Q");
        auto model = activation_between_qdq_model(second_reader);
        const auto [cpu, ref] = run_both(model, in);
        // The second convolution's f32 output: one quantum of its input (0.03) moves it by at
        // most 0.03 * sum |w| over a channel; rounding ties are rare, so compare closely.
        EXPECT_TRUE(all_close(cpu[0], ref[0], 1e-3, 1e-3));
        if (second_reader) {
            EXPECT_TRUE(all_close(cpu[1], ref[1], 1e-4, 1e-4));
        }
        const auto rows = profile(model, in);
        size_t through = 0;
        for (const auto& r : rows)
            through += r.node_type == "Int8Convolution+Add+Quantize+Dequantize+Swish+Quantize";
        EXPECT_EQ(through, second_reader ? 0u : 1u);
        // Otherwise: the convolution writes its integers, then Dequantize, the f32 SiLU and
        // Quantize steps of their own.
        EXPECT_EQ(rows_with_type_prefix(rows, "Dequantize"), second_reader ? 1u : 0u);
        EXPECT_EQ(rows_with_type_prefix(rows, "Sigmoid+Multiply"), second_reader ? 1u : 0u);
        EXPECT_EQ(rows_with_type_prefix(rows, "Int8Convolution"), 2u);
    }
}

TEST(Int8, ConvPerTensorRequantizedSaturatesU8) {
    // A small output scale and no Relu: both ends of u8 are reached.
    auto model = conv_model(element::u8, 0.05f, 100, false, false, std::make_pair(0.01f, 128));
    const std::vector<Tensor> in{random_integers(element::u8, {1, 16, 9, 9}, 2)};
    const auto [cpu, ref] = run_both(model, in);
    ASSERT_EQ(cpu[0].get_element_type(), element::u8);
    EXPECT_TRUE(within_one_quantum(cpu[0], ref[0]));
    EXPECT_GT(count_value(ref[0], 0), 0u);
    EXPECT_GT(count_value(ref[0], 255), 0u);
    EXPECT_EQ(rows_with_type_prefix(profile(model, in), "Int8Convolution+Add+Quantize"), 1u);
}

TEST(Int8, ConvS8NegativeZeroPointsSaturatesS8) {
    auto model =
        conv_model(element::i8, 0.03f, -7, true, false, std::make_pair(0.02f, -3), element::i8);
    const std::vector<Tensor> in{random_integers(element::i8, {1, 16, 9, 9}, 3)};
    const auto [cpu, ref] = run_both(model, in);
    ASSERT_EQ(cpu[0].get_element_type(), element::i8);
    EXPECT_TRUE(within_one_quantum(cpu[0], ref[0]));
    EXPECT_GT(count_value(ref[0], -128), 0u);
    EXPECT_GT(count_value(ref[0], 127), 0u);
    EXPECT_EQ(rows_with_type_prefix(profile(model, in), "Int8Convolution"), 1u);
}

TEST(Int8, ReluBeforeRequantizeKeepsZeroPoint) {
    auto model = conv_model(element::u8, 0.02f, 3, true, true, std::make_pair(0.015f, 10));
    const std::vector<Tensor> in{random_integers(element::u8, {1, 16, 9, 9}, 4)};
    const auto [cpu, ref] = run_both(model, in);
    EXPECT_TRUE(within_one_quantum(cpu[0], ref[0]));
    EXPECT_GT(count_value(ref[0], 10), 0u);  // Relu's zeros land on the zero point
    EXPECT_EQ(rows_with_type_prefix(profile(model, in), "Int8Convolution+Add+Relu+Quantize"), 1u);
}

TEST(Int8, DepthwiseConvWeightsReshapedToGroups) {
    // The reader reshapes grouped weights [C, 1, k, k] to [C, 1, 1, k, k] after dequantizing.
    auto x = op::parameter(element::u8, {1, 32, 10, 10}, "x");
    const Weights w = random_weights({32, 1, 3, 3}, true, 5);
    auto wg = op::reshape(dequantized_weights(w), op::int64_vector({32, 1, 1, 3, 3}), false);
    Output y = op::group_convolution(dequantize(x, 0.04f, 77), wg, {2, 2}, {1, 1}, {1, 1}, {1, 1});
    y = quantize(op::clamp(y, 0, 6), 6.f / 255, 0, element::u8);
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "int8_dw");
    const std::vector<Tensor> in{random_integers(element::u8, {1, 32, 10, 10}, 6)};
    const auto [cpu, ref] = run_both(model, in);
    EXPECT_TRUE(within_one_quantum(cpu[0], ref[0]));
    EXPECT_EQ(rows_with_type_prefix(profile(model, in), "Int8GroupConvolution"), 1u);
}

TEST(Int8, GemmPerChannelTransposedWeights) {
    // Gemm(transB): [M, K] x [N, K]^T, per-channel scales along N (axis 0 of the stored B).
    auto x = op::parameter(element::u8, {4, 64}, "x");
    const Weights w = random_weights({48, 64}, true, 7);
    Output y = op::matmul(dequantize(x, 0.01f, 140), dequantized_weights(w), false, true);
    y = op::add(y, op::constant(random_tensor({48}, 8, -0.2f, 0.2f)));
    auto f32_model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "int8_gemm");
    const std::vector<Tensor> in{random_integers(element::u8, {4, 64}, 9)};
    {
        const auto [cpu, ref] = run_both(f32_model, in);
        EXPECT_TRUE(all_close(cpu[0], ref[0], 1e-4, 1e-4));
        EXPECT_EQ(rows_with_type_prefix(profile(f32_model, in), "Int8MatMul+Add"), 1u);
    }
    auto q_model = std::make_shared<Model>(OutputVector{quantize(y, 0.004f, 120, element::u8)},
                                           ParameterVector{x}, "int8_gemm_q");
    const auto [cpu, ref] = run_both(q_model, in);
    EXPECT_TRUE(within_one_quantum(cpu[0], ref[0]));
}

TEST(Int8, MatMulPerTensorWeightsRank3Input) {
    auto x = op::parameter(element::i8, {2, 5, 32}, "x");
    const Weights w = random_weights({32, 16}, false, 10);
    Output y = op::matmul(dequantize(x, 0.02f, 0), dequantized_weights(w));
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "int8_matmul");
    const std::vector<Tensor> in{random_integers(element::i8, {2, 5, 32}, 11)};
    const auto [cpu, ref] = run_both(model, in);
    EXPECT_TRUE(all_close(cpu[0], ref[0], 1e-4, 1e-4));
    EXPECT_EQ(rows_with_type_prefix(profile(model, in), "Int8MatMul"), 1u);
}

TEST(Int8, WeightsLeftUnfoldedAreDequantizedOnlyForAnF32Reader) {
    // Weights whose f32 dequantization folding leaves to run time (VGG-11's 25088x4096 layer is
    // over the folding budget; here the ops are marked not to fold, as a plugin marks them): the
    // int8 MatMul reads the integers and the Convert and Multiply compile to no step at all,
    // until an f32 reader of the dequantized weights asks for them.
    auto x = op::parameter(element::u8, {4, 64}, "x");
    const Weights w = random_weights({64, 48}, false, 7);  // [K, N]: not "compressed weights"
    const NodePtr dq = dequantized_weights(w);
    for (Node* n : {dq.get(), dq->input_value(0).get_node()})
        n->get_rt_info()["disable_constant_folding"] = true;  // OpenVINO's key
    Output y = op::matmul(dequantize(x, 0.01f, 140), dq);
    y = quantize(y, 0.004f, 120, element::u8);
    const std::vector<Tensor> in{random_integers(element::u8, {4, 64}, 9)};
    {
        auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "unfolded");
        const auto [cpu, ref] = run_both(model, in);
        EXPECT_TRUE(within_one_quantum(cpu[0], ref[0]));
        const auto rows = profile(model, in);
        EXPECT_EQ(rows_with_type_prefix(rows, "Int8MatMul"), 1u);
        EXPECT_EQ(rows_with_type_prefix(rows, "Convert"), 0u);
        EXPECT_EQ(rows_with_type_prefix(rows, "Multiply"), 0u);
    }
    // A second reader in f32 (the weights summed per row, after the MatMul in the model's
    // order): the dequantization runs once, for it, and the MatMul stays int8.
    Output row_sums =
        op::reduce_sum(dq, op::constant(element::i64, Shape{1}, std::vector<int64_t>{1}), false);
    auto model =
        std::make_shared<Model>(OutputVector{y, row_sums}, ParameterVector{x}, "unfolded_2");
    const auto [cpu, ref] = run_both(model, in);
    EXPECT_TRUE(within_one_quantum(cpu[0], ref[0]));
    EXPECT_TRUE(all_close(cpu[1], ref[1], 1e-5, 1e-5));
    EXPECT_EQ(rows_with_type_prefix(profile(model, in), "Int8MatMul"), 1u);
}

TEST(Int8, ZeroWeightScaleFallsBackToF32) {
    auto x = op::parameter(element::u8, {1, 16, 9, 9}, "x");
    Weights w = random_weights({24, 16, 3, 3}, true, 12);
    w.scales[5] = 0.f;  // a whole output channel of zeros: not an int8 output scale
    Output y = op::convolution(dequantize(x, 0.02f, 128), dequantized_weights(w), {1, 1}, {1, 1},
                               {1, 1}, {1, 1});
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "zero_scale");
    const std::vector<Tensor> in{random_integers(element::u8, {1, 16, 9, 9}, 13)};
    const auto [cpu, ref] = run_both(model, in);
    EXPECT_TRUE(all_close(cpu[0], ref[0], 1e-4, 1e-4));
    const auto rows = profile(model, in);
    EXPECT_EQ(rows_with_type_prefix(rows, "Int8"), 0u);
    EXPECT_EQ(rows_with_type_prefix(rows, "Dequantize"), 1u);  // the f32 conv reads the values
}

TEST(Int8, ZeroActivationScaleIsNotFused) {
    // QuantizeLinear by a zero scale divides by zero: the f32 ops keep ONNX's result.
    auto x = op::parameter(element::f32, {1, 8, 4, 4}, "x");
    auto y = quantize(x, 0.f, 5, element::u8);
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "zero_q");
    const std::vector<Tensor> in{random_tensor({1, 8, 4, 4}, 14)};
    const auto [cpu, ref] = run_both(model, in);
    EXPECT_TRUE(within_one_quantum(cpu[0], ref[0]));
    EXPECT_EQ(rows_with_type_prefix(profile(model, in), "Quantize"), 0u);
}

TEST(Int8, ResidualAddReadsIntegers) {
    // DQ(u8 a) + f32 b -> Relu, and DQ(c) + DQ(a) with two zero points: one binary each, reading
    // the integers of one operand.
    auto a = op::parameter(element::u8, {1, 16, 6, 6}, "a");
    auto b = op::parameter(element::f32, {1, 16, 6, 6}, "b");
    auto c = op::parameter(element::u8, {1, 16, 6, 6}, "c");
    // A convolution first, so the integers arrive channels-last as inside a network.
    const Weights w = random_weights({16, 16, 1, 1}, true, 18);
    Output qa = quantize(op::convolution(dequantize(a, 0.02f, 120), dequantized_weights(w), {1, 1},
                                         {0, 0}, {0, 0}, {1, 1}),
                         0.01f, 128, element::u8);
    Output y1 = op::relu(op::add(dequantize(qa, 0.01f, 128), b));
    Output y2 = op::add(dequantize(c, 0.03f, 7), dequantize(qa, 0.01f, 128));
    auto model =
        std::make_shared<Model>(OutputVector{y1, y2}, ParameterVector{a, b, c}, "residual");
    const std::vector<Tensor> in{random_integers(element::u8, {1, 16, 6, 6}, 19),
                                 random_tensor({1, 16, 6, 6}, 20),
                                 random_integers(element::u8, {1, 16, 6, 6}, 21)};
    const auto [cpu, ref] = run_both(model, in);
    EXPECT_TRUE(all_close(cpu[0], ref[0], 1e-5, 1e-5));
    EXPECT_TRUE(all_close(cpu[1], ref[1], 1e-5, 1e-5));
    const auto rows = profile(model, in);
    EXPECT_EQ(rows_with_type_prefix(rows, "Int8Add+Relu"), 1u);
    EXPECT_EQ(rows_with_type_prefix(rows, "Int8Add"), 2u);
    EXPECT_EQ(rows_with_type_prefix(rows, "Dequantize"), 1u);  // y2's second operand
}

TEST(Int8, ResidualAddRequantized) {
    // The block output of a quantized ResNet: Q(Relu(DQ(a) + b)), and Q(DQ(a) + b) without Relu;
    // the adds write the integers.
    auto a = op::parameter(element::u8, {1, 16, 6, 6}, "a");
    auto b = op::parameter(element::f32, {1, 16, 6, 6}, "b");
    const Weights w = random_weights({16, 16, 1, 1}, true, 22);
    Output qa = quantize(op::convolution(dequantize(a, 0.02f, 120), dequantized_weights(w), {1, 1},
                                         {0, 0}, {0, 0}, {1, 1}),
                         0.01f, 128, element::u8);
    Output y1 = quantize(op::relu(op::add(dequantize(qa, 0.01f, 128), b)), 0.008f, 0, element::u8);
    Output y2 = quantize(op::add(b, dequantize(qa, 0.01f, 128)), 0.004f, 130, element::u8);
    auto model = std::make_shared<Model>(OutputVector{y1, y2}, ParameterVector{a, b}, "res_q");
    const std::vector<Tensor> in{random_integers(element::u8, {1, 16, 6, 6}, 23),
                                 random_tensor({1, 16, 6, 6}, 24)};
    const auto [cpu, ref] = run_both(model, in);
    EXPECT_TRUE(within_one_quantum(cpu[0], ref[0]));
    EXPECT_TRUE(within_one_quantum(cpu[1], ref[1]));
    EXPECT_GT(count_value(ref[0], 0), 0u);    // Relu's zeros
    EXPECT_GT(count_value(ref[0], 255), 0u);  // and saturation above
    EXPECT_GT(count_value(ref[1], 0), 0u);
    const auto rows = profile(model, in);
    EXPECT_EQ(rows_with_type_prefix(rows, "Int8Add+Relu+Quantize"), 1u);
    EXPECT_EQ(rows_with_type_prefix(rows, "Int8Add+Quantize"), 1u);
    EXPECT_EQ(rows_with_type_prefix(rows, "Quantize"), 0u);
}

TEST(Int8, DequantizeQuantizePairCancels) {
    // Q(DQ(q)) with equal parameters is q (exactly, no step); with other parameters it is
    // computed (a reorder each way).
    auto x = op::parameter(element::u8, {1, 8, 5, 5}, "x");
    Output same = quantize(dequantize(x, 0.05f, 37), 0.05f, 37, element::u8);
    Output other = quantize(dequantize(x, 0.05f, 37), 0.07f, 20, element::u8);
    Output y = op::relu(dequantize(same, 0.05f, 37));
    auto model = std::make_shared<Model>(OutputVector{same, other, y}, ParameterVector{x}, "dq_q");
    const std::vector<Tensor> in{random_integers(element::u8, {1, 8, 5, 5}, 25)};
    const auto [cpu, ref] = run_both(model, in);
    ASSERT_EQ(cpu[0].get_size(), in[0].get_size());
    for (size_t i = 0; i < in[0].get_size(); ++i)
        ASSERT_EQ(cpu[0].data<uint8_t>()[i], in[0].data<uint8_t>()[i]) << "element " << i;
    EXPECT_TRUE(within_one_quantum(cpu[1], ref[1]));
    EXPECT_TRUE(all_close(cpu[2], ref[2], 1e-6, 1e-6));
    const auto rows = profile(model, in);
    EXPECT_EQ(rows_with_type_prefix(rows, "Quantize"), 1u);    // `other` only
    EXPECT_EQ(rows_with_type_prefix(rows, "Dequantize"), 2u);  // for `other` and for the Relu
}

TEST(Int8, MixedInt8AndF32Regions) {
    // f32 input -> Q -> DQ -> Conv+Relu -> Q -> DQ -> MaxPool -> Q -> DQ -> Conv -> Softmax (f32).
    // Power-of-two activation scales make the reorder's x * (1 / s) equal to x / s.
    auto x = op::parameter(element::f32, {1, 8, 12, 12}, "x");
    const float s_in = 1.f / 64, s_mid = 1.f / 32;
    const Weights w1 = random_weights({16, 8, 3, 3}, true, 15);
    const Weights w2 = random_weights({8, 16, 1, 1}, true, 16);
    Output a = dequantize(quantize(x, s_in, 128, element::u8), s_in, 128);
    Output c1 =
        op::relu(op::convolution(a, dequantized_weights(w1), {1, 1}, {1, 1}, {1, 1}, {1, 1}));
    Output q1 = quantize(c1, s_mid, 0, element::u8);
    Output p = op::max_pool(dequantize(q1, s_mid, 0), {2, 2}, {0, 0}, {0, 0}, {2, 2});
    Output q2 = quantize(p, s_mid, 0, element::u8);
    Output c2 = op::convolution(dequantize(q2, s_mid, 0), dequantized_weights(w2), {1, 1}, {0, 0},
                                {0, 0}, {1, 1});
    Output y = op::softmax(c2, 1);
    auto model = std::make_shared<Model>(OutputVector{y, q2}, ParameterVector{x}, "mixed");
    const std::vector<Tensor> in{random_tensor({1, 8, 12, 12}, 17, -1.5f, 1.5f)};
    const auto [cpu, ref] = run_both(model, in);
    EXPECT_TRUE(within_one_quantum(cpu[1], ref[1]));
    // One quantum of the pooled input changes a logit by at most s_mid * max |w2| * 16 inputs.
    EXPECT_TRUE(all_close(cpu[0], ref[0], 0, s_mid * 0.01 * 127 * 16));
    const auto rows = profile(model, in);
    EXPECT_EQ(rows_with_type_prefix(rows, "Quantize"), 1u);  // the input; the rest are fused
    EXPECT_EQ(rows_with_type_prefix(rows, "Int8Convolution"), 2u);
    EXPECT_EQ(rows_with_type_prefix(rows, "Int8MaxPool"), 1u);
    EXPECT_EQ(rows_with_type_prefix(rows, "Softmax"), 1u);
}

}  // namespace
}  // namespace vireo::cpu_test
