// Tests the ONNX ops whose training behaviour is imported (issue 30): BatchNormalization in
// training mode (batch statistics, running mean and variance), Dropout in training mode with
// run-time ratio and training_mode, and the random ops (RandomUniform(Like), RandomNormal(Like),
// Bernoulli) onto RandomUniform-8. Each model runs on TEMPLATE and CPU, which must agree exactly:
// the generator is the same reference kernel on both. Expected values are worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "onnx_test_util.hpp"
#include "vireo/core.hpp"

// A named namespace around the file's helpers: in CI's unity build other files of this target share
// its translation unit and define kF32, int_attribute(), f32() ... of their own.
namespace vireo::training_ops_test {
namespace {

using test::float_attribute;
using test::int_attribute;
using test::ints_attribute;
using test::OnnxBuilder;
constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kF64 = onnx::TensorProto::DOUBLE;
constexpr int32_t kBool = onnx::TensorProto::BOOL;
const std::vector<std::string> kDevices{"TEMPLATE", "CPU"};

using test::f32;
Tensor f32_scalar(float v) {
    return f32(Shape{}, {v});
}
Tensor boolean(bool v) {
    Tensor t(element::boolean, Shape{});
    *static_cast<uint8_t*>(t.data()) = v ? 1 : 0;
    return t;
}
std::vector<float> floats(const Tensor& t) {
    return std::vector<float>(t.data<float>(), t.data<float>() + t.get_size());
}
std::vector<bool> bools(const Tensor& t) {
    const auto* p = static_cast<const uint8_t*>(t.data());
    return std::vector<bool>(p, p + t.get_size());
}

size_t count_ops(const std::shared_ptr<Model>& model, const std::string& type) {
    size_t n = 0;
    for (const auto& node : model->get_ordered_ops()) n += node->get_type_name() == type;
    return n;
}

// x [N=2, C=2, 2] = n0: c0 [1, 1], c1 [0, 4]; n1: c0 [3, 3], c1 [0, 4]. Channel 0: mean 2,
// population variance 1; channel 1: mean 2, variance 4. With scale [2, 0.5], bias [1, -1] and
// epsilon 0: c0 -> 2 * (x - 2) / 1 + 1 = -1, -1 | 3, 3; c1 -> 0.5 * (x - 2) / 2 - 1 = -1.5, -0.5.
// Running statistics with momentum 0.5 from mean [0, 10], var [1, 2]: [1, 6] and [1, 3].
OnnxBuilder batch_norm_model(int64_t opset, bool training_attr, size_t outputs) {
    OnnxBuilder b(opset);
    b.input("x", kF32, {2, 2, 2}).output("y", kF32, {2, 2, 2});
    const std::vector<std::string> names{"y", "running_mean", "running_var", "saved_mean",
                                         "saved_var"};
    for (size_t i = 1; i < outputs; ++i) b.output(names[i], kF32, {2});
    b.initializer("scale", {2}, {2.f, 0.5f});
    b.initializer("bias", {2}, {1.f, -1.f});
    b.initializer("mean", {2}, {0.f, 10.f});
    b.initializer("var", {2}, {1.f, 2.f});
    auto& node = b.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"},
                        std::vector<std::string>(names.begin(), names.begin() + outputs), "bn");
    if (training_attr) int_attribute(node, "training_mode", 1);
    float_attribute(node, "epsilon", 0.f);
    float_attribute(node, "momentum", 0.5f);
    return b;
}

TEST(OnnxTraining, BatchNormalizationTrainingModeUsesTheBatchStatistics) {
    Core core;
    const std::vector<float> x{1, 1, 0, 4, 3, 3, 0, 4};
    const std::vector<float> y{-1, -1, -1.5f, -0.5f, 3, 3, -1.5f, -0.5f};
    // Opset 15's training_mode, and opset 9-13's form, where asking for mean and var means
    // training.
    for (const auto& [opset, attr] : {std::pair{15, true}, std::pair{9, false}}) {
        for (const auto& device : kDevices) {
            const std::string what = "opset " + std::to_string(opset) + " on " + device;
            auto model = core.read_model(batch_norm_model(opset, attr, 3).bytes(), Tensor());
            auto request = core.compile_model(model, device).create_infer_request();
            request.set_tensor("x", f32({2, 2, 2}, x));
            request.infer();
            EXPECT_EQ(floats(request.get_tensor("y")), y) << what;
            EXPECT_EQ(floats(request.get_tensor("running_mean")), (std::vector<float>{1, 6}))
                << what;
            EXPECT_EQ(floats(request.get_tensor("running_var")), (std::vector<float>{1, 3}))
                << what;
        }
    }
    // Training mode without the running outputs still normalises with the batch statistics.
    auto request =
        core.compile_model(core.read_model(batch_norm_model(15, true, 1).bytes(), Tensor()),
                           "TEMPLATE")
            .create_infer_request();
    request.set_tensor("x", f32({2, 2, 2}, x));
    request.infer();
    EXPECT_EQ(floats(request.get_tensor("y")), y);
}

TEST(OnnxTraining, BatchNormalizationRefusesWhatItCannotGive) {
    Core core;
    try {  // saved_mean/saved_var of opsets before 14: their meaning is implementation-defined
        core.read_model(batch_norm_model(9, false, 4).bytes(), Tensor());
        ADD_FAILURE() << "saved_mean was accepted";
    } catch (const NotImplemented& e) {
        EXPECT_NE(std::string(e.what()).find("BatchNormalization-9 'bn'"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("saved_mean"), std::string::npos) << e.what();
    }
    try {  // running statistics without training mode
        core.read_model(batch_norm_model(15, false, 3).bytes(), Tensor());
        ADD_FAILURE() << "running outputs without training_mode were accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("training_mode=1"), std::string::npos) << e.what();
    }
}

// Dropout-13 whose ratio r and training_mode t are graph inputs, outputs y and mask z.
OnnxBuilder dropout_model(const std::vector<int64_t>& shape, std::optional<int64_t> seed) {
    OnnxBuilder b(13);
    b.input("x", kF32, shape).input("r", kF32, {}).input("t", kBool, {});
    b.output("y", kF32, shape).output("z", kBool, shape);
    auto& node = b.node("Dropout", {"x", "r", "t"}, {"y", "z"}, "drop");
    if (seed) int_attribute(node, "seed", *seed);
    return b;
}

TEST(OnnxTraining, DropoutWithRatioZeroOrTrainingOffIsExactlyTheIdentity) {
    Core core;
    std::vector<float> x(60);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i)) * 3.f;
    auto model = core.read_model(dropout_model({3, 4, 5}, std::nullopt).bytes(), Tensor());
    EXPECT_EQ(count_ops(model, "RandomUniform"), 1u);  // ratio and mode are run-time values
    for (const auto& device : kDevices) {
        auto request = core.compile_model(model, device).create_infer_request();
        for (const auto& [ratio, training] : {std::pair{0.f, true}, std::pair{0.5f, false}}) {
            const std::string what = device + " ratio " + std::to_string(ratio) +
                                     (training ? " training" : " inference");
            request.set_tensor("x", f32({3, 4, 5}, x));
            request.set_tensor("r", f32_scalar(ratio));
            request.set_tensor("t", boolean(training));
            request.infer();
            EXPECT_EQ(floats(request.get_tensor("y")), x) << what;
            EXPECT_EQ(bools(request.get_tensor("z")), std::vector<bool>(60, true)) << what;
        }
    }
}

TEST(OnnxTraining, DropoutInTrainingModeDropsAboutRatioAndScalesTheRest) {
    // 10,000 elements at ratio 0.5: each y is 0 (mask false) or 2x (mask true), and the kept
    // fraction is within 0.47..0.53 (the standard error is 0.005). With a seed the mask is the
    // same on every run and device.
    const size_t n = 10000;
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = 1.f + static_cast<float>(i % 97) * 0.25f;
    Core core;
    auto model = core.read_model(dropout_model({static_cast<int64_t>(n)}, 5).bytes(), Tensor());
    std::vector<bool> first_mask;
    for (const auto& device : kDevices) {
        auto request = core.compile_model(model, device).create_infer_request();
        for (int run = 0; run < 2; ++run) {
            request.set_tensor("x", f32({n}, x));
            request.set_tensor("r", f32_scalar(0.5f));
            request.set_tensor("t", boolean(true));
            request.infer();
            const auto y = floats(request.get_tensor("y"));
            const auto z = bools(request.get_tensor("z"));
            size_t kept = 0;
            for (size_t i = 0; i < n; ++i) {
                ASSERT_EQ(y[i], z[i] ? 2.f * x[i] : 0.f) << device << " i=" << i;
                kept += z[i];
            }
            EXPECT_NEAR(static_cast<double>(kept) / n, 0.5, 0.03) << device;
            if (first_mask.empty()) first_mask = z;
            EXPECT_EQ(z, first_mask) << device << " run " << run;
        }
    }
}

TEST(OnnxTraining, DropoutKeepsNoRandomOpWhenItCannotDrop) {
    Core core;
    // training_mode a constant false: the identity, as before.
    OnnxBuilder off(13);
    off.input("x", kF32, {4}).input("r", kF32, {}).output("y", kF32, {4});
    auto& t = off.node("Constant", {}, {"t"}, "t_node");
    auto* a = t.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(kBool);
    a->mutable_t()->add_int32_data(0);
    off.node("Dropout", {"x", "r", "t"}, {"y"}, "drop");
    EXPECT_EQ(count_ops(core.read_model(off.bytes(), Tensor()), "RandomUniform"), 0u);
    // A constant ratio 0 with a run-time training_mode: nothing is ever dropped.
    OnnxBuilder zero(13);
    zero.input("x", kF32, {4}).input("t", kBool, {}).output("y", kF32, {4});
    zero.initializer("r", {}, {0.f});
    zero.node("Dropout", {"x", "r", "t"}, {"y"}, "drop");
    EXPECT_EQ(count_ops(core.read_model(zero.bytes(), Tensor()), "RandomUniform"), 0u);
}

// One-node model `op` with output y of `dims` (type `type`), `configure` setting attributes and
// inputs; returns y from TEMPLATE and CPU run twice each.
std::vector<Tensor> run_random(const std::string& op, int32_t type,
                               const std::vector<int64_t>& dims,
                               const std::function<void(OnnxBuilder&, onnx::NodeProto&)>& configure,
                               const std::map<std::string, Tensor>& inputs = {}) {
    OnnxBuilder b(15);
    b.output("y", type, dims);
    std::vector<std::string> names;
    for (const auto& [name, value] : inputs) {
        const Shape& s = value.get_shape();
        b.input(name, value.get_element_type() == element::f64 ? kF64 : kF32,
                std::vector<int64_t>(s.begin(), s.end()));
        names.push_back(name);
    }
    auto& node = b.node(op, names, {"y"}, "random");
    configure(b, node);
    Core core;
    auto model = core.read_model(b.bytes(), Tensor());
    std::vector<Tensor> out;
    for (const auto& device : kDevices) {
        auto request = core.compile_model(model, device).create_infer_request();
        for (int run = 0; run < 2; ++run) {
            for (const auto& [name, value] : inputs) request.set_tensor(name, value);
            request.infer();
            const Tensor y = request.get_tensor("y");
            Tensor copy(y.get_element_type(), y.get_shape());
            y.copy_to(copy);
            out.push_back(copy);
        }
    }
    return out;
}

TEST(OnnxTraining, RandomUniformWithASeedIsReproducibleAndInRange) {
    const auto runs = run_random("RandomUniform", kF32, {40, 50}, [](OnnxBuilder&, auto& node) {
        float_attribute(node, "low", -2.f);
        float_attribute(node, "high", 3.f);
        float_attribute(node, "seed", 1.5f);
        ints_attribute(node, "shape", {40, 50});
    });
    const auto first = floats(runs[0]);
    ASSERT_EQ(runs[0].get_shape(), (Shape{40, 50}));
    for (float v : first) {
        ASSERT_GE(v, -2.f);
        ASSERT_LT(v, 3.f);
    }
    for (const auto& r : runs) EXPECT_EQ(floats(r), first);  // every run, both devices
    // Unseeded: a new draw on each run.
    const auto unseeded = run_random("RandomUniform", kF32, {100}, [](OnnxBuilder&, auto& node) {
        ints_attribute(node, "shape", {100});
    });
    EXPECT_NE(floats(unseeded[0]), floats(unseeded[1]));
}

TEST(OnnxTraining, RandomNormalHasTheRequestedMeanAndScale) {
    // 20,000 draws of N(3, 2^2): mean within 0.1 and standard deviation within 0.1 (standard
    // errors 0.014 and 0.01); about 68 % within one sigma.
    const size_t n = 20000;
    for (const std::string op : {"RandomNormal", "RandomNormalLike"}) {
        const bool like = op == "RandomNormalLike";
        std::map<std::string, Tensor> inputs;
        if (like) inputs.emplace("x", Tensor(element::f64, Shape{n}));
        const auto runs = run_random(
            op, like ? kF64 : kF32, {static_cast<int64_t>(n)},
            [like](OnnxBuilder&, auto& node) {
                float_attribute(node, "mean", 3.f);
                float_attribute(node, "scale", 2.f);
                float_attribute(node, "seed", 7.f);
                if (!like) ints_attribute(node, "shape", {20000});
            },
            inputs);
        ASSERT_EQ(runs[0].get_element_type(), like ? element::f64 : element::f32) << op;
        std::vector<double> v(n);
        for (size_t i = 0; i < n; ++i)
            v[i] = like ? runs[0].data<double>()[i] : runs[0].data<float>()[i];
        const double mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
        double squares = 0;
        size_t within = 0;
        for (double x : v) {
            squares += (x - mean) * (x - mean);
            within += std::abs(x - 3.0) < 2.0;
        }
        EXPECT_NEAR(mean, 3.0, 0.1) << op;
        EXPECT_NEAR(std::sqrt(squares / n), 2.0, 0.1) << op;
        EXPECT_NEAR(static_cast<double>(within) / n, 0.6827, 0.02) << op;
        EXPECT_EQ(std::memcmp(runs[0].data(), runs[3].data(), runs[0].get_byte_size()), 0) << op;
    }
}

TEST(OnnxTraining, BernoulliIsOneWhereADrawIsBelowTheProbability) {
    // p 0 never gives 1 and p 1 always does (draws are in [0, 1)); p 0.25 about a quarter of the
    // time. dtype 1 (FLOAT) is the output type.
    const size_t n = 4000;
    std::vector<float> p(n);
    for (size_t i = 0; i < n; ++i) p[i] = i % 4 == 0 ? 0.f : i % 4 == 1 ? 1.f : 0.25f;
    const auto runs = run_random(
        "Bernoulli", kF32, {static_cast<int64_t>(n)},
        [](OnnxBuilder&, auto& node) { int_attribute(node, "dtype", kF32); }, {{"x", f32({n}, p)}});
    const auto y = floats(runs[0]);
    size_t ones = 0;
    for (size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(y[i] == 0.f || y[i] == 1.f) << i;
        if (p[i] == 0.f) {
            ASSERT_EQ(y[i], 0.f) << i;
        } else if (p[i] == 1.f) {
            ASSERT_EQ(y[i], 1.f) << i;
        }
        if (p[i] == 0.25f) ones += y[i] == 1.f;
    }
    EXPECT_NEAR(static_cast<double>(ones) / (n / 2), 0.25, 0.04);
}

}  // namespace
}  // namespace vireo::training_ops_test
