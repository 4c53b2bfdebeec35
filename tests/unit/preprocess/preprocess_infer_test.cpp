// Runs models built by PrePostProcessor on TEMPLATE and MOCK_REMOTE and compares the outputs with
// plain loops in the test: u8 NHWC images through convert, mean/scale, resize (linear, nearest),
// reverse_channels and the layout change; f32 <-> f16; outputs converted back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "preprocess_test_utils.hpp"
#include "vireo/float16.hpp"
#include "vireo/ops.hpp"
#include "vireo/preprocess.hpp"

namespace vireo::preprocess_test {
namespace {

// y = x * 2 over [1, 3, 2, 2] (NCHW), input "x", output "y".
std::shared_ptr<Model> image_model(element::Type type = element::f32) {
    auto x = op::parameter(type, PartialShape({1, 3, 2, 2}), "x");
    auto y = op::multiply(x, op::constant<float>(type, {1}, {2.f}));
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "image");
}

// A u8 NHWC image [1, h, w, 3] with distinct values.
std::vector<uint8_t> image_pixels(size_t h, size_t w) {
    std::vector<uint8_t> pixels(h * w * 3);
    for (size_t i = 0; i < pixels.size(); ++i)
        pixels[i] = static_cast<uint8_t>((i * 37 + 11) % 251);
    return pixels;
}

class PreprocessInfer : public ::testing::TestWithParam<std::string> {};

TEST_P(PreprocessInfer, U8NhwcImageThroughConvertMeanScaleLinearResize) {
    const size_t h = 4, w = 6;
    const std::vector<float> mean = {10.f, 20.f, 30.f};
    const std::vector<float> scale = {2.f, 4.f, 8.f};
    PrePostProcessor ppp(image_model());
    ppp.input()
        .tensor()
        .set_element_type(element::u8)
        .set_layout("NHWC")
        .set_spatial_static_shape(h, w);
    ppp.input()
        .preprocess()
        .convert_element_type(element::f32)
        .mean(mean)
        .scale(scale)
        .resize(ResizeAlgorithm::kLinear);
    ppp.input().model().set_layout("NCHW");
    Core core = make_core();
    InferRequest request = compile(core, ppp.build(), GetParam()).create_infer_request();
    const auto pixels = image_pixels(h, w);
    request.set_tensor("x", make_tensor<uint8_t>(element::u8, {1, h, w, 3}, pixels));
    request.infer();

    // Bilinear with half-pixel centres, clamped, for a 4x6 -> 2x2 resize; then NCHW and * 2.
    auto source = [&](size_t y, size_t x, size_t c) {
        return (static_cast<float>(pixels[(y * w + x) * 3 + c]) - mean[c]) / scale[c];
    };
    auto sample = [&](double pos, size_t len, size_t& i0, size_t& i1, double& f) {
        pos = std::clamp(pos, 0.0, static_cast<double>(len - 1));
        i0 = static_cast<size_t>(std::floor(pos));
        i1 = std::min(i0 + 1, len - 1);
        f = pos - static_cast<double>(i0);
    };
    std::vector<float> expected;
    for (size_t c = 0; c < 3; ++c)
        for (size_t oy = 0; oy < 2; ++oy)
            for (size_t ox = 0; ox < 2; ++ox) {
                size_t y0, y1, x0, x1;
                double fy, fx;
                sample((oy + 0.5) * (static_cast<double>(h) / 2) - 0.5, h, y0, y1, fy);
                sample((ox + 0.5) * (static_cast<double>(w) / 2) - 0.5, w, x0, x1, fx);
                const double v =
                    (1 - fy) * ((1 - fx) * source(y0, x0, c) + fx * source(y0, x1, c)) +
                    fy * ((1 - fx) * source(y1, x0, c) + fx * source(y1, x1, c));
                expected.push_back(static_cast<float>(2 * v));
            }
    const auto actual = to_vector(request.get_tensor("y"));
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_NEAR(actual[i], expected[i], 1e-4) << "element " << i;
}

TEST_P(PreprocessInfer, WorkedExampleOfTheDocs) {
    const std::vector<float> mean = {123.7f, 116.3f, 103.5f};
    PrePostProcessor ppp(image_model());
    ppp.input("x").tensor().set_element_type(element::u8).set_layout("NHWC");
    ppp.input("x").preprocess().convert_element_type(element::f32).mean(mean).scale(58.4f);
    ppp.input("x").model().set_layout("NCHW");
    Core core = make_core();
    InferRequest request = compile(core, ppp.build(), GetParam()).create_infer_request();
    std::vector<uint8_t> pixels = {255, 0, 10, 20,  128, 64,
                                   1,   2, 3,  200, 100, 50};  // 2x2 RGB, NHWC
    request.set_tensor("x", Tensor(element::u8, Shape{1, 2, 2, 3}, pixels.data()));
    request.infer();
    std::vector<float> expected;  // NCHW, then the model's * 2
    for (size_t c = 0; c < 3; ++c)
        for (size_t hw = 0; hw < 4; ++hw)
            expected.push_back(2.f * ((pixels[hw * 3 + c] - mean[c]) / 58.4f));
    const auto actual = to_vector(request.get_tensor("y"));
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_NEAR(actual[i], expected[i], 1e-5) << "element " << i;
}

TEST_P(PreprocessInfer, NearestResizeWithReversedChannels) {
    const size_t h = 4, w = 4;
    PrePostProcessor ppp(image_model());
    ppp.input()
        .tensor()
        .set_element_type(element::u8)
        .set_layout("NHWC")
        .set_spatial_static_shape(h, w);
    ppp.input().preprocess().convert_element_type().reverse_channels().resize(
        ResizeAlgorithm::kNearest);
    ppp.input().model().set_layout("NCHW");
    Core core = make_core();
    InferRequest request = compile(core, ppp.build(), GetParam()).create_infer_request();
    const auto pixels = image_pixels(h, w);
    request.set_tensor("x", make_tensor<uint8_t>(element::u8, {1, h, w, 3}, pixels));
    request.infer();
    std::vector<float> expected;  // source pixel floor(o * 2), channel 2 - c
    for (size_t c = 0; c < 3; ++c)
        for (size_t oy = 0; oy < 2; ++oy)
            for (size_t ox = 0; ox < 2; ++ox)
                expected.push_back(2.f * pixels[((oy * 2) * w + ox * 2) * 3 + (2 - c)]);
    EXPECT_EQ(to_vector(request.get_tensor("y")), expected);
}

TEST_P(PreprocessInfer, OutputConvertedToU8InNhwc) {
    PrePostProcessor ppp(image_model());
    ppp.output().model().set_layout("NCHW");
    ppp.output().tensor().set_element_type(element::u8).set_layout("NHWC");
    Core core = make_core();
    InferRequest request = compile(core, ppp.build(), GetParam()).create_infer_request();
    std::vector<float> x(12);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) + 0.25f;
    request.set_tensor("x", make_tensor<float>(element::f32, {1, 3, 2, 2}, x));
    request.infer();
    const Tensor y = request.get_tensor("y");
    ASSERT_EQ(y.get_element_type(), element::u8);
    ASSERT_EQ(y.get_shape(), Shape({1, 2, 2, 3}));
    const uint8_t* p = y.data<uint8_t>();
    for (size_t hw = 0; hw < 4; ++hw)
        for (size_t c = 0; c < 3; ++c)  // 2 * x truncated toward zero
            EXPECT_EQ(p[hw * 3 + c], static_cast<uint8_t>(2.f * x[c * 4 + hw]))
                << "hw " << hw << " c " << c;
}

TEST_P(PreprocessInfer, F32TensorsAroundAnF16Model) {
    PrePostProcessor ppp(image_model(element::f16));
    ppp.input().tensor().set_element_type(element::f32);
    ppp.output().tensor().set_element_type(element::f32);
    Core core = make_core();
    InferRequest request = compile(core, ppp.build(), GetParam()).create_infer_request();
    const std::vector<float> x = {0.5f, -1.25f, 3.f,  100.f, 0.1f, 7.f,
                                  -8.f, 9.5f,   10.f, 11.f,  12.f, 1000.f};
    request.set_tensor("x", make_tensor<float>(element::f32, {1, 3, 2, 2}, x));
    request.infer();
    const auto y = to_vector(request.get_tensor("y"));
    for (size_t i = 0; i < x.size(); ++i)  // through f16: x rounded to f16, doubled exactly
        EXPECT_EQ(y[i], 2.f * static_cast<float>(float16(x[i]))) << "element " << i;
}

TEST_P(PreprocessInfer, PortsOfTheOriginalModelFindTheNewInputsAndOutputs) {
    auto model = image_model();
    PrePostProcessor ppp(model);
    ppp.input().tensor().set_element_type(element::u8);
    ppp.output().tensor().set_element_type(element::f16);
    Core core = make_core();
    CompiledModel compiled = compile(core, ppp.build(), GetParam());
    InferRequest request = compiled.create_infer_request();
    std::vector<uint8_t> x = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 255};
    request.set_tensor(model->input(), Tensor(element::u8, Shape{1, 3, 2, 2}, x.data()));
    request.infer();
    const Tensor y = request.get_tensor(model->output());
    ASSERT_EQ(y.get_element_type(), element::f16);
    EXPECT_EQ(request.get_tensor("y").data(), y.data());
    for (size_t i = 0; i < x.size(); ++i)
        EXPECT_EQ(static_cast<float>(y.data<float16>()[i]), 2.f * x[i]) << "element " << i;
}

TEST_P(PreprocessInfer, TypeMismatchWithoutPreprocessingStaysAnError) {
    Core core = make_core();
    InferRequest request = compile(core, image_model(), GetParam()).create_infer_request();
    const Tensor u8(element::u8, {1, 3, 2, 2});
    try {
        request.set_tensor("x", u8);
        FAIL() << "no error";
    } catch (const InvalidArgument& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("input 'x'"), std::string::npos) << message;
        EXPECT_NE(message.find("expected f32, got u8"), std::string::npos) << message;
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, PreprocessInfer, ::testing::ValuesIn(devices()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace vireo::preprocess_test
