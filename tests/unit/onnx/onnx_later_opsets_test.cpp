// Tests ONNX ops and inputs of opsets 18-21 that newer exporters write and the reader once refused
// or got wrong: Split-18's num_outputs over an axis it does not divide, Pad-18's axes input,
// GroupNormalization (per group at 18, per channel at 21), Gelu-20, GlobalLpPool (opset 2, never
// mapped), and the opset-18 reductions over no axis (noop_with_empty_axes).
// Expected values come from plain loops over the inputs, not from the code under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "onnx_test_util.hpp"
#include "vireo/core.hpp"

// A named namespace: the unity build compiles this file with the other ONNX tests in one unit.
namespace vireo::onnx_later_opsets_test {

using test::OnnxBuilder;
constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;

using test::f32;

std::vector<float> ramp(size_t n, float scale = 1.0f, float offset = 0.0f) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) * scale + offset;
    return v;
}

void i64_initializer(OnnxBuilder& b, const std::string& name, const std::vector<int64_t>& v) {
    auto* t = b.proto().mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(kI64);
    t->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t x : v) t->add_int64_data(x);
}

std::vector<float> values(const Tensor& t) {
    return {t.data<float>(), t.data<float>() + t.get_size()};
}

const std::vector<std::string> kDevices = {"CPU", "TEMPLATE"};

TEST(OnnxLaterOpsets, Split18NumOutputsThatDoNotDivideMakeTheLastChunkSmaller) {
    // 7 by 3 outputs: chunks of ceil(7 / 3) = 3, so 3, 3, 1; with a static and a dynamic axis.
    Core core;
    for (const int64_t declared : {int64_t{7}, int64_t{-1}}) {
        OnnxBuilder b(18);
        b.input("x", kF32, {2, declared});
        for (const char* out : {"a", "b", "c"}) b.output(out, kF32, {2, -1});
        auto& node = b.node("Split", {"x"}, {"a", "b", "c"}, "split");
        test::int_attribute(node, "axis", -1);
        test::int_attribute(node, "num_outputs", 3);
        const auto model = core.read_model(b.bytes(), Tensor());
        const std::vector<float> x = ramp(14);
        for (const auto& device : kDevices) {
            auto request = core.compile_model(model, device).create_infer_request();
            request.set_tensor("x", f32({2, 7}, x));
            request.infer();
            size_t begin = 0;
            for (const auto& [name, len] :
                 std::vector<std::pair<std::string, size_t>>{{"a", 3}, {"b", 3}, {"c", 1}}) {
                const Tensor y = request.get_tensor(name);
                ASSERT_EQ(y.get_shape(), (Shape{2, len}))
                    << device << " " << name << " " << declared;
                for (size_t r = 0; r < 2; ++r)
                    for (size_t j = 0; j < len; ++j)
                        EXPECT_EQ(y.data<float>()[r * len + j], x[r * 7 + begin + j])
                            << device << " " << name;
                begin += len;
            }
        }
    }
}

TEST(OnnxLaterOpsets, Pad18AxesInputPadsOnlyTheListedAxes) {
    // x [2, 3]; axes [-1, 0] with pads [1, 0, 2, 1]: the last axis 1 before and 2 after, axis 0
    // none before and 1 after, in edge mode (a run-time pads input) and constant mode.
    Core core;
    const std::vector<float> x = ramp(6);
    for (const std::string mode : {"constant", "edge"}) {
        OnnxBuilder b(18);
        b.input("x", kF32, {2, 3}).input("pads", kI64, {4}).output("y", kF32, {-1, -1});
        b.initializer("value", {}, {0.5f});
        i64_initializer(b, "axes", {-1, 0});
        auto& node = b.node("Pad", {"x", "pads", "value", "axes"}, {"y"}, "pad");
        test::string_attribute(node, "mode", mode);
        const auto model = core.read_model(b.bytes(), Tensor());
        for (const auto& device : kDevices) {
            auto request = core.compile_model(model, device).create_infer_request();
            request.set_tensor("x", f32({2, 3}, x));
            Tensor pads(element::i64, Shape{4});
            const std::vector<int64_t> p{1, 0, 2, 1};
            std::copy(p.begin(), p.end(), pads.data<int64_t>());
            request.set_tensor("pads", pads);
            request.infer();
            const Tensor y = request.get_tensor("y");
            ASSERT_EQ(y.get_shape(), (Shape{3, 6})) << device << " " << mode;
            for (int64_t r = 0; r < 3; ++r)
                for (int64_t c = 0; c < 6; ++c) {
                    const int64_t sr = r, sc = c - 1;
                    const bool inside = sr < 2 && sc >= 0 && sc < 3;
                    const float expected =
                        inside ? x[sr * 3 + sc]
                        : mode == "constant"
                            ? 0.5f
                            : x[std::min<int64_t>(sr, 1) * 3 + std::clamp<int64_t>(sc, 0, 2)];
                    EXPECT_EQ(y.data<float>()[r * 6 + c], expected)
                        << device << " " << mode << " at " << r << "," << c;
                }
        }
    }
}

TEST(OnnxLaterOpsets, GroupNormalizationScalesPerGroupAt18AndPerChannelAt21) {
    const size_t N = 2, C = 6, G = 3, S = 5;
    const std::vector<float> x = ramp(N * C * S, 0.3f, 0.1f);
    Core core;
    for (const int64_t opset : {int64_t{18}, int64_t{21}}) {
        const size_t params = opset == 18 ? G : C;
        const std::vector<float> scale = ramp(params, 0.2f, 1.0f), bias = ramp(params, 0.1f);
        OnnxBuilder b(opset);
        b.input("x", kF32, {N, C, S}).output("y", kF32, {N, C, S});
        b.initializer("scale", {static_cast<int64_t>(params)}, scale);
        b.initializer("bias", {static_cast<int64_t>(params)}, bias);
        auto& node = b.node("GroupNormalization", {"x", "scale", "bias"}, {"y"}, "gn");
        test::int_attribute(node, "num_groups", G);
        test::float_attribute(node, "epsilon", 1e-3f);
        const auto model = core.read_model(b.bytes(), Tensor());
        for (const auto& device : kDevices) {
            auto request = core.compile_model(model, device).create_infer_request();
            request.set_tensor("x", f32({N, C, S}, x));
            request.infer();
            const std::vector<float> y = values(request.get_tensor("y"));
            const size_t per_group = C / G * S;
            for (size_t n = 0; n < N; ++n)
                for (size_t g = 0; g < G; ++g) {
                    const float* xs = x.data() + (n * G + g) * per_group;
                    double mean = 0, var = 0;
                    for (size_t i = 0; i < per_group; ++i) mean += xs[i];
                    mean /= static_cast<double>(per_group);
                    for (size_t i = 0; i < per_group; ++i) var += (xs[i] - mean) * (xs[i] - mean);
                    var /= static_cast<double>(per_group);
                    for (size_t i = 0; i < per_group; ++i) {
                        const size_t c = g * (C / G) + i / S, p = opset == 18 ? g : c;
                        const double expected =
                            (xs[i] - mean) / std::sqrt(var + 1e-3) * scale[p] + bias[p];
                        EXPECT_NEAR(y[(n * G + g) * per_group + i], expected, 1e-5)
                            << device << " opset " << opset << " n " << n << " c " << c;
                    }
                }
        }
    }
}

TEST(OnnxLaterOpsets, Gelu20ExactAndTanhApproximation) {
    const std::vector<float> x = ramp(12, 0.5f);
    Core core;
    for (const std::string approximate : {"none", "tanh"}) {
        OnnxBuilder b(20);
        b.input("x", kF32, {12}).output("y", kF32, {12});
        auto& node = b.node("Gelu", {"x"}, {"y"}, "gelu");
        test::string_attribute(node, "approximate", approximate);
        const auto model = core.read_model(b.bytes(), Tensor());
        for (const auto& device : kDevices) {
            auto request = core.compile_model(model, device).create_infer_request();
            request.set_tensor("x", f32({12}, x));
            request.infer();
            const std::vector<float> y = values(request.get_tensor("y"));
            for (size_t i = 0; i < x.size(); ++i) {
                const double v = x[i];
                const double expected =
                    approximate == "none"
                        ? 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))
                        : 0.5 * v *
                              (1 + std::tanh(std::sqrt(2.0 / 3.14159265358979323846) *
                                             (v + 0.044715 * v * v * v)));
                EXPECT_NEAR(y[i], expected, 1e-5) << device << " " << approximate << " x " << v;
            }
        }
    }
}

TEST(OnnxLaterOpsets, GlobalLpPoolIsThePNormOverTheSpatialAxes) {
    const size_t C = 2, H = 3, W = 4;
    const std::vector<float> x = ramp(C * H * W, 0.5f);
    Core core;
    for (const int64_t p : {int64_t{1}, int64_t{2}, int64_t{3}}) {
        OnnxBuilder b(13);
        b.input("x", kF32, {1, C, H, W}).output("y", kF32, {1, C, 1, 1});
        test::int_attribute(b.node("GlobalLpPool", {"x"}, {"y"}, "lp"), "p", p);
        const auto model = core.read_model(b.bytes(), Tensor());
        for (const auto& device : kDevices) {
            auto request = core.compile_model(model, device).create_infer_request();
            request.set_tensor("x", f32({1, C, H, W}, x));
            request.infer();
            const Tensor y = request.get_tensor("y");
            ASSERT_EQ(y.get_shape(), (Shape{1, C, 1, 1})) << device;
            for (size_t c = 0; c < C; ++c) {
                double sum = 0;
                for (size_t i = 0; i < H * W; ++i)
                    sum += std::pow(std::fabs(x[c * H * W + i]), static_cast<double>(p));
                const double expected = std::pow(sum, 1.0 / static_cast<double>(p));
                EXPECT_NEAR(y.data<float>()[c], expected, 1e-5 * (1 + expected))
                    << device << " p " << p;
            }
        }
    }
}

TEST(OnnxLaterOpsets, ReductionsOverNoAxisKeepEachElementsOwnTerm) {
    // Opset 18, noop_with_empty_axes=1 and a constant empty axes input: no axis is reduced, so
    // each output is the reduction of one element (ONNX's reference): log x, x², |x|, and x for
    // the others. It returned x for every kind.
    const std::vector<float> x = ramp(6, 0.5f, 0.25f);
    Core core;
    for (const std::string op : {"ReduceLogSum", "ReduceSumSquare", "ReduceL1", "ReduceL2",
                                 "ReduceLogSumExp", "ReduceSum", "ReduceMax"}) {
        OnnxBuilder b(18);
        b.input("x", kF32, {2, 3}).output("y", kF32, {2, 3});
        i64_initializer(b, "axes", {});
        test::int_attribute(b.node(op, {"x", "axes"}, {"y"}, "reduce"), "noop_with_empty_axes", 1);
        const auto model = core.read_model(b.bytes(), Tensor());
        for (const auto& device : kDevices) {
            auto request = core.compile_model(model, device).create_infer_request();
            request.set_tensor("x", f32({2, 3}, x));
            request.infer();
            const Tensor y = request.get_tensor("y");
            ASSERT_EQ(y.get_shape(), (Shape{2, 3})) << device << " " << op;
            for (size_t i = 0; i < x.size(); ++i) {
                const double v = x[i];
                const double expected = op == "ReduceLogSum"                   ? std::log(v)
                                        : op == "ReduceSumSquare"              ? v * v
                                        : op == "ReduceL1" || op == "ReduceL2" ? std::fabs(v)
                                                                               : v;
                if (std::isnan(expected))
                    EXPECT_TRUE(std::isnan(y.data<float>()[i])) << device << " " << op << " " << v;
                else
                    EXPECT_NEAR(y.data<float>()[i], expected, 1e-6)
                        << device << " " << op << " " << v;
            }
        }
    }
}

}  // namespace vireo::onnx_later_opsets_test
