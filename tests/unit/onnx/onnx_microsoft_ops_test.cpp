// Tests ONNX Runtime's com.microsoft ops that its optimizer and quantizer write into saved models
// (QOperator-format int8 models, optimized transformers): QLinearAdd, QLinearConcat, QGemm,
// FusedConv, FusedMatMul, SkipLayerNormalization, SimplifiedLayerNormalization, and
// LayerNormalization in the default domain before opset 17. Expected values come from plain loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "onnx_test_util.hpp"
#include "vireo/core.hpp"

// A named namespace: the unity build compiles this file with the other ONNX tests in one unit.
namespace vireo::onnx_microsoft_ops_test {

using test::OnnxBuilder;
constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kU8 = onnx::TensorProto::UINT8;

const std::vector<std::string> kDevices = {"CPU", "TEMPLATE"};

OnnxBuilder ms_builder(int64_t opset = 13) {
    OnnxBuilder b(opset);
    auto* ms = b.proto().add_opset_import();
    ms->set_domain("com.microsoft");
    ms->set_version(1);
    return b;
}

onnx::NodeProto& ms_node(OnnxBuilder& b, const std::string& op, const std::vector<std::string>& in,
                         const std::vector<std::string>& out) {
    auto& n = b.node(op, in, out, op);
    n.set_domain("com.microsoft");
    return n;
}

void u8_initializer(OnnxBuilder& b, const std::string& name, uint8_t v) {
    auto* t = b.proto().mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(kU8);
    t->add_int32_data(v);
}

std::vector<float> ramp(size_t n, float scale = 1.0f, float offset = 0.0f) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) * scale + offset;
    return v;
}

using test::f32;

uint8_t quantize(double v, double scale, int zero) {
    return static_cast<uint8_t>(std::clamp(std::nearbyint(v / scale) + zero, 0.0, 255.0));
}

TEST(OnnxMicrosoftOps, QLinearAddAndConcatDequantizeComputeAndQuantize) {
    std::vector<uint8_t> a(12), c(12);
    for (size_t i = 0; i < a.size(); ++i)
        a[i] = static_cast<uint8_t>(i * 37 % 256), c[i] = static_cast<uint8_t>(i * 91 % 256);
    for (const std::string op : {"QLinearAdd", "QLinearConcat"}) {
        OnnxBuilder b = ms_builder();
        b.input("a", kU8, {1, 3, 4}).input("c", kU8, {1, 3, 4}).output("y", kU8, {});
        b.initializer("as", {}, {0.02f});
        b.initializer("cs", {}, {0.03f});
        b.initializer("ys", {}, {0.05f});
        u8_initializer(b, "az", 120);
        u8_initializer(b, "cz", 130);
        u8_initializer(b, "yz", 128);
        if (op == "QLinearAdd") {
            ms_node(b, op, {"a", "as", "az", "c", "cs", "cz", "ys", "yz"}, {"y"});
        } else {
            test::int_attribute(
                ms_node(b, op, {"ys", "yz", "a", "as", "az", "c", "cs", "cz"}, {"y"}), "axis", 1);
        }
        Core core;
        const auto model = core.read_model(b.bytes(), Tensor());
        for (const auto& device : kDevices) {
            auto request = core.compile_model(model, device).create_infer_request();
            Tensor ta(element::u8, Shape{1, 3, 4}), tc(element::u8, Shape{1, 3, 4});
            std::copy(a.begin(), a.end(), ta.data<uint8_t>());
            std::copy(c.begin(), c.end(), tc.data<uint8_t>());
            request.set_tensor("a", ta);
            request.set_tensor("c", tc);
            request.infer();
            const Tensor y = request.get_tensor("y");
            const auto* got = y.data<uint8_t>();
            if (op == "QLinearAdd") {
                ASSERT_EQ(y.get_shape(), (Shape{1, 3, 4})) << device;
                for (size_t i = 0; i < a.size(); ++i) {
                    const double sum = 0.02 * (a[i] - 120) + 0.03 * (c[i] - 130);
                    EXPECT_EQ(got[i], quantize(sum, 0.05, 128)) << device << " i " << i;
                }
            } else {
                ASSERT_EQ(y.get_shape(), (Shape{1, 6, 4})) << device;
                for (size_t i = 0; i < a.size(); ++i) {
                    EXPECT_EQ(got[i], quantize(0.02 * (a[i] - 120), 0.05, 128)) << device;
                    EXPECT_EQ(got[12 + i], quantize(0.03 * (c[i] - 130), 0.05, 128)) << device;
                }
            }
        }
    }
}

TEST(OnnxMicrosoftOps, FusedConvAddsBiasAndSumThenItsActivation) {
    // A 1x1 FusedConv of x [1, 2, 2, 2] by w [2, 2, 1, 1] + b + z, then LeakyRelu(0.2).
    const std::vector<float> x = ramp(8, 0.5f), w = {1.f, -2.f, 0.5f, 1.5f}, bias = {0.25f, -0.5f};
    const std::vector<float> z = ramp(8, 0.1f, 0.3f);
    OnnxBuilder b = ms_builder();
    b.input("x", kF32, {1, 2, 2, 2}).input("z", kF32, {1, 2, 2, 2}).output("y", kF32, {1, 2, 2, 2});
    b.initializer("w", {2, 2, 1, 1}, w);
    b.initializer("b", {2}, bias);
    auto& n = ms_node(b, "FusedConv", {"x", "w", "b", "z"}, {"y"});
    test::string_attribute(n, "activation", "LeakyRelu");
    test::ints_attribute(n, "kernel_shape", {1, 1});
    auto* params = n.add_attribute();
    params->set_name("activation_params");
    params->set_type(onnx::AttributeProto::FLOATS);
    params->add_floats(0.2f);
    Core core;
    const auto model = core.read_model(b.bytes(), Tensor());
    for (const auto& device : kDevices) {
        auto request = core.compile_model(model, device).create_infer_request();
        request.set_tensor("x", f32({1, 2, 2, 2}, x));
        request.set_tensor("z", f32({1, 2, 2, 2}, z));
        request.infer();
        const float* y = request.get_tensor("y").data<float>();
        for (size_t o = 0; o < 2; ++o)
            for (size_t p = 0; p < 4; ++p) {
                double v = bias[o] + z[o * 4 + p];
                for (size_t i = 0; i < 2; ++i) v += w[o * 2 + i] * x[i * 4 + p];
                const double expected = v >= 0 ? v : 0.2 * v;
                EXPECT_NEAR(y[o * 4 + p], expected, 1e-5) << device << " " << o << "," << p;
            }
    }
}

TEST(OnnxMicrosoftOps, SkipAndSimplifiedLayerNormalizations) {
    // SkipLayerNormalization: s = x + skip + bias, LayerNorm(s) * g + beta, and s as output 3;
    // SkipSimplifiedLayerNormalization: RMSNorm(x + skip) * g; SimplifiedLayerNormalization
    // (default domain): RMSNorm(x) * g; LayerNormalization at opset 13 (ORT's): LayerNorm(x) * g.
    const size_t rows = 3, d = 4;
    const std::vector<float> x = ramp(rows * d, 0.4f), skip = ramp(rows * d, -0.3f, 0.2f);
    const std::vector<float> g = {1.f, 0.5f, 2.f, -1.f}, beta = {0.1f, 0.2f, -0.3f, 0.f},
                             bias = {0.5f, -0.25f, 0.f, 1.f};
    Core core;
    for (const std::string op : {"SkipLayerNormalization", "SkipSimplifiedLayerNormalization",
                                 "SimplifiedLayerNormalization", "LayerNormalization"}) {
        const bool skipped = op.rfind("Skip", 0) == 0,
                   rms = op.find("Simplified") != std::string::npos;
        OnnxBuilder b = ms_builder();
        b.input("x", kF32, {rows, d}).input("skip", kF32, {rows, d}).output("y", kF32, {rows, d});
        b.initializer("g", {4}, g);
        b.initializer("beta", {4}, beta);
        b.initializer("bias", {4}, bias);
        std::vector<std::string> in{"x"}, out{"y"};
        if (op == "SkipLayerNormalization") {
            in = {"x", "skip", "g", "beta", "bias"};
            out = {"y", "", "", "sum"};
            b.output("sum", kF32, {rows, d});
        } else if (skipped) {
            in = {"x", "skip", "g"};
        } else {
            in = {"x", "g"};
        }
        auto& n = skipped ? ms_node(b, op, in, out) : b.node(op, in, out, op);
        test::float_attribute(n, "epsilon", 1e-3f);
        const auto model = core.read_model(b.bytes(), Tensor());
        for (const auto& device : kDevices) {
            auto request = core.compile_model(model, device).create_infer_request();
            request.set_tensor("x", f32({rows, d}, x));
            request.set_tensor("skip", f32({rows, d}, skip));
            request.infer();
            const float* y = request.get_tensor("y").data<float>();
            for (size_t r = 0; r < rows; ++r) {
                std::vector<double> s(d);
                for (size_t j = 0; j < d; ++j) {
                    s[j] = x[r * d + j];
                    if (skipped) s[j] += skip[r * d + j];
                    if (op == "SkipLayerNormalization") s[j] += bias[j];
                }
                double mean = 0, sq = 0;
                for (double v : s) mean += v / d;
                for (double v : s) sq += (rms ? v * v : (v - mean) * (v - mean)) / d;
                for (size_t j = 0; j < d; ++j) {
                    const double norm = (rms ? s[j] : s[j] - mean) / std::sqrt(sq + 1e-3);
                    const double expected =
                        norm * g[j] + (op == "SkipLayerNormalization" ? beta[j] : 0);
                    EXPECT_NEAR(y[r * d + j], expected, 1e-5) << device << " " << op;
                }
                if (op == "SkipLayerNormalization")
                    for (size_t j = 0; j < d; ++j)
                        EXPECT_NEAR(request.get_tensor("sum").data<float>()[r * d + j], s[j], 1e-6);
            }
        }
    }
}

}  // namespace vireo::onnx_microsoft_ops_test
