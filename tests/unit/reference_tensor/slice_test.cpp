// Tests StridedSlice (every mask, negative bounds and strides) and Slice-8 (axes, negative steps,
// clamping) against values worked out by hand.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

Tensor i64s(const std::vector<int64_t>& v) {
    return make_tensor(element::i64, {v.size()}, v);
}

std::vector<double> iota(size_t n) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
    return v;
}

struct StridedCase {
    Ints begin, end, stride;
    Ints begin_mask, end_mask, new_axis_mask, shrink_mask, ellipsis_mask;
    Shape expected_shape;
    std::vector<double> expected;
};

// Data is [2, 3, 4] holding 0..23: element (i, j, k) = 12 i + 4 j + k.
void check_strided(const StridedCase& c, element::Type type = element::f32) {
    const Shape shape{2, 3, 4};
    const auto x = make_tensor(type, shape, iota(24));
    const auto b = i64s(c.begin), e = i64s(c.end), s = i64s(c.stride);
    auto node =
        make_node("StridedSlice", {param(type, shape), constant(b), constant(e), constant(s)},
                  {{"begin_mask", c.begin_mask},
                   {"end_mask", c.end_mask},
                   {"new_axis_mask", c.new_axis_mask},
                   {"shrink_axis_mask", c.shrink_mask},
                   {"ellipsis_mask", c.ellipsis_mask}});
    const auto out = run(node, {x, b, e, s});
    EXPECT_EQ(out[0].get_shape(), c.expected_shape);
    EXPECT_EQ(values_of(out[0]), c.expected);
}

TEST(StridedSliceKernel, BasicRangesAndNegativeBounds) {
    // x[1:2, 0:3:2, -3:-1]
    check_strided(
        {{1, 0, -3}, {2, 3, -1}, {1, 2, 1}, {}, {}, {}, {}, {}, {1, 2, 2}, {13, 14, 21, 22}});
}

TEST(StridedSliceKernel, BeginAndEndMasksIgnoreTheValues) {
    // Masked begin on axis 0 and masked end on axis 2: x[:1, 1, 2:] with axis 1 shrunk.
    check_strided(
        {{5, 1, 2}, {1, 2, 0}, {1, 1, 1}, {1, 0, 0}, {0, 0, 1}, {}, {0, 1, 0}, {}, {1, 2}, {6, 7}});
}

TEST(StridedSliceKernel, NegativeStrideReverses) {
    // x[-1, ::-1, ::-2]: shrink axis 0 at index 1 (last), reverse rows, every other column from the
    // end.
    check_strided({{-1, 0, 0},
                   {0, 0, 0},
                   {1, -1, -2},
                   {0, 1, 1},
                   {0, 1, 1},
                   {},
                   {1, 0, 0},
                   {},
                   {3, 2},
                   {23, 21, 19, 17, 15, 13}});
}

TEST(StridedSliceKernel, NewAxisAndEllipsis) {
    // x[..., newaxis, 1]: ellipsis covers axes 0 and 1, a new axis, then column 1 shrunk.
    check_strided({{0, 0, 1},
                   {0, 0, 2},
                   {1, 1, 1},
                   {},
                   {},
                   {0, 1, 0},
                   {0, 0, 1},
                   {1, 0, 0},
                   {2, 3, 1},
                   {1, 5, 9, 13, 17, 21}});
    // x[newaxis, 0]: new leading axis, first block, rest untouched.
    check_strided({{0, 0},
                   {0, 1},
                   {1, 1},
                   {},
                   {},
                   {1, 0},
                   {},
                   {},
                   {1, 1, 3, 4},
                   {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
                  element::i8);
}

TEST(StridedSliceKernel, OutOfRangeBoundsAreClamped) {
    check_strided(
        {{-100, 1, 3}, {100, 100, 100}, {1, 1, 1}, {}, {}, {}, {}, {}, {2, 2, 1}, {7, 11, 19, 23}},
        element::i64);
}

TEST(SliceKernel, AxesAndNegativeSteps) {
    const Shape shape{2, 3, 4};
    const auto x = make_tensor(element::f16, shape, iota(24));
    // Axis 2 from 3 down to (not including) 0 by -2, axis 0 from -1: x[-1:, :, 3:0:-2]
    const auto start = i64s({3, -1}), stop = i64s({0, 10}), step = i64s({-2, 1}),
               axes = i64s({-1, 0});
    auto node = make_node("Slice",
                          {param(element::f16, shape), constant(start), constant(stop),
                           constant(step), constant(axes)},
                          {});
    const auto out = run(node, {x, start, stop, step, axes});
    EXPECT_EQ(out[0].get_shape(), (Shape{1, 3, 2}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{15, 13, 19, 17, 23, 21}));
}

TEST(SliceKernel, DefaultAxesAndEmptyResult) {
    const Shape shape{5};
    const auto x = make_tensor(element::i32, shape, iota(5));
    const auto start = i64s({-2}), stop = i64s({std::numeric_limits<int64_t>::max()}),
               step = i64s({1});
    auto node = make_node(
        "Slice", {param(element::i32, shape), constant(start), constant(stop), constant(step)}, {});
    EXPECT_EQ(values_of(run(node, {x, start, stop, step})[0]), (std::vector<double>{3, 4}));
    // Going backwards to the very start with INT64_MIN as stop.
    const auto start2 = i64s({-1}), stop2 = i64s({std::numeric_limits<int64_t>::min()}),
               step2 = i64s({-1});
    auto reverse = make_node(
        "Slice", {param(element::i32, shape), constant(start2), constant(stop2), constant(step2)},
        {});
    EXPECT_EQ(values_of(run(reverse, {x, start2, stop2, step2})[0]),
              (std::vector<double>{4, 3, 2, 1, 0}));
    const auto start3 = i64s({3}), stop3 = i64s({1}), step3 = i64s({1});
    auto empty = make_node(
        "Slice", {param(element::i32, shape), constant(start3), constant(stop3), constant(step3)},
        {});
    const auto out = run(empty, {x, start3, stop3, step3});
    EXPECT_EQ(out[0].get_shape(), (Shape{0}));
}

}  // namespace
}  // namespace vireo::test
