// Tests Interpolate-4 and -11: nearest (modes and coordinate transforms), linear_onnx, linear
// (with antialias), cubic, pads, axes subsets, scales vs sizes, on small hand-computed inputs.
#include <cmath>

#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

struct InterpCase {
    std::string mode;
    std::string transform = "half_pixel";
    std::string nearest = "round_prefer_floor";
    bool antialias = false;
    double cube_coeff = -0.75;
    Ints pads_begin = {0}, pads_end = {0};
};

Attrs interp_attrs(const InterpCase& c, const std::string& shape_mode) {
    return {{"mode", c.mode},
            {"shape_calculation_mode", shape_mode},
            {"coordinate_transformation_mode", c.transform},
            {"nearest_mode", c.nearest},
            {"antialias", c.antialias},
            {"cube_coeff", c.cube_coeff},
            {"pads_begin", c.pads_begin},
            {"pads_end", c.pads_end}};
}

// Interpolate-11 in sizes mode over the given axes.
Tensor resize(const Tensor& x, const InterpCase& c, const std::vector<int64_t>& sizes,
              const std::vector<int64_t>& axes) {
    const auto s = make_tensor(element::i64, {sizes.size()}, sizes);
    const auto a = make_tensor(element::i64, {axes.size()}, axes);
    auto node = make_node("Interpolate",
                          {param(x.get_element_type(), x.get_shape()), constant(s), constant(a)},
                          interp_attrs(c, "sizes"), 11);
    return run(node, {x, s, a})[0];
}

TEST(InterpolateKernel, NearestUpscaleRepeatsPixels) {
    const auto x = make_tensor(element::f32, {1, 1, 2, 2}, std::vector<float>{1, 2, 3, 4});
    const auto out = resize(x, {"nearest", "asymmetric", "floor"}, {4, 4}, {2, 3});
    EXPECT_EQ(out.get_shape(), (Shape{1, 1, 4, 4}));
    EXPECT_EQ(values_of(out),
              (std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(InterpolateKernel, NearestModesAndTransformsIn1d) {
    // 4 -> 3 along the last axis of [1, 4]; scale 0.75.
    const auto x = make_tensor(element::i32, {1, 4}, std::vector<int>{10, 20, 30, 40});
    // half_pixel: x_orig = (j + 0.5) / 0.75 - 0.5 = 0.1667, 1.5, 2.8333
    EXPECT_EQ(values_of(resize(x, {"nearest", "half_pixel", "round_prefer_floor"}, {3}, {1})),
              (std::vector<double>{10, 20, 40}));
    EXPECT_EQ(values_of(resize(x, {"nearest", "half_pixel", "round_prefer_ceil"}, {3}, {1})),
              (std::vector<double>{10, 30, 40}));
    EXPECT_EQ(values_of(resize(x, {"nearest", "half_pixel", "floor"}, {3}, {1})),
              (std::vector<double>{10, 20, 30}));
    EXPECT_EQ(values_of(resize(x, {"nearest", "half_pixel", "ceil"}, {3}, {1})),
              (std::vector<double>{20, 30, 40}));
    // asymmetric: x_orig = j / 0.75 = 0, 1.333, 2.667; simple on a downscale takes the ceiling.
    EXPECT_EQ(values_of(resize(x, {"nearest", "asymmetric", "simple"}, {3}, {1})),
              (std::vector<double>{10, 30, 40}));
    // align_corners: x_orig = j * 3 / 2 = 0, 1.5, 3
    EXPECT_EQ(values_of(resize(x, {"nearest", "align_corners", "round_prefer_floor"}, {3}, {1})),
              (std::vector<double>{10, 20, 40}));
    // tf_half_pixel_for_nn: x_orig = (j + 0.5) / 0.75 = 0.667, 2, 3.333
    EXPECT_EQ(values_of(resize(x, {"nearest", "tf_half_pixel_for_nn", "floor"}, {3}, {1})),
              (std::vector<double>{10, 30, 40}));
}

TEST(InterpolateKernel, LinearOnnxHalfPixelUpscale) {
    // Rows [1, 2] and [3, 4] to 4x4: per axis the coordinates are clamp(-0.25, 0.25, 0.75, 1.25)
    // = 0, 0.25, 0.75, 1, so a row [a, b] becomes [a, a + (b-a)/4, a + 3(b-a)/4, b].
    const auto x = make_tensor(element::f32, {1, 1, 2, 2}, std::vector<float>{1, 2, 3, 4});
    const auto out = resize(x, {"linear_onnx"}, {4, 4}, {2, 3});
    const std::vector<double> row_t{0, 0.25, 0.75, 1};
    std::vector<double> expected;
    for (double ty : row_t)
        for (double tx : row_t) expected.push_back(1 + tx * 1 + ty * 2);
    expect_near(values_of(out), expected, 1e-6, "linear_onnx");
    // linear without antialias is the same filter on an upscale.
    expect_near(values_of(resize(x, {"linear"}, {4, 4}, {2, 3})), expected, 1e-6, "linear");
}

TEST(InterpolateKernel, LinearOnnxAlignCorners) {
    const auto x = make_tensor(element::f64, {3}, std::vector<double>{1, 2, 4});
    EXPECT_EQ(values_of(resize(x, {"linear_onnx", "align_corners"}, {5}, {0})),
              (std::vector<double>{1, 1.5, 2, 3, 4}));
}

TEST(InterpolateKernel, LinearAntialiasDownscale) {
    // 8 -> 4 with a triangle twice as wide; first output: taps 0, 1, 2 weighted .375, .375, .125
    // (tap -1 is outside and dropped), renormalised; second: taps 1..4 weighted 1:3:3:1 / 8.
    std::vector<float> v{1, 2, 3, 4, 5, 6, 7, 8};
    const auto x = make_tensor(element::f32, {1, 8}, v);
    InterpCase c{"linear"};
    c.antialias = true;
    const auto out = values_of(resize(x, c, {4}, {1}));
    ASSERT_EQ(out.size(), 4u);
    EXPECT_NEAR(out[0], (0.375 * 1 + 0.375 * 2 + 0.125 * 3) / 0.875, 1e-6);
    EXPECT_NEAR(out[1], (1 * 2 + 3 * 3 + 3 * 4 + 1 * 5) / 8.0, 1e-6);
    EXPECT_NEAR(out[2], (1 * 4 + 3 * 5 + 3 * 6 + 1 * 7) / 8.0, 1e-6);
    EXPECT_NEAR(out[3], (0.125 * 6 + 0.375 * 7 + 0.375 * 8) / 0.875, 1e-6);
}

// Keys cubic weights for fraction t, coefficient a, for taps -1, 0, 1, 2.
std::vector<double> keys(double t, double a) {
    auto w = [a](double s) {
        s = std::fabs(s);
        if (s <= 1) return ((a + 2) * s - (a + 3)) * s * s + 1;
        if (s < 2) return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
        return 0.0;
    };
    return {w(t + 1), w(t), w(1 - t), w(2 - t)};
}

TEST(InterpolateKernel, CubicMatchesKeysWeights) {
    const std::vector<double> v{1, 4, 2, 8, 5};
    const auto x = make_tensor(element::f32, {1, 5}, v);
    const auto out = values_of(resize(x, {"cubic", "asymmetric"}, {8}, {1}));
    ASSERT_EQ(out.size(), 8u);
    for (size_t j = 0; j < 8; ++j) {
        const double xo = static_cast<double>(j) * 5.0 / 8.0;
        const auto x0 = static_cast<int64_t>(std::floor(xo));
        const auto w = keys(xo - static_cast<double>(x0), -0.75);
        double expected = 0;
        for (int64_t i = 0; i < 4; ++i) expected += w[i] * v[std::clamp<int64_t>(x0 - 1 + i, 0, 4)];
        EXPECT_NEAR(out[j], expected, 1e-5) << "output " << j;
    }
}

TEST(InterpolateKernel, ScalesModeV4WithAxesAndPads) {
    // Interpolate-4: data, sizes (ignored in scales mode), scales, axes. Pads add a zero column
    // before the data on the last axis; nearest with scale 2 over the padded width 3.
    const auto x = make_tensor(element::f32, {1, 2}, std::vector<float>{5, 7});
    const auto sizes = make_tensor(element::i64, {1}, std::vector<int64_t>{1});
    const auto scales = make_tensor(element::f32, {1}, std::vector<float>{2.0f});
    const auto axes = make_tensor(element::i64, {1}, std::vector<int64_t>{1});
    InterpCase c{"nearest", "asymmetric", "floor"};
    c.pads_begin = {0, 1};
    c.pads_end = {0, 0};
    auto node =
        make_node("Interpolate",
                  {param(element::f32, {1, 2}), constant(sizes), constant(scales), constant(axes)},
                  interp_attrs(c, "scales"), 4);
    const auto out = run(node, {x, sizes, scales, axes})[0];
    EXPECT_EQ(out.get_shape(), (Shape{1, 6}));
    EXPECT_EQ(values_of(out), (std::vector<double>{0, 0, 5, 5, 7, 7}));
}

// Interpolate-11 in scales mode over axes 2 and 3.
Tensor rescale(const Tensor& x, const InterpCase& c, const std::vector<float>& scales) {
    const auto s = make_tensor(element::f32, {scales.size()}, scales);
    const auto a = make_tensor(element::i64, {2}, std::vector<int64_t>{2, 3});
    auto node = make_node("Interpolate",
                          {param(x.get_element_type(), x.get_shape()), constant(s), constant(a)},
                          interp_attrs(c, "scales"), 11);
    return run(node, {x, s, a})[0];
}

TEST(InterpolateKernel, AlignCornersWithScalesUsesTheFractionalResizedLength) {
    // ONNX: with a scale, length_resized = scale * length (a fraction), and align_corners maps
    // x to x * (length - 1) / (length_resized - 1). [2, 4] by 0.6: output [1, 2]; along the width
    // x = 1 maps to 1 * 3 / (2.4 - 1) = 2.142857, so row [1, 2, 3, 4] gives 3.142857 (the integer
    // output length would map it to 3 and give 4).
    std::vector<float> v{1, 2, 3, 4, 5, 6, 7, 8};
    const auto x = make_tensor(element::f32, {1, 1, 2, 4}, v);
    const auto linear = rescale(x, {"linear_onnx", "align_corners"}, {0.6f, 0.6f});
    ASSERT_EQ(linear.get_shape(), (Shape{1, 1, 1, 2}));
    expect_near(values_of(linear), {1.0, 1.0 + 3.0 / 1.4}, 1e-5, "linear");
    // Cubic, [4, 4] of 1..16 by 0.8 (x -> x * 3 / 2.2): ONNX's own expected output for
    // test_resize_downsample_scales_cubic_align_corners.
    std::vector<float> w(16);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i + 1);
    const auto cubic = rescale(make_tensor(element::f32, {1, 1, 4, 4}, w),
                               {"cubic", "align_corners"}, {0.8f, 0.8f});
    ASSERT_EQ(cubic.get_shape(), (Shape{1, 1, 3, 3}));
    expect_near(
        values_of(cubic),
        {1.0, 2.3951917, 3.790383, 6.580766, 7.975958, 9.371149, 12.161532, 13.556724, 14.951916},
        1e-4, "cubic");
    // In sizes mode the resized length is the output's: 4 -> 2 maps x = 1 to 3.
    expect_near(values_of(resize(make_tensor(element::f32, {1, 4}, std::vector<float>{1, 2, 3, 4}),
                                 {"linear_onnx", "align_corners"}, {2}, {1})),
                {1.0, 4.0}, 1e-6, "sizes");
}

TEST(InterpolateKernel, NearestPicksThePixelOfTheCoordinateInF32) {
    // PyTorch's F.interpolate(scale_factor=0.6, mode="nearest") exports as Resize with the f32
    // scale 0.6000000238, asymmetric, floor. Output j reads floor(j / scale): 3 / 0.6 is 5 in f32
    // (ONNX Runtime, PyTorch) but 4.99999998 in double, which picked pixel 4.
    std::vector<float> v(10);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
    const auto x = make_tensor(element::f32, {1, 1, 1, 10}, v);
    const auto out = rescale(x, {"nearest", "asymmetric", "floor"}, {1.0f, 0.6f});
    ASSERT_EQ(out.get_shape(), (Shape{1, 1, 1, 6}));
    EXPECT_EQ(values_of(out), (std::vector<double>{0, 1, 3, 5, 6, 8}));
    // 1.7: 17 / 1.7 is 10 in f32 (9.99999994 in double).
    std::vector<float> w(20);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i);
    const auto up = rescale(make_tensor(element::f32, {1, 1, 1, 20}, w),
                            {"nearest", "asymmetric", "floor"}, {1.0f, 1.7f});
    ASSERT_EQ(up.get_shape(), (Shape{1, 1, 1, 34}));
    EXPECT_EQ(values_of(up)[17], 10.0);
}

TEST(InterpolateKernel, IntegerLinearRoundsAndBatchAxesAreUntouched) {
    const auto x = make_tensor(element::u8, {2, 1, 2}, std::vector<int>{0, 3, 10, 20});
    // align_corners 2 -> 3: middle is the mean, 1.5 -> 2 and 15.
    EXPECT_EQ(values_of(resize(x, {"linear_onnx", "align_corners"}, {3}, {2})),
              (std::vector<double>{0, 2, 3, 10, 15, 20}));
}

}  // namespace
}  // namespace vireo::test
