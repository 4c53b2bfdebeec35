// Issue 23 item 6: window attributes that used to overflow into garbage dimensions (pads of
// -1000 or INT64_MAX, huge strides) and NaN Clamp bounds are refused when the node is created.
#include <cmath>
#include <cstdint>
#include <limits>

#include "hostile_util.hpp"
#include "vireo/ops.hpp"

namespace vireo::hostile {
namespace {

using Ints = std::vector<int64_t>;
constexpr int64_t kHuge = std::numeric_limits<int64_t>::max();

Output image() {
    return op::parameter(element::f32, PartialShape(Shape{1, 1, 8, 8}), "x");
}

TEST(BadAttributes, PoolingPadsAndStridesOutOfRangeAreRefused) {
    for (const Ints& pads : {Ints{-1000, 0}, Ints{kHuge, 0}, Ints{0, kHuge}}) {
        expect_error<InvalidArgument>(
            [&] {
                op::max_pool(image(), {1, 1}, pads, {0, 0}, {2, 2});
            },
            {"MaxPool", "pads_begin", "must be in 0..2147483647"});
        expect_error<InvalidArgument>(
            [&] {
                op::avg_pool(image(), {1, 1}, {0, 0}, pads, {2, 2}, true);
            },
            {"AvgPool", "must be in 0..2147483647"});
    }
    expect_error<InvalidArgument>(
        [&] {
            op::max_pool(image(), {kHuge, 1}, {0, 0}, {0, 0}, {2, 2});
        },
        {"MaxPool", "stride", "1..2147483647"});
    // In range: 8 + 1 + 1 - 2 + 1 = 9 outputs per axis.
    auto fine = op::max_pool(image(), {1, 1}, {1, 1}, {1, 1}, {2, 2});
    EXPECT_EQ(fine->get_output_partial_shape(0), PartialShape(Shape{1, 1, 9, 9}));
}

TEST(BadAttributes, ConvolutionPadsAndStridesOutOfRangeAreRefused) {
    auto w = op::constant<float>(element::f32, Shape{1, 1, 3, 3}, {1.0f});
    expect_error<InvalidArgument>(
        [&] {
            op::convolution(image(), w, {1, 1}, {-1000, 0}, {0, 0}, {1, 1});
        },
        {"Convolution", "pads_begin", "0..2147483647"});
    expect_error<InvalidArgument>(
        [&] {
            op::convolution(image(), w, {1, 1}, {0, 0}, {kHuge, kHuge}, {1, 1});
        },
        {"Convolution", "pads_end", "0..2147483647"});
    expect_error<InvalidArgument>(
        [&] {
            op::convolution(image(), w, {kHuge, 1}, {0, 0}, {0, 0}, {1, 1});
        },
        {"Convolution", "strides", "1..2147483647"});
    expect_error<InvalidArgument>(
        [&] {
            op::convolution_backprop_data(image(), w, {1, 1}, {kHuge, 0}, {0, 0}, {1, 1});
        },
        {"ConvolutionBackpropData", "pads_begin"});
}

TEST(BadAttributes, ClampWithNaNBoundsIsRefused) {
    const double nan = std::nan("");
    expect_error<InvalidArgument>([&] { op::clamp(image(), nan, 1.0); }, {"Clamp", "NaN"});
    expect_error<InvalidArgument>([&] { op::clamp(image(), 0.0, nan); }, {"Clamp", "NaN"});
    auto fine = op::clamp(image(), -1.0, 1.0);
    EXPECT_EQ(fine->get_output_partial_shape(0), PartialShape(Shape{1, 1, 8, 8}));
}

}  // namespace
}  // namespace vireo::hostile
