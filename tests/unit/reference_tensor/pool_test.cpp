// Tests MaxPool-1, MaxPool-8 (indices, axis, dilations) and AvgPool-1 (exclude-pad) on
// hand-computed examples and against plain loops with pads, strides, ceil rounding and auto_pad.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

Attrs pool_attrs(Ints kernel, Ints strides, Ints pads_begin, Ints pads_end,
                 const std::string& rounding = "floor", const std::string& auto_pad = "explicit") {
    return {{"kernel", kernel},     {"strides", strides},        {"pads_begin", pads_begin},
            {"pads_end", pads_end}, {"rounding_type", rounding}, {"auto_pad", auto_pad}};
}

TEST(MaxPoolKernel, TwoByTwoStrideTwo) {
    // 4x4 input 0..15: each 2x2 block's maximum is its bottom-right element.
    std::vector<float> x(16);
    for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i);
    const auto xt = make_tensor(element::f32, {1, 1, 4, 4}, x);
    auto node = make_node("MaxPool", {param(element::f32, {1, 1, 4, 4})},
                          pool_attrs({2, 2}, {2, 2}, {0, 0}, {0, 0}), 1);
    const auto out = run(node, {xt});
    EXPECT_EQ(out[0].get_shape(), (Shape{1, 1, 2, 2}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{5, 7, 13, 15}));
}

TEST(MaxPoolKernel, PaddingIsNeverTheMaximum) {
    // All-negative input with padding 1: padded positions must not win with 0.
    const auto xt = make_tensor(element::f32, {1, 1, 2, 2}, std::vector<float>{-4, -3, -2, -1});
    auto node = make_node("MaxPool", {param(element::f32, {1, 1, 2, 2})},
                          pool_attrs({2, 2}, {1, 1}, {1, 1}, {1, 1}), 1);
    const auto out = run(node, {xt});
    EXPECT_EQ(out[0].get_shape(), (Shape{1, 1, 3, 3}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{-4, -3, -3, -2, -1, -1, -2, -1, -1}));
}

TEST(MaxPoolKernel, CeilRoundingAddsAPartialWindow) {
    // 1-D, 5 elements, kernel 2 stride 2: floor gives 2 outputs, ceil 3 (the last sees one
    // element).
    const auto xt = make_tensor(element::f32, {1, 1, 5}, std::vector<float>{1, 5, 2, 4, 3});
    auto floor_node =
        make_node("MaxPool", {param(element::f32, {1, 1, 5})}, pool_attrs({2}, {2}, {0}, {0}), 1);
    EXPECT_EQ(values_of(run(floor_node, {xt})[0]), (std::vector<double>{5, 4}));
    auto ceil_node = make_node("MaxPool", {param(element::f32, {1, 1, 5})},
                               pool_attrs({2}, {2}, {0}, {0}, "ceil"), 1);
    EXPECT_EQ(values_of(run(ceil_node, {xt})[0]), (std::vector<double>{5, 4, 3}));
}

TEST(MaxPoolKernel, CeilTorchRoundingRunsTheWindowsItKeeps) {
    // 1-D, 13 elements 0..12, kernel 4 stride 3 pads 2+2: windows start at -2, 1, 4, 7, 10 (a
    // sixth would start at 13, in the end padding, and is dropped). Max of each: 1, 4, 7, 10, 12;
    // averages without the padding: (0+1)/2, (1+2+3+4)/4, ..., (10+11+12)/3.
    std::vector<float> x(13);
    for (int i = 0; i < 13; ++i) x[i] = static_cast<float>(i);
    const auto xt = make_tensor(element::f32, {1, 1, 13}, x);
    Attrs attrs = pool_attrs({4}, {3}, {2}, {2}, "ceil_torch");
    attrs["dilations"] = Ints{1};
    auto max_node = make_node("MaxPool", {param(element::f32, {1, 1, 13})}, attrs, 14);
    const auto out = run(max_node, {xt});
    EXPECT_EQ(out[0].get_shape(), (Shape{1, 1, 5}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{1, 4, 7, 10, 12}));
    EXPECT_EQ(values_of(out[1]), (std::vector<double>{1, 4, 7, 10, 12}));
    Attrs avg = pool_attrs({4}, {3}, {2}, {2}, "ceil_torch");
    avg["exclude-pad"] = true;
    auto avg_node = make_node("AvgPool", {param(element::f32, {1, 1, 13})}, avg, 14);
    EXPECT_EQ(values_of(run(avg_node, {xt})[0]), (std::vector<double>{0.5, 2.5, 5.5, 8.5, 11}));
}

TEST(MaxPoolKernel, IndicesFollowTheAxisAttribute) {
    // Two channels of 2x3; kernel 2x2 stride 1 -> 1x2 outputs per channel.
    const std::vector<float> x{
        1, 9, 2, 3, 4, 8,   // channel 0: windows max 9 (idx 1), 9 (idx 1)
        7, 0, 6, 5, 6, 7};  // channel 1: max 7 (idx 0, first of ties), 7 (idx 5)
    const auto xt = make_tensor(element::f32, {1, 2, 2, 3}, x);
    for (int64_t axis : {0, 2, -2}) {
        SCOPED_TRACE(axis);
        Attrs attrs = pool_attrs({2, 2}, {1, 1}, {0, 0}, {0, 0});
        attrs["dilations"] = Ints{1, 1};
        attrs["index_element_type"] = element::i32;
        attrs["axis"] = axis;
        auto node = make_node("MaxPool", {param(element::f32, {1, 2, 2, 3})}, attrs, 8);
        const auto out = run(node, {xt});
        ASSERT_EQ(out.size(), 2u);
        EXPECT_EQ(values_of(out[0]), (std::vector<double>{9, 9, 7, 7}));
        EXPECT_EQ(out[1].get_element_type(), element::i32);
        // axis 0: flat index in the whole tensor; axis 2: within the channel's plane.
        const std::vector<int64_t> expected =
            axis == 0 ? std::vector<int64_t>{1, 1, 6, 11} : std::vector<int64_t>{1, 1, 0, 5};
        EXPECT_EQ(ints_of(out[1]), expected);
    }
}

TEST(MaxPoolKernel, DilatedWindowAndI64Indices) {
    // 1-D: kernel 2 with dilation 2 compares x[i] and x[i+2].
    const auto xt = make_tensor(element::f32, {1, 1, 6}, std::vector<float>{3, 1, 4, 1, 5, 9});
    Attrs attrs = pool_attrs({2}, {1}, {0}, {0});
    attrs["dilations"] = Ints{2};
    auto node = make_node("MaxPool", {param(element::f32, {1, 1, 6})}, attrs, 8);
    const auto out = run(node, {xt});
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{4, 1, 5, 9}));
    EXPECT_EQ(out[1].get_element_type(), element::i64);
    EXPECT_EQ(ints_of(out[1]), (std::vector<int64_t>{2, 1, 4, 5}));
}

// Plain-loop max pooling over 2-D planes with explicit begin pads (the output size comes from
// the kernel's output tensor).
std::vector<double> reference_max_pool_2d(const std::vector<double>& x, const Shape& xs,
                                          const Shape& ys, Ints k, Ints s, Ints pb) {
    std::vector<double> y(shape_size(ys));
    for (size_t p = 0; p < xs[0] * xs[1]; ++p)
        for (size_t oh = 0; oh < ys[2]; ++oh)
            for (size_t ow = 0; ow < ys[3]; ++ow) {
                double best = -1e300;
                for (int64_t kh = 0; kh < k[0]; ++kh)
                    for (int64_t kw = 0; kw < k[1]; ++kw) {
                        const int64_t ih = static_cast<int64_t>(oh) * s[0] + kh - pb[0];
                        const int64_t iw = static_cast<int64_t>(ow) * s[1] + kw - pb[1];
                        if (ih < 0 || iw < 0 || ih >= static_cast<int64_t>(xs[2]) ||
                            iw >= static_cast<int64_t>(xs[3]))
                            continue;
                        best = std::max(best, x[(p * xs[2] + static_cast<size_t>(ih)) * xs[3] +
                                                static_cast<size_t>(iw)]);
                    }
                y[(p * ys[2] + oh) * ys[3] + ow] = best;
            }
    return y;
}

TEST(MaxPoolKernel, MatchesLoopsForEveryTypeAndAutoPad) {
    const Shape xs{2, 3, 7, 8};
    for (element::Type type : {element::f32, element::f16, element::bf16, element::f64, element::i8,
                               element::u8, element::i32, element::i64}) {
        SCOPED_TRACE(type.name());
        const auto xv = random_values(shape_size(xs), 5, type.is_signed() ? -100 : 0, 100, true);
        const auto xt = make_tensor(type, xs, xv);
        auto node =
            make_node("MaxPool", {param(type, xs)}, pool_attrs({3, 2}, {2, 2}, {1, 0}, {1, 1}), 1);
        const auto out = run(node, {xt});
        ASSERT_EQ(out[0].get_shape(), (Shape{2, 3, 4, 4}));
        EXPECT_EQ(values_of(out[0]),
                  reference_max_pool_2d(xv, xs, out[0].get_shape(), {3, 2}, {2, 2}, {1, 0}));
    }
    // same_upper with stride 2 on 7: output 4, total pad (4-1)*2+3-7 = 2 -> begin 1.
    const auto xv = random_values(shape_size(xs), 6);
    const auto xt = make_tensor(element::f32, xs, xv);
    auto upper = make_node("MaxPool", {param(element::f32, xs)},
                           pool_attrs({3, 3}, {2, 2}, {}, {}, "floor", "same_upper"), 1);
    const auto out = run(upper, {xt});
    ASSERT_EQ(out[0].get_shape(), (Shape{2, 3, 4, 4}));
    // Width 8 -> 4 outputs, total pad (4-1)*2+3-8 = 1 -> begin 0 (upper puts it at the end).
    EXPECT_EQ(values_of(out[0]),
              reference_max_pool_2d(xv, xs, out[0].get_shape(), {3, 3}, {2, 2}, {1, 0}));
    auto lower = make_node("MaxPool", {param(element::f32, xs)},
                           pool_attrs({3, 3}, {2, 2}, {}, {}, "floor", "same_lower"), 1);
    EXPECT_EQ(values_of(run(lower, {xt})[0]),
              reference_max_pool_2d(xv, xs, out[0].get_shape(), {3, 3}, {2, 2}, {1, 1}));
}

TEST(AvgPoolKernel, ExcludePadChangesTheDivisorAtTheBorder) {
    // 2x2 input of ones plus 10s; kernel 2x2, stride 1, pad 1 on every side: 3x3 outputs.
    const auto xt = make_tensor(element::f32, {1, 1, 2, 2}, std::vector<float>{1, 2, 3, 4});
    Attrs attrs = pool_attrs({2, 2}, {1, 1}, {1, 1}, {1, 1});
    attrs["exclude-pad"] = true;
    auto exclude = make_node("AvgPool", {param(element::f32, {1, 1, 2, 2})}, attrs);
    // Corners see one element, edges two, the centre four.
    EXPECT_EQ(values_of(run(exclude, {xt})[0]),
              (std::vector<double>{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}));
    attrs["exclude-pad"] = false;
    auto include = make_node("AvgPool", {param(element::f32, {1, 1, 2, 2})}, attrs);
    // Every window divides by 4.
    EXPECT_EQ(values_of(run(include, {xt})[0]),
              (std::vector<double>{0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1}));
}

TEST(AvgPoolKernel, CeilModeWithoutPadsCountsOnlyTheInput) {
    // 1-D, 5 elements, kernel 2 stride 2 ceil: the last window holds one element.
    const auto xt = make_tensor(element::f32, {1, 1, 5}, std::vector<float>{1, 3, 5, 7, 9});
    Attrs attrs = pool_attrs({2}, {2}, {0}, {0}, "ceil");
    attrs["exclude-pad"] = false;
    auto node = make_node("AvgPool", {param(element::f32, {1, 1, 5})}, attrs);
    EXPECT_EQ(values_of(run(node, {xt})[0]), (std::vector<double>{2, 6, 9}));
}

TEST(AvgPoolKernel, IntegerTypesAndThreeSpatialAxes) {
    // i32 truncates, u8 rounds to nearest even.
    const auto xi = make_tensor(element::i32, {1, 1, 1, 1, 4}, std::vector<int>{1, 2, 4, 7});
    Attrs attrs = pool_attrs({1, 1, 2}, {1, 1, 2}, {0, 0, 0}, {0, 0, 0});
    attrs["exclude-pad"] = true;
    auto node = make_node("AvgPool", {param(element::i32, {1, 1, 1, 1, 4})}, attrs);
    EXPECT_EQ(values_of(run(node, {xi})[0]), (std::vector<double>{1, 5}));
    const auto xu = make_tensor(element::u8, {1, 1, 1, 1, 4}, std::vector<int>{1, 2, 4, 7});
    auto node_u8 = make_node("AvgPool", {param(element::u8, {1, 1, 1, 1, 4})}, attrs);
    EXPECT_EQ(values_of(run(node_u8, {xu})[0]), (std::vector<double>{2, 6}));  // 1.5 -> 2, 5.5 -> 6
    // 3-D window 2x2x2 over a 2x2x2 cube of 1..8: the mean is 4.5.
    std::vector<float> cube{1, 2, 3, 4, 5, 6, 7, 8};
    const auto xc = make_tensor(element::f64, {1, 1, 2, 2, 2}, cube);
    Attrs cube_attrs = pool_attrs({2, 2, 2}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0});
    cube_attrs["exclude-pad"] = false;
    auto cube_node = make_node("AvgPool", {param(element::f64, {1, 1, 2, 2, 2})}, cube_attrs);
    EXPECT_EQ(values_of(run(cube_node, {xc})[0]), (std::vector<double>{4.5}));
}

}  // namespace
}  // namespace vireo::test

namespace vireo::test {
namespace {

TEST(MaxPoolKernel, TwoByTwoFastPathOnOddSizesAndTies) {
    // Odd height and width drop the last row and column; ties keep the first value (equal
    // anyway) and negative inputs never lose to a 0.
    const Shape xs{2, 3, 5, 7};
    auto xv = random_values(shape_size(xs), 9, -50, 50, true);
    xv[0] = xv[1] = -60;  // a window of ties at the corner
    const auto xt = make_tensor(element::f32, xs, xv);
    auto node = make_node("MaxPool", {param(element::f32, xs)},
                          pool_attrs({2, 2}, {2, 2}, {0, 0}, {0, 0}), 1);
    const auto out = run(node, {xt});
    ASSERT_EQ(out[0].get_shape(), (Shape{2, 3, 2, 3}));
    EXPECT_EQ(values_of(out[0]),
              reference_max_pool_2d(xv, xs, out[0].get_shape(), {2, 2}, {2, 2}, {0, 0}));
}

}  // namespace
}  // namespace vireo::test
