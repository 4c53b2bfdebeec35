// Fusion correctness: each pattern the graph compiler fuses gives TEMPLATE's results on random
// inputs, and the profile shows the fused step (and no more reorders than the layouts need).
#include <gtest/gtest.h>

#include <functional>
#include <iostream>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

using ModelPtr = std::shared_ptr<Model>;

NodePtr weights(const Shape& shape, unsigned seed, float scale = 0.3f) {
    return op::constant(random_tensor(shape, seed, -scale, scale));
}

NodePtr conv(const Output& x, size_t out_channels, size_t in_channels, size_t k, unsigned seed,
             int64_t stride = 1) {
    const int64_t pad = static_cast<int64_t>(k / 2);
    return op::convolution(x, weights({out_channels, in_channels, k, k}, seed), {stride, stride},
                           {pad, pad}, {pad, pad}, {1, 1});
}

ModelPtr single_output(const Output& y, const NodePtr& x) {
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "fusion");
}

// Rows of the profile whose type is exactly `type`.
size_t rows_of_type(const std::vector<ProfilingInfo>& rows, const std::string& type) {
    size_t n = 0;
    for (const auto& r : rows) n += r.node_type == type;
    if (n == 0)
        for (const auto& r : rows)
            std::cout << "  profile row: " << r.node_name << " [" << r.node_type << "] "
                      << r.exec_type << "\n";
    return n;
}

TEST(Fusion, ConvBiasRelu) {
    auto x = op::parameter(element::f32, {1, 8, 10, 10}, "x");
    auto c = conv(x, 16, 8, 3, 1);
    auto b = op::add(c, weights({1, 16, 1, 1}, 2));
    auto y = op::relu(b);
    c->set_friendly_name("conv1");
    b->set_friendly_name("bias");
    y->set_friendly_name("relu");
    auto model = single_output(y, x);
    expect_matches_template(model);
    const auto rows = cpu_profile(model);
    ASSERT_EQ(rows_of_type(rows, "Convolution+Add+Relu"), 1u);
    for (const auto& r : rows)
        if (r.node_type == "Convolution+Add+Relu") {
            EXPECT_EQ(r.node_name, "conv1+bias+relu");
            EXPECT_NE(r.exec_type.find("nhwc"), std::string::npos) << r.exec_type;
        }
    EXPECT_EQ(rows_of_type(rows, "Reorder"), 2u);  // into NHWC at the input, back at the output
    EXPECT_EQ(rows.size(), 3u);
}

// A convolution GRU's update (RAFT: h' = (1 - z) * h + z * tanh(conv(x) + b)): with the whole
// chain fused oneDNN 2.6 has only its reference convolution (560 ms a step in RAFT), so the chain
// is cut until a jit kernel takes it and the rest runs as steps of its own.
TEST(Fusion, AChainOnlyTheReferenceConvolutionTakesIsCut) {
    auto x = op::parameter(element::f32, {1, 16, 12, 12}, "x");
    auto z = op::sigmoid(op::add(conv(x, 16, 16, 3, 31), weights({1, 16, 1, 1}, 32)));
    auto h = op::relu(conv(x, 16, 16, 1, 33));
    auto keep = op::multiply(op::subtract(op::constant<float>(element::f32, {}, {1.f}), z), h);
    auto q = op::tanh(op::add(conv(x, 16, 16, 3, 34), weights({1, 16, 1, 1}, 35)));
    auto y = op::add(keep, op::multiply(z, q));
    auto model = single_output(y, x);
    expect_matches_template(model, 1e-5, 1e-6);
    for (const auto& r : cpu_profile(model))
        EXPECT_NE(r.exec_type.rfind("ref", 0), 0u) << r.node_type << " " << r.exec_type;
}

TEST(Fusion, ClampBoundsAreKept) {
    auto x = op::parameter(element::f32, {2, 4, 9, 9}, "x");
    // Wide inputs so many values land on and beyond both bounds.
    auto y = op::clamp(conv(x, 8, 4, 3, 3), -0.25, 0.5);
    auto model = single_output(y, x);
    expect_matches_template(model, 1e-5, 1e-6);
    EXPECT_EQ(rows_of_type(cpu_profile(model), "Convolution+Clamp"), 1u);
}

TEST(Fusion, DepthwiseConvWithRelu6AndResidual) {
    // MobileNet-V2's block: 1x1 expand + Clamp(0, 6), 3x3 depthwise + Clamp, 1x1 project, + input.
    auto x = op::parameter(element::f32, {1, 8, 12, 12}, "x");
    auto in = conv(x, 8, 8, 1, 4);  // the block input lives in NHWC
    auto e = op::clamp(conv(in, 24, 8, 1, 5), 0, 6);
    auto dw = op::clamp(
        op::group_convolution(e, weights({24, 1, 1, 3, 3}, 6), {1, 1}, {1, 1}, {1, 1}, {1, 1}), 0,
        6);
    auto p = conv(dw, 8, 24, 1, 7);
    auto y = op::add(p, in);
    auto model = single_output(y, x);
    expect_matches_template(model);
    const auto rows = cpu_profile(model);
    EXPECT_EQ(rows_of_type(rows, "GroupConvolution+Clamp"), 1u);
    EXPECT_EQ(rows_of_type(rows, "Convolution+Add"), 1u);  // the residual add as a post-op
    EXPECT_EQ(rows_of_type(rows, "Reorder"), 2u);
}

TEST(Fusion, ActivationsOnConvolution) {
    for (const std::string type : {"Sigmoid", "Tanh", "HSwish", "Swish"}) {
        auto x = op::parameter(element::f32, {1, 3, 8, 8}, "x");
        auto y =
            type == "Swish" ? op::swish(conv(x, 6, 3, 3, 8)) : op::unary(type, conv(x, 6, 3, 3, 8));
        auto model = single_output(y, x);
        SCOPED_TRACE(type);
        expect_matches_template(model);
        EXPECT_EQ(rows_of_type(cpu_profile(model), "Convolution+" + type), 1u);
    }
}

TEST(Fusion, SwishWithBeta) {
    auto x = op::parameter(element::f32, {1, 3, 8, 8}, "x");
    auto y = op::swish(conv(x, 6, 3, 3, 9), op::constant<float>(element::f32, {}, {1.7f}));
    auto model = single_output(y, x);
    expect_matches_template(model);
    EXPECT_EQ(rows_of_type(cpu_profile(model), "Convolution+Swish"), 1u);
}

NodePtr scalar(float v) {
    return op::constant<float>(element::f32, {}, {v});
}

// Activations as exporters write them (SiLU, HardSwish, tanh Gelu, Mish): one post-op each.
TEST(Fusion, ActivationsAsExportersWriteThem) {
    struct Case {
        std::string name;
        std::function<Output(const Output&)> gate_times_x;
        std::string fused_type;  // "" when it must not fuse
    };
    const std::vector<Case> cases{
        {"x * sigmoid(x)", [](const Output& v) { return op::multiply(v, op::unary("Sigmoid", v)); },
         "Convolution+Add+Swish"},
        {"x * HardSigmoid(alpha 1/6, beta 0.5)",
         [](const Output& v) {
             Output h = op::add(op::multiply(v, scalar(1.f / 6.f)), scalar(0.5f));
             h = op::minimum(op::maximum(h, scalar(0.f)), scalar(1.f));
             return op::multiply(h, v);
         },
         "Convolution+Add+HSwish"},
        {"x * relu6(x + 3) / 6",
         [](const Output& v) {
             return op::divide(op::multiply(v, op::clamp(op::add(v, scalar(3.f)), 0, 6)),
                               scalar(6.f));
         },
         "Convolution+Add+HSwish+Divide"},
        {"x * sigmoid(1.702 x)",
         [](const Output& v) {
             return op::multiply(v, op::unary("Sigmoid", op::multiply(v, scalar(1.702f))));
         },
         "Convolution+Add+Swish"},
        // GPT-2's Gelu: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), x^3 as Power.
        {"tanh Gelu",
         [](const Output& v) {
             Output cube = op::multiply(make_node("Power", {v, scalar(3.f)}), scalar(0.044715f));
             Output inner = op::multiply(op::add(v, cube), scalar(0.7978845608f));
             Output t = op::add(op::unary("Tanh", inner), scalar(1.f));
             return op::multiply(op::multiply(v, scalar(0.5f)), t);
         },
         "Convolution+Add+Gelu"},
        // Mish: x * tanh(softplus(x)), softplus written as log(1 + exp(x)).
        {"Mish",
         [](const Output& v) {
             Output sp = op::unary("Log", op::add(op::unary("Exp", v), scalar(1.f)));
             return op::multiply(v, op::unary("Tanh", sp));
         },
         "Convolution+Add+Mish"},
        // Not an activation oneDNN has: x * x * 0.5 stays as written.
        {"x * x / 2",
         [](const Output& v) { return op::multiply(op::multiply(v, v), scalar(0.5f)); }, ""},
        // ONNX's default HardSigmoid (alpha 0.2) is not HardSwish's gate: not fused, still right.
        {"x * HardSigmoid(alpha 0.2)",
         [](const Output& v) {
             Output h = op::add(op::multiply(v, scalar(0.2f)), scalar(0.5f));
             return op::multiply(v, op::clamp(h, 0, 1));
         },
         ""},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto x = op::parameter(element::f32, {1, 4, 9, 9}, "x");
        auto pre = op::add(conv(x, 8, 4, 3, 41), weights({1, 8, 1, 1}, 42));
        auto model = single_output(c.gate_times_x(pre), x);
        // Wide enough inputs that both saturations of the gates are reached.
        expect_matches_template(model, 1e-4, 1e-5);
        const auto rows = cpu_profile(model);
        if (!c.fused_type.empty()) {
            EXPECT_EQ(rows_of_type(rows, c.fused_type), 1u);
            EXPECT_EQ(rows.size(), 3u);  // the two layout reorders and the convolution
        } else {
            EXPECT_EQ(rows_of_type(rows, "Convolution+Add"), 1u);
            EXPECT_GT(rows.size(), 3u);
        }
    }
}

// PP-LCNet (the PaddleOCR backbones) puts a learnable affine map before and after each
// HardSwish: conv -> a x + b -> x * relu6(x + 3) / 6 -> c x + d. The first map is an eltwise
// linear post-op; oneDNN 2.6 allows one eltwise post-op of each algorithm, so the second, and the
// region's own factor, become one scalar multiply-add pair of binary post-ops, into which every
// later scalar step merges. One step, TEMPLATE's values; also with a Relu after it (an eltwise
// post-op after the pair) and a further scale after that (another pair).
TEST(Fusion, AffineMapsAroundAnActivationFuseAsScalarBinaryPostOps) {
    struct Case {
        std::string name;
        std::function<Output(const Output&)> tail;  // after the second affine map
        std::string fused_type;
    };
    const std::vector<Case> cases{
        {"affine, HardSwish, affine", [](const Output& v) { return v; },
         "Convolution+Add+Multiply+Add+HSwish+Divide+Multiply+Add"},
        {"then Relu", [](const Output& v) { return op::relu(v); },
         "Convolution+Add+Multiply+Add+HSwish+Divide+Multiply+Add+Relu"},
        {"then Relu and a scale",
         [](const Output& v) { return op::multiply(op::relu(v), scalar(-0.75f)); },
         "Convolution+Add+Multiply+Add+HSwish+Divide+Multiply+Add+Relu+Multiply"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto x = op::parameter(element::f32, {1, 4, 9, 9}, "x");
        Output v = op::add(conv(x, 8, 4, 3, 51), weights({1, 8, 1, 1}, 52));
        v = op::add(op::multiply(scalar(1.38f), v), scalar(0.59f));
        v = op::divide(op::multiply(v, op::clamp(op::add(v, scalar(3.f)), 0, 6)), scalar(6.f));
        v = op::add(op::multiply(scalar(0.17f), v), scalar(-0.2f));
        auto model = single_output(c.tail(v), x);
        expect_matches_template(model, 1e-4, 1e-5);
        const auto rows = cpu_profile(model);
        EXPECT_EQ(rows_of_type(rows, c.fused_type), 1u);
        EXPECT_EQ(rows.size(), 3u);  // the two layout reorders and the convolution
    }
}

// A batch normalization left after a convolution or a MatMul (Paddle, Keras and TensorFlow
// exports do not fold it): its per-channel scale and shift are two binary post-ops of the step,
// in either input order of BatchNormInference, with or without a bias before it and with the
// Relu after it. Statistics computed at run time keep it a step of its own.
TEST(Fusion, BatchNormAfterConvolutionAndMatMul) {
    const auto bn = [](const Output& v, size_t c, int version, unsigned seed) {
        const Output gamma = weights({c}, seed, 1.5f), beta = weights({c}, seed + 1);
        const Output mean = weights({c}, seed + 2);
        const Output var = op::constant(random_tensor({c}, seed + 3, 0.1f, 2.f));
        const std::map<std::string, AttrValue> eps{{"epsilon", 1e-5}};
        return version == 5 ? make_node("BatchNormInference", {v, gamma, beta, mean, var}, eps, 5)
                            : make_node("BatchNormInference", {gamma, beta, v, mean, var}, eps, 1);
    };
    for (int version : {5, 1})
        for (bool bias : {false, true}) {
            SCOPED_TRACE("BatchNormInference-" + std::to_string(version) +
                         (bias ? ", convolution with bias" : ""));
            auto x = op::parameter(element::f32, {1, 4, 9, 9}, "x");
            Output v = conv(x, 8, 4, 3, 61);
            if (bias) v = op::add(v, weights({1, 8, 1, 1}, 62));
            auto model = single_output(op::relu(bn(v, 8, version, 63)), x);
            expect_matches_template(model, 1e-4, 1e-5);
            const auto rows = cpu_profile(model);
            EXPECT_EQ(rows_of_type(rows, bias ? "Convolution+Add+BatchNormInference+Relu"
                                              : "Convolution+BatchNormInference+Relu"),
                      1u);
            EXPECT_EQ(rows.size(), 3u);  // the two layout reorders and the convolution
        }
    {
        SCOPED_TRACE("MatMul [N, C]");
        auto x = op::parameter(element::f32, {3, 16}, "x");
        auto model = single_output(bn(op::matmul(x, weights({16, 8}, 71)), 8, 5, 72), x);
        expect_matches_template(model, 1e-4, 1e-5);
        EXPECT_EQ(rows_of_type(cpu_profile(model), "MatMul+BatchNormInference"), 1u);
    }
    {
        // oneDNN 2.6's deconvolution with binary post-ops is many times slower than without:
        // there the normalization stays a step of its own.
        SCOPED_TRACE("after a deconvolution");
        auto x = op::parameter(element::f32, {1, 4, 9, 9}, "x");
        auto d = op::convolution_backprop_data(x, weights({4, 8, 2, 2}, 75), {2, 2}, {0, 0}, {0, 0},
                                               {1, 1});
        auto model = single_output(op::relu(bn(d, 8, 5, 76)), x);
        expect_matches_template(model, 1e-4, 1e-5);
        const auto rows = cpu_profile(model);
        EXPECT_EQ(rows_of_type(rows, "ConvolutionBackpropData"), 1u);
        EXPECT_EQ(rows_of_type(rows, "BatchNormInference+Relu"), 1u);
    }
    {
        SCOPED_TRACE("statistics computed at run time");
        auto x = op::parameter(element::f32, {1, 4, 9, 9}, "x");
        auto var = op::parameter(element::f32, {8}, "var");
        const Output c = conv(x, 8, 4, 3, 81);
        auto node = make_node("BatchNormInference",
                              {c, weights({8}, 82), weights({8}, 83), weights({8}, 84),
                               op::add(op::multiply(var, var), scalar(0.5f))},
                              {{"epsilon", 1e-5}}, 5);
        auto model = std::make_shared<Model>(OutputVector{node}, ParameterVector{x, var}, "bn");
        expect_matches_template(model, 1e-4, 1e-5);
        const auto rows = cpu_profile(model);
        EXPECT_EQ(rows_of_type(rows, "Convolution"), 1u);
    }
}

// DenseNet's pre-activation: a channel Concat read only by a BatchNormInference with constant
// statistics (and that by a Relu) is one concat_affine step writing the normalized
// concatenation; the Concat's own output is never written. Channel counts that are not a
// multiple of the vector width, a model input among the Concat's inputs, an output large enough
// to split over threads, and the cases that must not fuse: a second reader of the Concat (it
// keeps its own step) and a second reader of the normalization (the Relu stays a step).
TEST(Fusion, ConcatBatchNormReluIsOnePass) {
    const auto bn = [](const Output& v, size_t c, unsigned seed) {
        return op::batch_norm_inference(
            v, weights({c}, seed, 1.5f), weights({c}, seed + 1), weights({c}, seed + 2),
            op::constant(random_tensor({c}, seed + 3, 0.1f, 2.f)), 1e-5);
    };
    struct Case {
        const char* what;
        Shape x;
        bool relu, concat_read_twice, bn_read_twice;
        const char* fused_type;
    };
    const Case cases[] = {
        {"two dense layers, odd channels",
         {2, 5, 9, 11},
         true,
         false,
         false,
         "Concat+BatchNormInference+Relu"},
        {"large enough for the thread team",
         {1, 16, 48, 48},
         true,
         false,
         false,
         "Concat+BatchNormInference+Relu"},
        {"no activation", {1, 5, 9, 11}, false, false, false, "Concat+BatchNormInference"},
        {"the normalization read twice",
         {1, 5, 9, 11},
         true,
         false,
         true,
         "Concat+BatchNormInference"},
        {"the Concat read twice", {1, 5, 9, 11}, true, true, false, nullptr},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        auto x = op::parameter(element::f32, PartialShape(c.x), "x");
        const size_t in_c = c.x[1];
        // A stem convolution and the model input itself are the first features.
        OutputVector features = {op::relu(conv(x, 6, in_c, 1, 99)), x};
        size_t channels = 6 + in_c;
        OutputVector extra_outputs;
        for (unsigned layer = 0; layer < 2; ++layer) {
            Output cat = op::concat(features, 1);
            Output y = bn(cat, channels, 100 + 10 * layer);
            if (c.bn_read_twice) extra_outputs.push_back(y);
            if (c.relu) y = op::relu(y);
            if (c.concat_read_twice) extra_outputs.push_back(op::sigmoid(cat));
            features.push_back(conv(y, 7, channels, 3, 200 + layer));  // 7 new channels
            channels += 7;
        }
        OutputVector outs = {op::concat(features, 1)};
        outs.insert(outs.end(), extra_outputs.begin(), extra_outputs.end());
        auto model = std::make_shared<Model>(outs, ParameterVector{x}, "dense_block");
        expect_matches_template(model, 1e-4, 1e-5);
        const auto rows = cpu_profile(model);
        if (c.fused_type) {
            EXPECT_EQ(rows_of_type(rows, c.fused_type), 2u);
            for (const auto& r : rows) {
                if (r.node_type == c.fused_type) EXPECT_EQ(r.exec_type, "concat_affine");
            }
            EXPECT_EQ(rows_of_type(rows, "Concat"), 1u);  // the block's output
            EXPECT_EQ(rows_of_type(rows, "Relu"), c.relu && c.bn_read_twice ? 2u : 0u);
        } else {
            EXPECT_EQ(rows_of_type(rows, "Concat"), 3u);
            EXPECT_EQ(rows_of_type(rows, "BatchNormInference+Relu"), 2u);
        }
    }
}

// Squeeze-excitation (EfficientNet, MobileNetV3, RegNetY): x · sigmoid(conv(mean(x))) read only
// by a convolution whose weights are much smaller than x. The Multiply becomes a reorder that
// scales the convolution's weights per input channel at each inference (exec_type "... weights")
// and the convolution reads x itself. Either operand order, a residual Add on the convolution;
// batch 2 (a gate per image), a second reader of the gated value, a depthwise reader and weights
// as large as x keep the Multiply a step over x.
TEST(Fusion, SqueezeExcitationGateScalesTheNextConvolutionsWeights) {
    struct Case {
        const char* what;
        size_t batch, channels, out_channels;
        bool gate_first, residual, read_twice, depthwise, deferred;
    };
    const Case cases[] = {
        {"gate second", 1, 32, 16, false, false, false, false, true},
        {"gate first, residual add", 1, 32, 32, true, true, false, false, true},
        {"batch 2", 2, 32, 16, false, false, false, false, false},
        {"gated value read twice", 1, 32, 16, false, false, true, false, false},
        {"depthwise reader", 1, 32, 32, false, false, false, true, false},
        {"weights as large as x", 1, 32, 200, false, false, false, false, false},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        auto x = op::parameter(element::f32, PartialShape(Shape{c.batch, 8, 20, 20}), "x");
        auto a = op::relu(conv(x, c.channels, 8, 3, 301));
        auto pooled = op::reduce_mean(a, op::int64_vector({2, 3}), true);
        auto g =
            op::sigmoid(conv(op::relu(conv(pooled, 8, c.channels, 1, 302)), c.channels, 8, 1, 303));
        auto gated = c.gate_first ? op::multiply(g, a) : op::multiply(a, g);
        Output y;
        if (c.depthwise) {
            y = op::group_convolution(gated, weights({c.channels, 1, 1, 3, 3}, 304), {1, 1}, {1, 1},
                                      {1, 1}, {1, 1});
        } else {
            y = conv(gated, c.out_channels, c.channels, 1, 305);
            if (c.residual) y = op::add(y, a);
        }
        OutputVector outs = {y};
        if (c.read_twice) outs.push_back(op::tanh(gated));
        auto model = std::make_shared<Model>(outs, ParameterVector{x}, "squeeze_excitation");
        expect_matches_template(model, 1e-4, 1e-5);
        const auto rows = cpu_profile(model);
        ASSERT_EQ(rows_of_type(rows, "Multiply"), 1u);
        for (const auto& r : rows) {
            if (r.node_type != "Multiply") continue;
            const bool scales_weights = r.exec_type.find(" weights") != std::string::npos;
            EXPECT_EQ(scales_weights, c.deferred) << r.exec_type;
        }
    }
}

TEST(Fusion, SelfGateReadElsewhereIsNotFused) {
    auto x = op::parameter(element::f32, {2, 64}, "x");
    auto mm = op::matmul(x, weights({64, 32}, 43));
    auto gate = op::unary("Sigmoid", mm);
    auto y = op::multiply(mm, gate);
    auto model = std::make_shared<Model>(OutputVector{y, gate}, ParameterVector{x}, "gate_out");
    expect_matches_template(model);
    const auto rows = cpu_profile(model);
    EXPECT_EQ(rows_of_type(rows, "MatMul+Swish"), 0u);
    EXPECT_EQ(rows_of_type(rows, "MatMul"), 1u);
}

ModelPtr dense_gelu(const std::string& mode, const Shape& in, const Shape& bias_shape) {
    auto x = op::parameter(element::f32, PartialShape(in), "x");
    auto m = op::matmul(x, weights({32, 16}, 10));
    auto y = op::gelu(op::add(m, weights(bias_shape, 11)), mode);
    return single_output(y, x);
}

TEST(Fusion, GeluErfAndTanhOnMatMul) {
    for (const std::string mode : {"erf", "tanh"}) {
        SCOPED_TRACE(mode);
        auto model = dense_gelu(mode, {4, 32}, {16});
        expect_matches_template(model);
        EXPECT_EQ(rows_of_type(cpu_profile(model), "MatMul+Add+Gelu"), 1u);
    }
    // The two modes really differ: CPU's erf result is not TEMPLATE's tanh result.
    Core core = make_core();
    const Tensor input = random_tensor({4, 32}, 12, -4.f, 4.f);
    const auto erf = run_model(core, dense_gelu("erf", {4, 32}, {16}), "CPU", {input});
    const auto tanh = run_model(core, dense_gelu("tanh", {4, 32}, {16}), "TEMPLATE", {input});
    EXPECT_FALSE(all_close(erf[0], tanh[0], 0, 1e-7));
}

TEST(Fusion, BroadcastBiasShapes) {
    for (const Shape& bias : {Shape{16}, Shape{1, 16}, Shape{1, 1, 16}}) {
        auto model = dense_gelu("erf", {2, 5, 32}, bias);
        expect_matches_template(model);
    }
    // A conv bias of shape [C, 1, 1] is per channel; [W] broadcasts along the last axis instead and
    // must not be taken for a bias.
    for (const Shape& bias : {Shape{16, 1, 1}, Shape{16}, Shape{1}}) {
        auto x = op::parameter(element::f32, {1, 4, 16, 16}, "x");
        auto model = single_output(op::relu(op::add(conv(x, 16, 4, 3, 13), weights(bias, 14))), x);
        expect_matches_template(model);
    }
}

TEST(Fusion, ResidualAddAfterTwoConvolutions) {
    // ResNet's basic block: relu(conv2(relu(conv1(x))) + x).
    auto x = op::parameter(element::f32, {2, 16, 8, 8}, "x");
    auto stem = op::relu(conv(x, 16, 16, 3, 15));
    auto c1 = op::relu(op::add(conv(stem, 16, 16, 3, 16), weights({1, 16, 1, 1}, 17)));
    auto c2 = op::add(conv(c1, 16, 16, 3, 18), weights({1, 16, 1, 1}, 19));
    auto y = op::relu(op::add(c2, stem));
    auto model = single_output(y, x);
    expect_matches_template(model);
    EXPECT_EQ(rows_of_type(cpu_profile(model), "Convolution+Add+Add+Relu"), 1u);
}

// A residual Add whose operand nothing reads afterwards is a sum post-op: the convolution
// writes its output over the operand (exec_type "... in-place"). Wherever the operand is still
// needed — read later, a view of it read later, a model output, the model's input, the
// convolution's own source — the Add stays a binary post-op; every case gives TEMPLATE's values.
TEST(Fusion, ResidualAddInPlaceOnlyWhereTheOperandIsDead) {
    struct Case {
        const char* name;
        size_t in_place;  // steps that write over their residual operand
        std::function<ModelPtr()> make;
    };
    auto block = [](const Output& in, unsigned seed) {  // relu(conv(relu(conv(in))) + in)
        auto c1 = op::relu(op::add(conv(in, 16, 16, 3, seed), weights({1, 16, 1, 1}, seed + 1)));
        auto c2 = op::add(conv(c1, 16, 16, 1, seed + 2), weights({1, 16, 1, 1}, seed + 3));
        return op::relu(op::add(c2, in));
    };
    auto input = [] { return op::parameter(element::f32, {1, 16, 6, 6}, "x"); };
    const std::vector<Case> cases = {
        {"three blocks in a row", 3,
         [&] {
             auto x = input();
             auto stem = op::relu(conv(x, 16, 16, 3, 30));
             return single_output(block(block(block(stem, 31), 35), 39), x);
         }},
        // The block's Add keeps the operand; the second Add, its last reader, writes over it.
        {"the operand read again by a later residual Add", 1,
         [&] {
             auto x = input();
             auto stem = op::relu(conv(x, 16, 16, 3, 30));
             auto y = block(stem, 31);
             return single_output(op::add(conv(y, 16, 16, 1, 40), stem), x);
         }},
        {"a view of the operand read after the Add", 0,
         [&] {
             auto x = input();
             auto stem = op::relu(conv(x, 16, 16, 3, 30));
             auto flat =
                 op::reshape(stem, op::constant<int64_t>(element::i64, {2}, {16, 36}), false);
             auto y = block(stem, 31);
             auto out = op::matmul(flat, weights({36, 4}, 41));
             return std::make_shared<Model>(OutputVector{y, out}, ParameterVector{x}, "fusion");
         }},
        {"the operand is a model output", 0,
         [&] {
             auto x = input();
             auto stem = op::relu(conv(x, 16, 16, 3, 30));
             return std::make_shared<Model>(OutputVector{block(stem, 31), stem}, ParameterVector{x},
                                            "fusion");
         }},
        {"the operand is the model's input", 0,
         [&] {
             auto x = input();
             return single_output(block(x, 31), x);
         }},
        {"the convolution reads the operand itself", 0,
         [&] {
             auto x = input();
             auto stem = op::relu(conv(x, 16, 16, 3, 30));
             return single_output(op::relu(op::add(conv(stem, 16, 16, 1, 42), stem)), x);
         }},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const auto model = c.make();
        expect_matches_template(model);
        size_t in_place = 0;
        for (const auto& row : cpu_profile(model))
            in_place += row.exec_type.find(" in-place") != std::string::npos;
        EXPECT_EQ(in_place, c.in_place);
    }
}

TEST(Fusion, ScalarArithmeticAfterMatMul) {
    auto x = op::parameter(element::f32, {3, 32}, "x");
    auto m = op::matmul(x, weights({16, 32}, 20), false, true);  // weights stored [N, K]
    auto y = op::subtract(op::multiply(m, op::constant<float>(element::f32, {}, {0.125f})),
                          op::constant<float>(element::f32, {1}, {0.5f}));
    auto model = single_output(y, x);
    expect_matches_template(model);
    EXPECT_EQ(rows_of_type(cpu_profile(model), "MatMul+Multiply+Subtract"), 1u);
}

TEST(Fusion, TwoEltwisePostOpsOnMatMul) {
    auto x = op::parameter(element::f32, {3, 2, 32}, "x");
    auto m = op::matmul(x, weights({32, 16}, 22));
    auto y = op::clamp(op::sigmoid(op::multiply(m, op::constant<float>(element::f32, {}, {3.f}))),
                       0.2, 0.7);
    auto model = single_output(y, x);
    expect_matches_template(model);
    EXPECT_EQ(rows_of_type(cpu_profile(model), "MatMul+Multiply+Sigmoid+Clamp"), 1u);
}

TEST(Fusion, AttentionMatMuls) {
    // softmax(Q K^T * scale) V on [batch, heads, seq, dim] activations.
    auto q = op::parameter(element::f32, {2, 4, 8, 16}, "q");
    auto k = op::parameter(element::f32, {2, 4, 8, 16}, "k");
    auto v = op::parameter(element::f32, {2, 4, 8, 16}, "v");
    auto scores =
        op::multiply(op::matmul(q, k, false, true), op::constant<float>(element::f32, {}, {0.25f}));
    auto y = op::matmul(op::softmax(scores, -1), v);
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{q, k, v}, "attention");
    expect_matches_template(model);
    const auto rows = cpu_profile(model);
    EXPECT_EQ(rows_of_type(rows, "MatMul+Multiply"), 1u);
    EXPECT_EQ(rows_of_type(rows, "MatMul"), 1u);
    EXPECT_EQ(rows_of_type(rows, "Reorder"), 0u);
}

TEST(Fusion, AChainWithTwoConsumersIsNotFused) {
    // The conv output feeds Relu and a second output: the Relu cannot be a post-op.
    auto x = op::parameter(element::f32, {1, 4, 6, 6}, "x");
    auto c = conv(x, 4, 4, 3, 21);
    auto r = op::relu(c);
    auto model = std::make_shared<Model>(OutputVector{r, c}, ParameterVector{x}, "two");
    expect_matches_template(model);
    const auto rows = cpu_profile(model);
    EXPECT_EQ(rows_of_type(rows, "Convolution"), 1u);
    EXPECT_EQ(rows_of_type(rows, "Relu"), 1u);
}

// Attention as exporters write it, matmul(q, k.transpose(-1, -2)): the Transpose is folded into
// the MatMul (its transpose flag toggled) on the static graph, so no Transpose step runs, for
// either operand; an order that is not a swap of the last two axes stays a Transpose; values
// match TEMPLATE.
TEST(Fusion, TransposeOfTheLastTwoAxesFoldsIntoTheMatMul) {
    auto q = op::parameter(element::f32, PartialShape{2, 3, 5, 8}, "q");
    auto k = op::parameter(element::f32, PartialShape{2, 3, 7, 8}, "k");
    auto v = op::parameter(element::f32, PartialShape{2, 3, 8, 7}, "v");
    auto swap = op::constant(element::i64, Shape{4}, std::vector<int64_t>{0, 1, 3, 2});
    auto scores = op::matmul(q, op::transpose(k, swap));      // [2,3,5,7]
    auto mixed = op::matmul(op::transpose(scores, swap), q);  // [2,3,7,8], A folded
    auto other = op::constant(element::i64, Shape{4}, std::vector<int64_t>{1, 0, 2, 3});
    auto moved = op::transpose(v, other);               // [3,2,8,7]: stays a Transpose
    auto kept = op::matmul(moved, moved, false, true);  // [3,2,8,8]
    auto model = std::make_shared<Model>(OutputVector{op::softmax(scores, 3), mixed, kept},
                                         ParameterVector{q, k, v}, "attention");
    expect_matches_template(model);
    const auto rows = cpu_profile(model);
    EXPECT_EQ(rows_of_type(rows, "Transpose"), 1u);  // only the non-swap order
    EXPECT_EQ(rows_of_type(rows, "MatMul"), 3u);
}

}  // namespace
}  // namespace vireo::cpu_test
