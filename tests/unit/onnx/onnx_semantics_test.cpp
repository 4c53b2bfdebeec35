// Tests ONNX semantics that the translators once got wrong or that real models need (issue 30):
// reductions whose axes input is empty at run time, constants that come from Constant nodes,
// Resize's later attributes (Resize-18 axes and antialias, Resize-19 half_pixel_symmetric,
// tf_crop_and_resize with scales).
// Expected values come from plain loops over the inputs, not from the code under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "onnx_test_util.hpp"
#include "vireo/core.hpp"
#include "vireo/ir.hpp"

namespace vireo {
namespace {

using test::float_attribute;
using test::int_attribute;
using test::ints_attribute;
using test::OnnxBuilder;
using test::string_attribute;
constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;

using test::f32;
Tensor i64s(const std::vector<int64_t>& v) {
    Tensor t(element::i64, Shape{v.size()});
    std::copy(v.begin(), v.end(), t.data<int64_t>());
    return t;
}

// data [3,2,2] = 1..12; axes is a graph input, so its emptiness is known only at run time.
TEST(OnnxSemantics, ReductionWithAnEmptyRunTimeAxesInputReducesEveryAxis) {
    std::vector<float> data(12);
    std::iota(data.begin(), data.end(), 1.f);
    struct Case {
        std::string op;
        int64_t opset;
        int64_t noop;
        std::vector<int64_t> axes;
        Shape shape;
        std::vector<float> expected;
    };
    const std::vector<Case> cases{
        {"ReduceSum", 13, 0, {}, {1, 1, 1}, {78.f}},
        {"ReduceMax", 18, 0, {}, {1, 1, 1}, {12.f}},
        // Axis 1 of [[1,2],[3,4]], [[5,6],[7,8]], [[9,10],[11,12]].
        {"ReduceSum", 13, 0, {1}, {3, 1, 2}, {4.f, 6.f, 12.f, 14.f, 20.f, 22.f}},
        {"ReduceSum", 13, 1, {}, {3, 2, 2}, data},
    };
    Core core;
    for (const auto& c : cases) {
        OnnxBuilder b(c.opset);
        b.input("x", kF32, {3, 2, 2}).input("axes", kI64, {-1}).output("y", kF32, {-1, -1, -1});
        int_attribute(b.node(c.op, {"x", "axes"}, {"y"}, "reduce"), "noop_with_empty_axes", c.noop);
        const std::string what = c.op + "-" + std::to_string(c.opset) + " axes size " +
                                 std::to_string(c.axes.size()) + " noop " + std::to_string(c.noop);
        auto request = core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE")
                           .create_infer_request();
        request.set_tensor("x", f32({3, 2, 2}, data));
        request.set_tensor("axes", i64s(c.axes));
        request.infer();
        const Tensor y = request.get_tensor("y");
        ASSERT_EQ(y.get_shape(), c.shape) << what;
        for (size_t i = 0; i < c.expected.size(); ++i)
            EXPECT_EQ(y.data<float>()[i], c.expected[i]) << what << " i=" << i;
    }
}

// One Resize of x [1,1,h,w] (values 1, 2, ...) with `scales` (or roi and scales) as
// initializers; returns y from TEMPLATE and CPU, which must agree.
struct ResizeRun {
    Shape shape;
    std::vector<float> values;
};
ResizeRun run_resize(OnnxBuilder& b, const Shape& x_shape, const std::string& device) {
    Core core;
    std::vector<float> x(shape_size(x_shape));
    std::iota(x.begin(), x.end(), 1.f);
    auto request =
        core.compile_model(core.read_model(b.bytes(), Tensor()), device).create_infer_request();
    request.set_tensor("x", f32(x_shape, x));
    request.infer();
    const Tensor y = request.get_tensor("y");
    return {y.get_shape(), std::vector<float>(y.data<float>(), y.data<float>() + y.get_size())};
}

void expect_resize(OnnxBuilder& b, const Shape& x_shape, const Shape& shape,
                   const std::vector<float>& expected, const std::string& what) {
    for (const std::string device : {"TEMPLATE", "CPU"}) {
        const ResizeRun y = run_resize(b, x_shape, device);
        ASSERT_EQ(y.shape, shape) << what << " on " << device;
        for (size_t i = 0; i < expected.size(); ++i)
            EXPECT_NEAR(y.values[i], expected[i], 1e-5) << what << " on " << device << " i=" << i;
    }
}

// Resize-18's axes attribute: scales hold one entry per listed axis (it was ignored: the
// scales were taken for the leading axes).
TEST(OnnxResize, Resize18AxesAttributeNamesTheResizedAxes) {
    OnnxBuilder b(18);
    b.input("x", kF32, {1, 1, 2, 2}).output("y", kF32, {-1, -1, -1, -1});
    b.initializer("scales", {2}, {2.f, 1.f});
    auto& node = b.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
    ints_attribute(node, "axes", {-2, 3});
    string_attribute(node, "mode", "nearest");
    // Rows doubled (nearest, half_pixel, round_prefer_floor), columns kept.
    expect_resize(b, {1, 1, 2, 2}, {1, 1, 4, 2}, {1, 2, 1, 2, 3, 4, 3, 4}, "axes [-2, 3]");
}

// Resize-18 antialias: a linear downscale widens the triangle filter by 1/scale. [1, 2, 3, 4] to
// two columns: output 0 is centred at 0.5 with weights 0.375, 0.375, 0.125 on inputs 0, 1, 2
// (1 - |d| / 2 for distances 0.5, 0.5, 1.5, halved, normalised): 1.5 / 0.875; output 1 mirrors it.
TEST(OnnxResize, Resize18AntialiasWidensTheLinearFilterWhenDownscaling) {
    OnnxBuilder b(18);
    b.input("x", kF32, {1, 1, 1, 4}).output("y", kF32, {-1, -1, -1, -1});
    b.initializer("scales", {4}, {1.f, 1.f, 1.f, 0.5f});
    auto& node = b.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
    string_attribute(node, "mode", "linear");
    int_attribute(node, "antialias", 1);
    const float first = (0.375f * 1 + 0.375f * 2 + 0.125f * 3) / 0.875f;
    const float second = (0.125f * 2 + 0.375f * 3 + 0.375f * 4) / 0.875f;
    expect_resize(b, {1, 1, 1, 4}, {1, 1, 1, 2}, {first, second}, "antialias");
    // Without antialias: plain linear at 0.5 and 2.5.
    OnnxBuilder plain(18);
    plain.input("x", kF32, {1, 1, 1, 4}).output("y", kF32, {-1, -1, -1, -1});
    plain.initializer("scales", {4}, {1.f, 1.f, 1.f, 0.5f});
    string_attribute(plain.node("Resize", {"x", "", "scales"}, {"y"}, "resize"), "mode", "linear");
    expect_resize(plain, {1, 1, 1, 4}, {1, 1, 1, 2}, {1.5f, 3.5f}, "no antialias");
}

// Resize-19 half_pixel_symmetric: [1, 2, 3, 4] scaled by 0.6 keeps floor(2.4) = 2 outputs, centred:
// offset 2 * (1 - 2 / 2.4) = 1/3, so positions 1/3 + (j + 0.5) / 0.6 - 0.5 = 2/3 and 7/3.
TEST(OnnxResize, Resize19HalfPixelSymmetricCentresAFractionalLength) {
    OnnxBuilder b(19);
    b.input("x", kF32, {1, 1, 1, 4}).output("y", kF32, {-1, -1, -1, -1});
    b.initializer("scales", {4}, {1.f, 1.f, 1.f, 0.6f});
    auto& node = b.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
    string_attribute(node, "mode", "linear");
    string_attribute(node, "coordinate_transformation_mode", "half_pixel_symmetric");
    expect_resize(b, {1, 1, 1, 4}, {1, 1, 1, 2}, {1.f + 2.f / 3.f, 1.f + 7.f / 3.f},
                  "half_pixel_symmetric");
}

// tf_crop_and_resize with scales: the output length is floor(length * (end - start) * scale).
// x [1,1,4,4] = 4r + c + 1; roi rows 0.4..1.2 and columns 0.6..1.7, scales 0.75: 2 rows, 3 columns.
// Row 0 / column 0 map to (1.2, 1.8): 4 * 1.2 + 1.8 + 1 = 7.6; every other position lies beyond the
// last row or column and reads extrapolation_value.
TEST(OnnxResize, TfCropAndResizeWithScalesAndExtrapolation) {
    OnnxBuilder b(13);
    b.input("x", kF32, {1, 1, 4, 4}).output("y", kF32, {-1, -1, -1, -1});
    b.initializer("roi", {8}, {0.f, 0.f, 0.4f, 0.6f, 1.f, 1.f, 1.2f, 1.7f});
    b.initializer("scales", {4}, {1.f, 1.f, 0.75f, 0.75f});
    auto& node = b.node("Resize", {"x", "roi", "scales"}, {"y"}, "resize");
    string_attribute(node, "mode", "linear");
    string_attribute(node, "coordinate_transformation_mode", "tf_crop_and_resize");
    float_attribute(node, "extrapolation_value", -3.f);
    expect_resize(b, {1, 1, 4, 4}, {1, 1, 2, 3}, {7.6f, -3.f, -3.f, -3.f, -3.f, -3.f},
                  "tf_crop_and_resize");
}

// What Resize-18 adds and Vireo does not run is refused naming the attribute.
TEST(OnnxResize, UnsupportedResize18AttributesAreRefusedByName) {
    Core core;
    OnnxBuilder b(18);
    b.input("x", kF32, {1, 1, 4, 4}).output("y", kF32, {-1, -1, -1, -1});
    b.initializer("scales", {4}, {1.f, 1.f, 1.f, 1.f});
    auto& node = b.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
    string_attribute(node, "keep_aspect_ratio_policy", "not_larger");
    try {
        core.read_model(b.bytes(), Tensor());
        FAIL() << "keep_aspect_ratio_policy not_larger was accepted";
    } catch (const Exception& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("keep_aspect_ratio_policy"), std::string::npos) << m;
        EXPECT_NE(m.find("resize"), std::string::npos) << m;
    }
}

// Flatten of a tensor whose leading axes hold no elements keeps the trailing product: a detector's
// boxes after a score threshold are [0, 1, 4], and Flatten(axis 1) must give [0, 4] (RetinaNet's
// box decoding then reshaped [0, 4, 1] to it); inferring -1 from zero elements gave [0, 0]. Shapes
// reach the reader as -1, so the dimensions are known only at run time.
TEST(OnnxSemantics, FlattenOfAnEmptyTensorKeepsTheTrailingProduct) {
    struct Case {
        Shape in;
        int64_t axis;
        Shape out;
    };
    const std::vector<Case> cases{
        {{0, 1, 4}, 1, {0, 4}},  {{2, 0, 4}, 2, {0, 4}}, {{2, 0, 4}, 1, {2, 0}},
        {{0, 3, 4}, 3, {0, 1}},  {{0, 3, 4}, 0, {1, 0}}, {{2, 3, 4}, -1, {6, 4}},
        {{2, 3, 4}, 1, {2, 12}},
    };
    Core core;
    for (const auto& c : cases) {
        OnnxBuilder b(13);
        b.input("x", kF32, {-1, -1, -1}).output("y", kF32, {-1, -1});
        int_attribute(b.node("Flatten", {"x"}, {"y"}, "flatten"), "axis", c.axis);
        std::ostringstream what;
        what << "Flatten axis " << c.axis << " of " << c.in;
        auto request = core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE")
                           .create_infer_request();
        std::vector<float> data(shape_size(c.in));
        std::iota(data.begin(), data.end(), 1.f);
        request.set_tensor("x", f32(c.in, data));
        request.infer();
        const Tensor y = request.get_tensor("y");
        ASSERT_EQ(y.get_shape(), c.out) << what.str();
        for (size_t i = 0; i < data.size(); ++i)
            EXPECT_EQ(y.data<float>()[i], data[i]) << what.str() << " i=" << i;
    }
}

// ceil_mode as PyTorch computes it and ONNX's pooling text states: a last window that would start
// in the end padding is dropped. 13 elements 0..12, kernel 4, stride 3, pads 2+2:
// windows start at -2, 1, 4, 7, 10 (a sixth would start at 13); a plain ceiling gave 6 outputs
// where torch.nn.functional.max_pool1d / avg_pool1d give 5.
TEST(OnnxSemantics, PoolingCeilModeDropsAWindowStartingInTheEndPadding) {
    struct Case {
        std::string op;
        int64_t count_include_pad;
        std::vector<float> expected;
    };
    const std::vector<Case> cases{
        {"MaxPool", 0, {1, 4, 7, 10, 12}},
        {"AveragePool", 0, {0.5f, 2.5f, 5.5f, 8.5f, 11.f}},
        // With the padding counted every window holds 4 taps: [-2, 2) two of them padding,
        // [10, 14) one (13 is inside the 2 end pads).
        {"AveragePool", 1, {0.25f, 2.5f, 5.5f, 8.5f, 33.f / 4}},
    };
    std::vector<float> data(13);
    std::iota(data.begin(), data.end(), 0.f);
    Core core;
    for (const auto& c : cases) {
        OnnxBuilder b(13);
        b.input("x", kF32, {1, 1, 13}).output("y", kF32, {1, 1, -1});
        auto& node = b.node(c.op, {"x"}, {"y"}, "pool");
        ints_attribute(node, "kernel_shape", {4});
        ints_attribute(node, "strides", {3});
        ints_attribute(node, "pads", {2, 2});
        int_attribute(node, "ceil_mode", 1);
        if (c.op == "AveragePool") int_attribute(node, "count_include_pad", c.count_include_pad);
        const std::string what = c.op + " count_include_pad " + std::to_string(c.count_include_pad);
        auto request = core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE")
                           .create_infer_request();
        request.set_tensor("x", f32({1, 1, 13}, data));
        request.infer();
        const Tensor y = request.get_tensor("y");
        ASSERT_EQ(y.get_shape(), (Shape{1, 1, 5})) << what;
        for (size_t i = 0; i < c.expected.size(); ++i)
            EXPECT_FLOAT_EQ(y.data<float>()[i], c.expected[i]) << what << " i=" << i;
    }
}

// count_include_pad with ceil_mode where the last window runs past the padding: ONNX (and ONNX
// Runtime) divide by the window's taps inside the padded input — padding counted, the overhang
// not. 7 elements 0..6, kernel 3, stride 2, pads 1 before and 0 after: windows [-1, 2), [1, 4),
// [3, 6) and [5, 8), the last holding 5 and 6 only: (5 + 6) / 2, not / 3. On CPU and TEMPLATE
// (static input shapes: a dynamic one keeps the core's divisor, docs/onnx.md).
TEST(OnnxSemantics, AveragePoolCountingPaddingDoesNotCountPastIt) {
    std::vector<float> data(7);
    std::iota(data.begin(), data.end(), 0.f);
    const std::vector<float> expected{1.f / 3, 2.f, 4.f, 5.5f};
    Core core;
    for (const std::string device : {"CPU", "TEMPLATE"}) {
        OnnxBuilder b(13);
        b.input("x", kF32, {1, 1, 7}).output("y", kF32, {1, 1, -1});
        auto& node = b.node("AveragePool", {"x"}, {"y"}, "pool");
        ints_attribute(node, "kernel_shape", {3});
        ints_attribute(node, "strides", {2});
        ints_attribute(node, "pads", {1, 0});
        int_attribute(node, "ceil_mode", 1);
        int_attribute(node, "count_include_pad", 1);
        const std::string& what = device;
        auto request =
            core.compile_model(core.read_model(b.bytes(), Tensor()), device).create_infer_request();
        request.set_tensor("x", f32({1, 1, 7}, data));
        request.infer();
        const Tensor y = request.get_tensor("y");
        ASSERT_EQ(y.get_shape(), (Shape{1, 1, 4})) << what;
        for (size_t i = 0; i < expected.size(); ++i)
            EXPECT_FLOAT_EQ(y.data<float>()[i], expected[i]) << what << " i=" << i;
    }
}

// LpPool: (sum of |x|^p over the window)^(1/p), padding counting as zeros, against the
// definition computed here; 2-D, kernel 3x2, strides 2x1, pads 1 0 1 1, p = 1, 2 and 3, on CPU
// and TEMPLATE. Dilations and ceil_mode are refused naming the attribute.
TEST(OnnxSemantics, LpPoolIsThePNormOfEachWindow) {
    const size_t H = 5, W = 4, kh = 3, kw = 2, sh = 2, sw = 1, pt = 1, pl = 0, pb = 1, pr = 1;
    const size_t oh = (H + pt + pb - kh) / sh + 1, ow = (W + pl + pr - kw) / sw + 1;
    std::vector<float> data(2 * H * W);
    for (size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5) * 0.5f;
    Core core;
    for (int64_t p : {1, 2, 3}) {
        OnnxBuilder b(11);
        b.input("x", kF32, {1, 2, static_cast<int64_t>(H), static_cast<int64_t>(W)})
            .output("y", kF32, {1, 2, -1, -1});
        auto& node = b.node("LpPool", {"x"}, {"y"}, "lp");
        ints_attribute(node, "kernel_shape", {kh, kw});
        ints_attribute(node, "strides", {sh, sw});
        ints_attribute(node, "pads", {pt, pl, pb, pr});
        int_attribute(node, "p", p);
        const auto model = core.read_model(b.bytes(), Tensor());
        for (const std::string device : {"CPU", "TEMPLATE"}) {
            auto request = core.compile_model(model, device).create_infer_request();
            request.set_tensor("x", f32({1, 2, H, W}, data));
            request.infer();
            const Tensor y = request.get_tensor("y");
            ASSERT_EQ(y.get_shape(), (Shape{1, 2, oh, ow})) << device;
            for (size_t c = 0; c < 2; ++c)
                for (size_t i = 0; i < oh; ++i)
                    for (size_t j = 0; j < ow; ++j) {
                        double sum = 0;
                        for (size_t a = 0; a < kh; ++a)
                            for (size_t e = 0; e < kw; ++e) {
                                const auto r = static_cast<int64_t>(i * sh + a) - int64_t{pt};
                                const auto q = static_cast<int64_t>(j * sw + e) - int64_t{pl};
                                if (r < 0 || q < 0 || r >= int64_t{H} || q >= int64_t{W}) continue;
                                sum += std::pow(std::fabs(data[(c * H + r) * W + q]), p);
                            }
                        const double expected = std::pow(sum, 1.0 / static_cast<double>(p));
                        EXPECT_NEAR(y.data<float>()[(c * oh + i) * ow + j], expected,
                                    1e-5 * (1 + expected))
                            << device << " p " << p << " at " << c << "," << i << "," << j;
                    }
        }
    }
    for (const std::string refused : {"dilations", "ceil_mode"}) {
        OnnxBuilder b(18);
        b.input("x", kF32, {1, 1, 4, 4}).output("y", kF32, {1, 1, -1, -1});
        auto& node = b.node("LpPool", {"x"}, {"y"}, "lp");
        ints_attribute(node, "kernel_shape", {2, 2});
        if (refused == "dilations")
            ints_attribute(node, "dilations", {2, 2});
        else
            int_attribute(node, "ceil_mode", 1);
        try {
            core.read_model(b.bytes(), Tensor());
            ADD_FAILURE() << refused << " was accepted";
        } catch (const NotImplemented& e) {
            EXPECT_NE(std::string(e.what()).find(refused), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("'lp'"), std::string::npos) << e.what();
        }
    }
}

onnx::NodeProto& bool_constant(OnnxBuilder& b, const std::string& output, bool value) {
    auto& node = b.node("Constant", {}, {output}, output + "_node");
    auto* a = node.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::BOOL);
    a->mutable_t()->add_int32_data(value ? 1 : 0);
    return node;
}

// training_mode from a Constant node, through Identity, and computed by a folded subgraph
// (Not(true)): all are constants, as an initializer would be.
TEST(OnnxSemantics, DropoutTrainingModeFromConstantNodesAndFoldedSubgraphs) {
    Core core;
    for (const std::string route : {"constant", "identity", "folded", "cast", "squeeze"}) {
        OnnxBuilder b(13);
        b.input("x", kF32, {2}).output("y", kF32, {2});
        if (route == "constant") {
            bool_constant(b, "training", false);
        } else if (route == "identity") {
            bool_constant(b, "t0", false);
            b.node("Identity", {"t0"}, {"training"}, "id");
        } else if (route == "folded") {
            bool_constant(b, "t0", true);
            b.node("Not", {"t0"}, {"training"}, "not");
        } else if (route == "cast") {
            b.initializer("zero", {}, {0.f});
            int_attribute(b.node("Cast", {"zero"}, {"training"}, "cast"), "to", 9);
        } else {
            b.initializer("zero1", {1}, {0.f});
            int_attribute(b.node("Cast", {"zero1"}, {"t1"}, "cast"), "to", 9);
            b.node("Squeeze", {"t1"}, {"training"}, "sq");
        }
        b.initializer("ratio", {}, {0.5f});
        b.node("Dropout", {"x", "ratio", "training"}, {"y"}, "drop");
        auto request = core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE")
                           .create_infer_request();
        request.set_tensor("x", f32({2}, {1.5f, -2.f}));
        request.infer();
        EXPECT_EQ(request.get_tensor("y").data<float>()[0], 1.5f) << route;
        EXPECT_EQ(request.get_tensor("y").data<float>()[1], -2.f) << route;
    }
    // Training mode with a ratio of constant 0 drops nothing: the identity (torchvision's Swin
    // exports its attention dropout so).
    for (const bool constant_training : {true, false}) {
        OnnxBuilder b(13);
        b.input("x", kF32, {2}).output("y", kF32, {2});
        if (constant_training)
            bool_constant(b, "training", true);
        else
            b.input("training", onnx::TensorProto::BOOL, {});
        b.initializer("ratio0", {}, {0.f});
        b.node("Dropout", {"x", "ratio0", "training"}, {"y"}, "drop0");
        auto request = core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE")
                           .create_infer_request();
        request.set_tensor("x", f32({2}, {1.5f, -2.f}));
        if (!constant_training) {
            Tensor t(element::boolean, Shape{});
            *static_cast<bool*>(t.data()) = true;
            request.set_tensor("training", t);
        }
        request.infer();
        EXPECT_EQ(request.get_tensor("y").data<float>()[0], 1.5f);
        EXPECT_EQ(request.get_tensor("y").data<float>()[1], -2.f);
    }
    // A constant true with a ratio that drops (the default 0.5) is real training-mode dropout, a
    // RandomUniform in the graph (values: onnx_training_ops_test.cpp).
    OnnxBuilder b(13);
    b.input("x", kF32, {2}).output("y", kF32, {2});
    bool_constant(b, "training", true);
    b.node("Dropout", {"x", "", "training"}, {"y"}, "drop");
    size_t randoms = 0;
    for (const auto& node : core.read_model(b.bytes(), Tensor())->get_ordered_ops())
        randoms += node->get_type_name() == "RandomUniform";
    EXPECT_EQ(randoms, 1u);
}

}  // namespace
}  // namespace vireo

namespace vireo {
namespace {

// A sequence built, edited and read back inside the graph is resolved at import: insert at the
// front and at a negative position, erase, read by position, length and concatenation.
TEST(OnnxSequences, SequencesKnownAtImportAreResolvedToTheirTensors) {
    OnnxBuilder b(13);
    b.input("a", kF32, {1, 2}).input("b", kF32, {1, 2}).input("c", kF32, {1, 2});
    b.output("joined", kF32, {-1, 2}).output("second", kF32, {1, 2}).output("count", kI64, {});
    auto* zero = b.proto().mutable_graph()->add_initializer();
    zero->set_name("zero");
    zero->set_data_type(kI64);
    zero->add_int64_data(0);
    auto* minus_one = b.proto().mutable_graph()->add_initializer();
    minus_one->set_name("minus_one");
    minus_one->set_data_type(kI64);
    minus_one->add_int64_data(-1);
    b.node("SequenceConstruct", {"a", "b"}, {"s1"});             // [a, b]
    b.node("SequenceInsert", {"s1", "c", "zero"}, {"s2"});       // [c, a, b]
    b.node("SequenceInsert", {"s2", "a", "minus_one"}, {"s3"});  // [c, a, a, b]
    b.node("SequenceErase", {"s3", "zero"}, {"s4"});             // [a, a, b]
    b.node("SequenceAt", {"s4", "minus_one"}, {"second"});       // b
    b.node("SequenceLength", {"s4"}, {"count"});                 // 3
    int_attribute(b.node("ConcatFromSequence", {"s4"}, {"joined"}), "axis", 0);
    Core core;
    auto request =
        core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE").create_infer_request();
    request.set_tensor("a", f32({1, 2}, {1, 2}));
    request.set_tensor("b", f32({1, 2}, {3, 4}));
    request.set_tensor("c", f32({1, 2}, {5, 6}));
    request.infer();
    const Tensor joined = request.get_tensor("joined");
    ASSERT_EQ(joined.get_shape(), (Shape{3, 2}));
    EXPECT_EQ(std::vector<float>(joined.data<float>(), joined.data<float>() + 6),
              (std::vector<float>{1, 2, 1, 2, 3, 4}));
    const Tensor second = request.get_tensor("second");
    EXPECT_EQ(std::vector<float>(second.data<float>(), second.data<float>() + 2),
              (std::vector<float>{3, 4}));
    EXPECT_EQ(request.get_tensor("count").data<int64_t>()[0], 3);
}

TEST(OnnxSequences, WhatCannotBeResolvedAtImportIsRefusedNamingIt) {
    auto message = [](OnnxBuilder& b) {
        try {
            Core().read_model(b.bytes(), Tensor());
        } catch (const Exception& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    {  // A position out of range names the node and the range.
        OnnxBuilder b(13);
        b.input("a", kF32, {2}).output("y", kF32, {2});
        auto* five = b.proto().mutable_graph()->add_initializer();
        five->set_name("five");
        five->set_data_type(kI64);
        five->add_int64_data(5);
        b.node("SequenceConstruct", {"a", "a"}, {"s"});
        b.node("SequenceAt", {"s", "five"}, {"y"}, "pick");
        const std::string m = message(b);
        EXPECT_NE(m.find("pick"), std::string::npos) << m;
        EXPECT_NE(m.find("position 5 is out of range [-2, 1]"), std::string::npos) << m;
    }
    {  // A position computed at run time.
        OnnxBuilder b(13);
        b.input("a", kF32, {2}).input("i", kI64, {}).output("y", kF32, {2});
        b.node("SequenceConstruct", {"a", "a"}, {"s"});
        b.node("SequenceAt", {"s", "i"}, {"y"}, "pick");
        const std::string m = message(b);
        EXPECT_NE(m.find("must be a constant"), std::string::npos) << m;
    }
    {  // A sequence as a graph output.
        OnnxBuilder b(13);
        b.input("a", kF32, {2});
        b.node("SequenceConstruct", {"a"}, {"s"});
        auto* out = b.proto().mutable_graph()->add_output();
        out->set_name("s");
        out->mutable_type()
            ->mutable_sequence_type()
            ->mutable_elem_type()
            ->mutable_tensor_type()
            ->set_elem_type(kF32);
        const std::string m = message(b);
        EXPECT_NE(m.find("'s' is a sequence"), std::string::npos) << m;
    }
    {  // A tensor op reading a sequence.
        OnnxBuilder b(13);
        b.input("a", kF32, {2}).output("y", kF32, {2});
        b.node("SequenceConstruct", {"a"}, {"s"});
        b.node("Relu", {"s"}, {"y"}, "act");
        const std::string m = message(b);
        EXPECT_NE(m.find("is a sequence"), std::string::npos) << m;
    }
}

}  // namespace
}  // namespace vireo

namespace vireo {
namespace {

// An output that folds to a Constant (Shape of a static input) is copied so its port has a tensor
// of its own; the name must move to the copy, or serialize writes it on two outputs and the IR
// reader refuses the file (found through the REMOTE device, which sends models as IR).
TEST(OnnxOutputs, AnOutputFoldedToAConstantSurvivesAnIrRoundTrip) {
    OnnxBuilder b(13);
    b.input("x", kF32, {2, 3}).output("s", kI64, {2}).output("y", kF32, {2, 3});
    b.node("Shape", {"x"}, {"s"});
    b.node("Relu", {"x"}, {"y"});
    Core core;
    const auto model = core.read_model(b.bytes(), Tensor());
    std::ostringstream xml, bin;
    serialize(*model, xml, bin);
    const std::string weights = bin.str();
    Tensor w(element::u8, Shape{weights.size()});
    if (!weights.empty()) std::copy(weights.begin(), weights.end(), w.data<uint8_t>());
    const auto back = core.read_model(xml.str(), w);
    ASSERT_EQ(back->outputs().size(), 2u);
    EXPECT_EQ(back->output(0).get_any_name(), "s");
    auto request = core.compile_model(back, "TEMPLATE").create_infer_request();
    request.set_tensor("x", f32({2, 3}, {-1, 2, -3, 4, -5, 6}));
    request.infer();
    const Tensor shape = request.get_tensor("s");
    ASSERT_EQ(shape.get_size(), 2u);
    EXPECT_EQ(shape.data<int64_t>()[0], 2);
    EXPECT_EQ(shape.data<int64_t>()[1], 3);
    EXPECT_EQ(request.get_tensor("y").data<float>()[1], 2.f);
}

// A MatMul as ONNX Runtime's quantize_dynamic writes it: DynamicQuantizeLinear(x) ->
// MatMulInteger(x_q, W, x_zero_point[, W_zero_point]) -> Cast -> Mul(x_scale * W_scale) -> Add
// bias, against the definition computed here (the integer sum is exact). With s8 weights, or u8
// ones whose zero point brings them into s8's range, the CPU runs one int8 matmul
// (Int8MatMul+Convert); u8 weights beyond that range stay on the f32 ops with the same results.
TEST(OnnxSemantics, DynamicallyQuantizedMatMulAsOrtWritesIt) {
    constexpr size_t M = 4, K = 64, N = 24;
    std::vector<float> x(M * K);
    for (size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<float>(static_cast<int>(i * 37 % 101) - 40) * 0.05f;  // -2 .. 3
    struct Case {
        int32_t type;  // W's ONNX type
        int w_zp;      // W's zero point (-1: none given)
        bool int8;     // the CPU runs it on an int8 matmul
    };
    for (const Case c :
         {Case{onnx::TensorProto::INT8, -1, true}, Case{onnx::TensorProto::UINT8, 128, true},
          Case{onnx::TensorProto::UINT8, 0, false}}) {
        const bool u8 = c.type == onnx::TensorProto::UINT8;
        std::vector<int> w(K * N);
        for (size_t i = 0; i < w.size(); ++i)
            w[i] = static_cast<int>(i * 53 % 255) - (u8 ? 0 : 127);  // u8: 0..254, s8: -127..127
        const float w_scale = 0.01f;
        std::vector<float> bias(N);
        for (size_t n = 0; n < N; ++n) bias[n] = 0.1f * static_cast<float>(n % 7) - 0.3f;

        OnnxBuilder b(13);
        b.input("x", kF32, {M, K}).output("y", kF32, {M, N});
        auto* wt = b.proto().mutable_graph()->add_initializer();
        wt->set_name("W");
        wt->set_data_type(c.type);
        wt->add_dims(K);
        wt->add_dims(N);
        std::string raw(w.size(), '\0');
        for (size_t i = 0; i < w.size(); ++i) raw[i] = static_cast<char>(w[i]);
        wt->set_raw_data(raw);
        std::vector<std::string> mm_inputs{"xq", "W", "xzp"};
        if (c.w_zp >= 0) {
            auto* z = b.proto().mutable_graph()->add_initializer();
            z->set_name("wzp");
            z->set_data_type(c.type);
            z->set_raw_data(std::string(1, static_cast<char>(c.w_zp)));
            mm_inputs.push_back("wzp");
        }
        b.initializer("ws", {}, {w_scale});
        b.initializer("bias", {N}, bias);
        b.node("DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xzp"});
        b.node("MatMulInteger", mm_inputs, {"yi"});
        int_attribute(b.node("Cast", {"yi"}, {"yf"}), "to", kF32);
        b.node("Mul", {"xs", "ws"}, {"s"});
        b.node("Mul", {"yf", "s"}, {"ys"});
        b.node("Add", {"ys", "bias"}, {"y"});

        // The definition.
        float lo = 0.f, hi = 0.f;
        for (float v : x) lo = std::min(lo, v), hi = std::max(hi, v);
        const float s = (hi - lo) / 255.f;
        const float zp = std::nearbyint(std::clamp(-lo / s, 0.f, 255.f));
        std::vector<float> expected(M * N);
        for (size_t m = 0; m < M; ++m)
            for (size_t n = 0; n < N; ++n) {
                int64_t acc = 0;
                for (size_t k = 0; k < K; ++k) {
                    const float q = std::clamp(std::nearbyint(x[m * K + k] / s) + zp, 0.f, 255.f);
                    acc += (static_cast<int64_t>(q) - static_cast<int64_t>(zp)) *
                           (w[k * N + n] - std::max(c.w_zp, 0));
                }
                expected[m * N + n] = static_cast<float>(acc) * (s * w_scale) + bias[n];
            }

        Core core;
        const auto model = core.read_model(b.bytes(), Tensor());
        for (const std::string device : {"TEMPLATE", "CPU"}) {
            SCOPED_TRACE(device + (u8 ? " u8 weights, zero point " + std::to_string(c.w_zp)
                                      : " s8 weights"));
            auto compiled = core.compile_model(model, device, {{"PERF_COUNT", true}});
            auto request = compiled.create_infer_request();
            request.set_tensor("x", f32({M, K}, x));
            request.infer();
            const Tensor y = request.get_tensor("y");
            ASSERT_EQ(y.get_shape(), (Shape{M, N}));
            for (size_t i = 0; i < expected.size(); ++i)
                ASSERT_NEAR(y.data<float>()[i], expected[i], 1e-5 * (1 + std::fabs(expected[i])))
                    << "i=" << i;
            if (device != "CPU") continue;
            size_t int8_rows = 0;
            for (const auto& row : request.get_profiling_info())
                int8_rows += row.node_type.rfind("Int8MatMul", 0) == 0 &&
                             row.status == ProfilingInfo::Status::EXECUTED;
            EXPECT_EQ(int8_rows, c.int8 ? 1u : 0u);
        }
    }
}

}  // namespace
}  // namespace vireo
