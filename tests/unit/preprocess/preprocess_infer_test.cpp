// Runs models built by PrePostProcessor on TEMPLATE and MOCK_REMOTE and compares the outputs with
// plain loops in the test: u8 NHWC images through convert, mean/scale, resize (linear, nearest),
// reverse_channels and the layout change; f32 <-> f16; outputs converted back; and every resize
// algorithm against pixels from the library it follows (Pillow, OpenCV's cubic).
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

// The resize algorithms against pixels computed elsewhere: a 5x7 single-channel image, values
// (i * 37 + 11) % 251 in row-major order, resized to 3x4 (down) and 8x9 (up).
// Pillow columns: Pillow 9.4.0 (Debian 12's python3-pil), Image.fromarray(image, mode) .resize(
// (width, height), Image.BILINEAR / Image.BICUBIC), mode "F" (float) or "L" (8-bit).
// Cubic: Keys' convolution (a = -0.75) with half-pixel centres and replicated borders, computed
// with numpy in double precision (OpenCV's INTER_CUBIC).
struct ResizeCase {
    const char* name;
    ResizeAlgorithm algorithm;
    element::Type type;  // of the user's image; the resize runs in it, then converts to f32
    size_t height, width;
    std::vector<float> expected;
    float tolerance;
};

std::vector<ResizeCase> resize_cases() {
    return {
        {"bilinear_pillow_down",
         ResizeAlgorithm::kBilinearPillow,
         element::f32,
         3,
         4,
         {33.80952f, 91.38857f, 159.46857f, 217.04762f, 46.38095f, 103.96000f, 172.03999f,
          200.40211f, 58.95238f, 116.53143f, 184.61142f, 110.71429f},
         2e-3f},
        {"bilinear_pillow_up",
         ResizeAlgorithm::kBilinearPillow,
         element::f32,
         8,
         9,
         {11.00000f,  35.66667f,  64.44444f,  93.22222f,  122.00000f, 150.77777f, 179.55556f,
          208.33333f, 233.00000f, 14.50000f,  39.16667f,  67.94444f,  96.72222f,  125.50000f,
          154.27777f, 183.05556f, 211.83333f, 236.50000f, 19.50000f,  44.16667f,  72.94444f,
          101.72222f, 130.50000f, 159.27777f, 188.05556f, 216.83333f, 241.50000f, 24.50000f,
          49.16667f,  77.94444f,  106.72222f, 135.50000f, 164.27777f, 193.05556f, 221.83333f,
          246.50000f, 29.50000f,  54.16667f,  82.94444f,  111.72222f, 140.50000f, 169.27777f,
          198.05556f, 200.68750f, 173.06250f, 34.50000f,  59.16667f,  87.94444f,  116.72222f,
          145.50000f, 174.27777f, 203.05556f, 153.39584f, 21.18750f,  39.50000f,  64.16666f,
          92.94444f,  121.72222f, 150.50000f, 179.27777f, 208.05556f, 153.16667f, 10.50000f,
          43.00000f,  67.66666f,  96.44444f,  125.22222f, 154.00000f, 182.77777f, 211.55556f,
          156.66667f, 14.00000f},
         2e-3f},
        {"bicubic_pillow_down",
         ResizeAlgorithm::kBicubicPillow,
         element::f32,
         3,
         4,
         {28.62581f, 90.84584f, 158.52835f, 225.29385f, 41.79504f, 104.01507f, 173.93965f,
          205.23981f, 54.96428f, 117.18430f, 194.78070f, 104.72703f},
         2e-3f},
        {"bicubic_pillow_up",
         ResizeAlgorithm::kBicubicPillow,
         element::f32,
         8,
         9,
         {8.67288f,   32.88864f,  63.86880f,  92.64658f,  121.42435f, 150.20212f, 178.97990f,
          209.96007f, 234.17583f, 12.00409f,  36.21985f,  67.20001f,  95.97779f,  124.75557f,
          153.53334f, 182.31113f, 213.29129f, 237.50705f, 17.74852f,  41.96429f,  72.94444f,
          101.72222f, 130.50000f, 159.27777f, 188.02403f, 219.18344f, 243.73283f, 22.74852f,
          46.96429f,  77.94444f,  106.72222f, 135.50000f, 164.27777f, 191.78416f, 229.99403f,
          267.66595f, 27.74852f,  51.96429f,  82.94444f,  111.72222f, 140.50000f, 169.27777f,
          202.74187f, 207.07365f, 181.69067f, 32.74852f,  56.96429f,  87.94444f,  116.72222f,
          145.50000f, 174.27777f, 219.63628f, 156.33138f, 5.06102f,   38.49295f,  62.70872f,
          93.68887f,  122.46665f, 151.24443f, 180.02220f, 226.88211f, 155.03957f, -12.12136f,
          41.82417f,  66.03993f,  97.02009f,  125.79787f, 154.57565f, 183.35342f, 229.34657f,
          162.43280f, 4.44547f},
         2e-3f},
        // 8-bit: each pass rounds and clips (the 255 and the 0 are the f32 run's 267.7 and
        // -12.1, and the 9 next to the 0 is what clipping the first pass makes of 5.06).
        {"bicubic_pillow_u8_up",
         ResizeAlgorithm::kBicubicPillow,
         element::u8,
         8,
         9,
         {8,  32, 63, 92,  121, 150, 179, 210, 234, 12, 36, 67, 96,  125, 154, 183, 214, 238,
          18, 42, 73, 102, 131, 160, 188, 220, 244, 23, 47, 78, 107, 136, 165, 192, 230, 255,
          28, 52, 83, 112, 141, 170, 203, 207, 183, 33, 57, 88, 117, 146, 175, 220, 156, 9,
          38, 62, 93, 122, 151, 180, 227, 155, 0,   42, 66, 97, 126, 155, 184, 230, 163, 4},
         0.f},
        {"bicubic_pillow_u8_down",
         ResizeAlgorithm::kBicubicPillow,
         element::u8,
         3,
         4,
         {29, 91, 159, 225, 42, 104, 174, 205, 55, 117, 194, 105},
         0.f},
        {"cubic_down",
         ResizeAlgorithm::kCubic,
         element::f32,
         3,
         4,
         {23.96812f, 93.21665f, 154.93150f, 224.18003f, 37.89404f, 107.14258f, 168.85742f,
          238.10596f, 51.81997f, 121.06850f, 182.78335f, 82.56058f},
         2e-3f},
    };
}

class PreprocessResize : public ::testing::TestWithParam<std::tuple<std::string, ResizeCase>> {};

TEST_P(PreprocessResize, GivesThePixelsOfTheLibraryItFollows) {
    const auto& [device, c] = GetParam();
    const size_t h = 5, w = 7;
    auto x = op::parameter(
        element::f32,
        PartialShape({1, 1, static_cast<int64_t>(c.height), static_cast<int64_t>(c.width)}), "x");
    auto y = op::multiply(x, op::constant<float>(element::f32, {1}, {1.f}));
    y->output(0).set_names({"y"});
    PrePostProcessor ppp(std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "resize"));
    ppp.input().tensor().set_element_type(c.type).set_layout("NCHW").set_spatial_static_shape(h, w);
    ppp.input().preprocess().resize(c.algorithm).convert_element_type(element::f32);
    ppp.input().model().set_layout("NCHW");
    Core core = make_core();
    InferRequest request = compile(core, ppp.build(), device).create_infer_request();
    std::vector<float> image(h * w);
    for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<float>((i * 37 + 11) % 251);
    if (c.type == element::u8) {
        request.set_tensor("x",
                           make_tensor<uint8_t>(element::u8, {1, 1, h, w},
                                                std::vector<uint8_t>(image.begin(), image.end())));
    } else {
        request.set_tensor("x", make_tensor<float>(element::f32, {1, 1, h, w}, image));
    }
    request.infer();
    const auto actual = to_vector(request.get_tensor("y"));
    ASSERT_EQ(actual.size(), c.expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
        EXPECT_NEAR(actual[i], c.expected[i], c.tolerance) << "element " << i;
}

std::vector<std::string> resize_devices() {
    auto list = devices();
#ifdef VIREO_TEST_CPU
    list.push_back("CPU");
#endif
    return list;
}

INSTANTIATE_TEST_SUITE_P(Algorithms, PreprocessResize,
                         ::testing::Combine(::testing::ValuesIn(resize_devices()),
                                            ::testing::ValuesIn(resize_cases())),
                         [](const auto& info) {
                             return std::get<0>(info.param) + "_" + std::get<1>(info.param).name;
                         });

INSTANTIATE_TEST_SUITE_P(Devices, PreprocessInfer, ::testing::ValuesIn(devices()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace vireo::preprocess_test
