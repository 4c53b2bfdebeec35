// Tests ROIAlign-9 on a 4x4 plane holding v(y, x) = 4y + x (bilinear sampling of a linear plane is
// exact, so a bin's average is v at the mean sample position): avg and max, fixed and adaptive
// sampling, asymmetric and half_pixel_for_nn coordinates, batch indices.
#include <cmath>
#include <limits>

#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

std::vector<double> plane(size_t batches) {
    std::vector<double> v;
    for (size_t b = 0; b < batches; ++b)
        for (size_t i = 0; i < 16; ++i)
            v.push_back(static_cast<double>(i) + 100.0 * static_cast<double>(b));
    return v;
}

Tensor roi_align(const Tensor& data, const std::vector<double>& rois, const Ints& batch,
                 Attrs attrs) {
    const auto r = make_tensor(element::f32, {batch.size(), 4}, rois);
    const auto b = make_tensor(element::i32, {batch.size()}, batch);
    auto node = make_node("ROIAlign",
                          {param(element::f32, data.get_shape()),
                           param(element::f32, r.get_shape()), param(element::i32, b.get_shape())},
                          std::move(attrs));
    return run(node, {data, r, b})[0];
}

Attrs attrs(const std::string& mode, int64_t ratio, const std::string& aligned = "asymmetric") {
    return {{"pooled_h", int64_t{2}}, {"pooled_w", int64_t{2}}, {"sampling_ratio", ratio},
            {"spatial_scale", 1.0},   {"mode", mode},           {"aligned_mode", aligned}};
}

TEST(RoiAlignKernel, AverageAndMaxOfTwoByTwoSamples) {
    const auto data = make_tensor(element::f32, {1, 1, 4, 4}, plane(1));
    // roi [0, 0, 2, 2]: bins of 1, samples at 0.25 and 0.75 of each bin.
    const auto avg = roi_align(data, {0, 0, 2, 2}, {0}, attrs("avg", 2));
    EXPECT_EQ(avg.get_shape(), (Shape{1, 1, 2, 2}));
    expect_near(values_of(avg), {2.5, 3.5, 6.5, 7.5}, 1e-6);
    // max: the sample at (0.75, 0.75) of each bin.
    expect_near(values_of(roi_align(data, {0, 0, 2, 2}, {0}, attrs("max", 2))),
                {3.75, 4.75, 7.75, 8.75}, 1e-6);
}

TEST(RoiAlignKernel, AdaptiveSamplingAndHalfPixelForNn) {
    const auto data = make_tensor(element::f32, {1, 1, 4, 4}, plane(1));
    // roi [0, 0, 3, 3], sampling 0: bins of 1.5, ceil(1.5) = 2 samples at 0.375, 1.125
    // | 1.875, 2.625.
    expect_near(values_of(roi_align(data, {0, 0, 3, 3}, {0}, attrs("avg", 0))),
                {3.75, 5.25, 9.75, 11.25}, 1e-6);
    // half_pixel_for_nn shifts by -0.5: roi [0, 0, 2, 2] spans [-0.5, 1.5]; samples -0.25 (clamped
    // to 0), 0.25 | 0.75, 1.25: means 0.125 and 1.0.
    expect_near(values_of(roi_align(data, {0, 0, 2, 2}, {0}, attrs("avg", 2, "half_pixel_for_nn"))),
                {4 * 0.125 + 0.125, 4 * 0.125 + 1.0, 4 * 1.0 + 0.125, 4 * 1.0 + 1.0}, 1e-6);
}

TEST(RoiAlignKernel, BatchIndicesPickThePlaneAndAreChecked) {
    const auto data = make_tensor(element::f32, {2, 1, 4, 4}, plane(2));
    const auto out = roi_align(data, {0, 0, 2, 2, 0, 0, 2, 2}, {1, 0}, attrs("avg", 2));
    EXPECT_EQ(out.get_shape(), (Shape{2, 1, 2, 2}));
    expect_near(values_of(out), {102.5, 103.5, 106.5, 107.5, 2.5, 3.5, 6.5, 7.5}, 1e-6);
    try {
        roi_align(data, {0, 0, 2, 2}, {2}, attrs("avg", 2));
        ADD_FAILURE() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("ROIAlign"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("batch index 2"), std::string::npos) << e.what();
    }
}

TEST(RoiAlignKernel, ChannelsShareTheSamplesAndOutsideSamplesAreZero) {
    // Three channels: v, 10 v and v with +inf at (0, 0). The samples are computed once per roi
    // and applied to each channel, so channel 1 is exactly 10x channel 0; a roi entirely beyond
    // the plane ([-5, -5, -3, -3]: every sample below -1) gives 0 in every channel, the infinite
    // element included (a sample outside is 0, not 0 * inf).
    std::vector<double> v = plane(1), values;
    for (int c = 0; c < 3; ++c)
        for (double x : v) values.push_back(c == 1 ? 10 * x : x);
    values[32] = std::numeric_limits<double>::infinity();
    const auto data = make_tensor(element::f32, {1, 3, 4, 4}, values);
    const auto out = roi_align(data, {0, 0, 2, 2, -5, -5, -3, -3}, {0, 0}, attrs("avg", 2));
    ASSERT_EQ(out.get_shape(), (Shape{2, 3, 2, 2}));
    const auto got = values_of(out);
    const std::vector<double> first{2.5, 3.5, 6.5, 7.5};
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_NEAR(got[i], first[i], 1e-6);
        EXPECT_NEAR(got[4 + i], 10 * first[i], 1e-5);
    }
    EXPECT_TRUE(std::isinf(got[8]));  // channel 2's first bin reads the infinite element
    for (size_t i = 12; i < 24; ++i) EXPECT_EQ(got[i], 0.0) << "element " << i;
}

TEST(RoiAlignKernel, EmptyPlaneGivesZeros) {
    // Rows y in [-1, 0] count as inside a plane's first row; a plane without rows has none, so
    // these samples read nothing (they once read past the end of the data).
    const auto data = make_tensor(element::f32, {1, 2, 0, 4}, std::vector<double>{});
    const auto out = roi_align(data, {0, -1, 2, 0}, {0}, attrs("max", 2));
    ASSERT_EQ(out.get_shape(), (Shape{1, 2, 2, 2}));
    for (double x : values_of(out)) EXPECT_EQ(x, 0.0);
}

TEST(RoiAlignKernel, HostileRoisAreRefusedOrSampleNothing) {
    const auto data = make_tensor(element::f32, {1, 1, 4, 4}, plane(1));
    // Adaptive sampling of an infinite box would need infinitely many samples: refused by name.
    try {
        roi_align(data, {0, 0, std::numeric_limits<double>::infinity(), 2}, {0}, attrs("avg", 0));
        ADD_FAILURE() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("roi 0"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("samples per bin along x"), std::string::npos)
            << e.what();
    }
    // NaN corners: every sample is outside the plane, so the bins are 0.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (double x : values_of(roi_align(data, {nan, 0, 2, nan}, {0}, attrs("avg", 2))))
        EXPECT_EQ(x, 0.0);
    // A huge box with a fixed sampling ratio is sampled (outside the plane: 0), not refused.
    for (double x : values_of(roi_align(data, {1e30, 1e30, 2e30, 2e30}, {0}, attrs("max", 2))))
        EXPECT_EQ(x, 0.0);
}

}  // namespace
}  // namespace vireo::test
