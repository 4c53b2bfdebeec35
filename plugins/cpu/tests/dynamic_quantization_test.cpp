// CPU_DYNAMIC_QUANTIZATION: MatMuls with constant f32 weights run as u8 x s8 products. Each case
// compares the CPU's output with the same quantization computed here in plain C++ (ONNX
// DynamicQuantizeLinear for the activation, symmetric per-column s8 weights, an exact integer sum),
// which must agree to float rounding, and with TEMPLATE's f32 result, which it must approximate;
// the profile shows the DynamicQuantize step and the int8 MatMul, and what is not quantized
// (short reductions, non-finite weights, the property off) stays the f32 MatMul.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

using ModelPtr = std::shared_ptr<Model>;

const AnyMap kOn{{"CPU_DYNAMIC_QUANTIZATION", true}};

// The plugin quantizes only where the CPU multiplies u8 by s8 in hardware (VNNI or AMX).
bool dq_has_vnni() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni") || __builtin_cpu_supports("avxvnni");
}

// x [.., K] times constant w ([K, N], or [N, K] with transpose_b), + bias [N], optional Relu.
ModelPtr dq_matmul_model(const Shape& x_shape, const Tensor& w, bool transpose_b,
                         const Tensor& bias, bool relu) {
    auto x = op::parameter(element::f32, x_shape, "x");
    Output y = op::matmul(x, op::constant(w), false, transpose_b);
    if (bias) y = op::add(y, op::constant(bias));
    if (relu) y = op::relu(y);
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "dq_matmul");
}

// What CPU_DYNAMIC_QUANTIZATION computes, written out: [M, K] x, weights as `matmul_model` has
// them.
std::vector<float> dq_reference(const Tensor& x, const Tensor& w, bool transpose_b,
                                const Tensor& bias, bool relu) {
    const size_t K = x.get_shape().back(), M = x.get_size() / K;
    const size_t N = transpose_b ? w.get_shape()[0] : w.get_shape()[1];
    const float* xv = x.data<float>();
    const float* wv = w.data<float>();
    const auto weight = [&](size_t k, size_t n) {
        return transpose_b ? wv[n * K + k] : wv[k * N + n];
    };
    float lo = 0.f, hi = 0.f;
    for (size_t i = 0; i < x.get_size(); ++i) lo = std::min(lo, xv[i]), hi = std::max(hi, xv[i]);
    const float s = (hi - lo) / 255.f;
    const float zp = std::nearbyint(std::clamp(-lo / s, 0.f, 255.f));
    std::vector<int32_t> qx(x.get_size());
    for (size_t i = 0; i < qx.size(); ++i)
        qx[i] = static_cast<int32_t>(std::clamp(std::nearbyint(xv[i] / s) + zp, 0.f, 255.f)) -
                static_cast<int32_t>(zp);
    std::vector<float> ws(N, 0.f);
    for (size_t n = 0; n < N; ++n) {
        for (size_t k = 0; k < K; ++k) ws[n] = std::max(ws[n], std::fabs(weight(k, n)));
        ws[n] = ws[n] > 0.f ? ws[n] / 127.f : 1.f;
    }
    std::vector<float> y(M * N);
    for (size_t m = 0; m < M; ++m)
        for (size_t n = 0; n < N; ++n) {
            int64_t acc = 0;
            for (size_t k = 0; k < K; ++k)
                acc += qx[m * K + k] * static_cast<int32_t>(std::clamp(
                                           std::nearbyint(weight(k, n) / ws[n]), -127.f, 127.f));
            float v = static_cast<float>(acc) * (s * ws[n]);
            if (bias) v += bias.data<float>()[n];
            y[m * N + n] = relu ? std::max(v, 0.f) : v;
        }
    return y;
}

::testing::AssertionResult close_to_vector(const Tensor& actual, const std::vector<float>& expected,
                                           double rel) {
    if (actual.get_size() != expected.size())
        return ::testing::AssertionFailure()
               << actual.get_size() << " elements, expected " << expected.size();
    double largest = 0;
    for (float e : expected) largest = std::max(largest, std::fabs(static_cast<double>(e)));
    for (size_t i = 0; i < expected.size(); ++i) {
        const double d = std::fabs(static_cast<double>(actual.data<float>()[i]) - expected[i]);
        if (d > rel * largest + 1e-6)
            return ::testing::AssertionFailure()
                   << "element " << i << ": " << actual.data<float>()[i] << " vs " << expected[i]
                   << " (largest " << largest << ")";
    }
    return ::testing::AssertionSuccess();
}

size_t executed_rows(const std::vector<ProfilingInfo>& rows, const std::string& type) {
    return static_cast<size_t>(std::count_if(rows.begin(), rows.end(), [&](const ProfilingInfo& r) {
        return r.node_type == type && r.status == ProfilingInfo::Status::EXECUTED;
    }));
}

std::vector<ProfilingInfo> dq_profile(const ModelPtr& model, const Tensor& x, bool on) {
    Core core = make_core();
    AnyMap config{{enable_profiling.name(), true}};
    if (on) config.insert(kOn.begin(), kOn.end());
    CompiledModel compiled = core.compile_model(model, "CPU", config);
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(0, x);
    request.infer();
    return request.get_profiling_info();
}

// Checks one configuration against the written-out quantization and against f32.
void expect_dq(const Shape& x_shape, size_t n, bool transpose_b, bool relu, unsigned seed,
               const AnyMap& extra = {}) {
    const size_t K = x_shape.back();
    const Tensor w = random_tensor(transpose_b ? Shape{n, K} : Shape{K, n}, seed, -0.5f, 0.5f);
    const Tensor bias = random_tensor({n}, seed + 1, -0.3f, 0.3f);
    const Tensor x = random_tensor(x_shape, seed + 2, -2.f, 3.f);
    const ModelPtr model = dq_matmul_model(x_shape, w, transpose_b, bias, relu);
    Core core = make_core();
    AnyMap config = kOn;
    config.insert(extra.begin(), extra.end());
    const Tensor cpu = run_model(core, model, "CPU", {x}, config).at(0);
    const Tensor f32 = run_model(core, model, "TEMPLATE", {x}).at(0);
    EXPECT_TRUE(close_to_vector(cpu, dq_reference(x, w, transpose_b, bias, relu), 1e-5));
    // The approximation: per-tensor u8 activations, per-column s8 weights.
    std::vector<float> exact(f32.data<float>(), f32.data<float>() + f32.get_size());
    EXPECT_TRUE(close_to_vector(cpu, exact, 0.02));
    EXPECT_FALSE(close_to_vector(cpu, exact, 1e-7)) << "no quantization happened";
    const auto rows = dq_profile(model, x, true);
    EXPECT_EQ(executed_rows(rows, "DynamicQuantize"), 1u);
    EXPECT_EQ(executed_rows(rows, relu ? "Int8MatMul+Add+Relu" : "Int8MatMul+Add"), 1u);
}

TEST(DynamicQuantization, MatMulRank3WithBiasAndRelu) {
    if (!dq_has_vnni()) GTEST_SKIP() << "this CPU has no VNNI: the plugin keeps f32 (tested below)";
    expect_dq({2, 7, 96}, 40, false, true, 11);
}

TEST(DynamicQuantization, TransposedWeights) {
    if (!dq_has_vnni()) GTEST_SKIP() << "this CPU has no VNNI";
    expect_dq({5, 64}, 33, true, false, 21);
}

TEST(DynamicQuantization, LargeActivationOnTwoThreads) {
    // 160 x 512 elements: over the kernel's threshold for splitting the quantization.
    if (!dq_has_vnni()) GTEST_SKIP() << "this CPU has no VNNI";
    expect_dq({160, 512}, 48, false, false, 31, {{"INFERENCE_NUM_THREADS", 2}});
}

TEST(DynamicQuantization, ZeroAndNonFiniteActivations) {
    if (!dq_has_vnni()) GTEST_SKIP() << "this CPU has no VNNI";
    const Tensor w = random_tensor({64, 8}, 41, -0.5f, 0.5f);
    const Tensor bias = random_tensor({8}, 42, -0.3f, 0.3f);
    const ModelPtr model = dq_matmul_model({3, 64}, w, false, bias, false);
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "CPU", kOn);
    InferRequest request = compiled.create_infer_request();
    Tensor x(element::f32, {3, 64});
    // All zeros: the product is exactly zero, the output the bias.
    std::fill(x.data<float>(), x.data<float>() + x.get_size(), 0.f);
    request.set_input_tensor(0, x);
    request.infer();
    for (size_t m = 0; m < 3; ++m)
        for (size_t n = 0; n < 8; ++n)
            EXPECT_EQ(request.get_output_tensor(0).data<float>()[m * 8 + n], bias.data<float>()[n]);
    // A NaN or an infinity anywhere: every output is NaN (no numbers made from garbage).
    for (float bad :
         {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        x = random_tensor({3, 64}, 43);
        x.data<float>()[70] = bad;
        request.set_input_tensor(0, x);
        request.infer();
        const Tensor y = request.get_output_tensor(0);
        for (size_t i = 0; i < y.get_size(); ++i) EXPECT_TRUE(std::isnan(y.data<float>()[i])) << i;
    }
    // Finite again: the request recovers.
    x = random_tensor({3, 64}, 44);
    request.set_input_tensor(0, x);
    request.infer();
    EXPECT_TRUE(close_to_vector(request.get_output_tensor(0),
                                dq_reference(x, w, false, bias, false), 1e-5));
}

TEST(DynamicQuantization, WhatStaysF32) {
    const Tensor x = random_tensor({4, 16}, 51);
    const Tensor short_w = random_tensor({16, 8}, 52);
    // A reduction of 16: quantizing costs more than it saves.
    auto rows = dq_profile(dq_matmul_model({4, 16}, short_w, false, Tensor(), false), x, true);
    EXPECT_EQ(executed_rows(rows, "DynamicQuantize"), 0u);
    EXPECT_EQ(executed_rows(rows, "MatMul"), 1u);
    // A weight that is not finite.
    Tensor bad_w = random_tensor({64, 8}, 53);
    bad_w.data<float>()[5] = std::numeric_limits<float>::infinity();
    const Tensor x64 = random_tensor({4, 64}, 54);
    rows = dq_profile(dq_matmul_model({4, 64}, bad_w, false, Tensor(), false), x64, true);
    EXPECT_EQ(executed_rows(rows, "DynamicQuantize"), 0u);
    // The property off (the default): f32, TEMPLATE's results.
    const Tensor w = random_tensor({64, 8}, 55);
    const ModelPtr model = dq_matmul_model({4, 64}, w, false, Tensor(), false);
    rows = dq_profile(model, x64, false);
    EXPECT_EQ(executed_rows(rows, "DynamicQuantize"), 0u);
    EXPECT_EQ(executed_rows(rows, "MatMul"), 1u);
    Core core = make_core();
    EXPECT_TRUE(all_close(run_model(core, model, "CPU", {x64}).at(0),
                          run_model(core, model, "TEMPLATE", {x64}).at(0), 1e-5, 1e-6));
}

TEST(DynamicQuantization, SurvivesExportAndImport) {
    if (!dq_has_vnni()) GTEST_SKIP() << "this CPU has no VNNI";
    Core core = make_core();
    const Tensor w = random_tensor({128, 24}, 71);
    const ModelPtr model = dq_matmul_model({6, 128}, w, false, Tensor(), false);
    CompiledModel compiled = core.compile_model(model, "CPU", kOn);
    std::stringstream blob;
    compiled.export_model(blob);
    CompiledModel imported = core.import_model(blob, "CPU");
    EXPECT_TRUE(imported.get_property("CPU_DYNAMIC_QUANTIZATION").as<bool>());
    // The s8 weights come back from the blob as they were packed.
    EXPECT_EQ(imported.get_runtime_model()->get_rt_info().at("weightsFromBlob").as<int64_t>(), 1);
    const Tensor x = random_tensor({6, 128}, 72);
    InferRequest request = imported.create_infer_request();
    request.set_input_tensor(x);
    request.infer();
    EXPECT_TRUE(close_to_vector(request.get_output_tensor(),
                                dq_reference(x, w, false, Tensor(), false), 1e-5));
}

TEST(DynamicQuantization, PropertyReadBack) {
    Core core = make_core();
    const ModelPtr model =
        dq_matmul_model({2, 64}, random_tensor({64, 8}, 61), false, Tensor(), false);
    EXPECT_FALSE(
        core.compile_model(model, "CPU").get_property("CPU_DYNAMIC_QUANTIZATION").as<bool>());
    EXPECT_TRUE(
        core.compile_model(model, "CPU", kOn).get_property("CPU_DYNAMIC_QUANTIZATION").as<bool>());
    EXPECT_THROW(
        core.compile_model(model, "CPU", {{"CPU_DYNAMIC_QUANTIZATION", std::string("maybe")}}),
        Exception);
}

}  // namespace
}  // namespace vireo::cpu_test
