// Tests GridSample-9: identity grids reproduce the image in every mode, bilinear and bicubic
// values by hand, nearest rounding half to even, and the three padding modes out of range.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

Tensor grid_sample(const Tensor& data, const Tensor& grid, Attrs attrs) {
    auto node = make_node("GridSample",
                          {param(data.get_element_type(), data.get_shape()),
                           param(grid.get_element_type(), grid.get_shape())},
                          std::move(attrs));
    return run(node, {data, grid})[0];
}

/// A [1, h, w, 2] grid whose point (i, j) is (x, y) = (xs[j], ys[i]).
Tensor grid_of(const std::vector<double>& ys, const std::vector<double>& xs) {
    std::vector<double> v;
    for (double y : ys)
        for (double x : xs) {
            v.push_back(x);
            v.push_back(y);
        }
    return make_tensor(element::f32, {1, ys.size(), xs.size(), 2}, v);
}

TEST(GridSampleKernel, IdentityGridWithAlignedCornersReproducesTheImage) {
    const std::vector<double> image{1, 2, 3, 4, 5, 6};
    const auto data = make_tensor(element::f32, {1, 1, 2, 3}, image);
    const auto grid = grid_of({-1, 1}, {-1, 0, 1});
    for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
        SCOPED_TRACE(mode);
        const auto out =
            grid_sample(data, grid, {{"align_corners", true}, {"mode", std::string(mode)}});
        EXPECT_EQ(out.get_shape(), (Shape{1, 1, 2, 3}));
        expect_near(values_of(out), image, 1e-6);
    }
}

TEST(GridSampleKernel, BilinearByHandAndUnalignedCorners) {
    const auto data = make_tensor(element::f32, {1, 1, 2, 2}, std::vector<double>{1, 2, 3, 4});
    // Aligned: (0, 0) is the centre (2.5); (0.5, -1) is x = 0.75 on the top row: 1 * 0.25 + 2 *
    // 0.75.
    const auto aligned = grid_sample(data, grid_of({0}, {0}), {{"align_corners", true}});
    expect_near(values_of(aligned), {2.5}, 1e-6);
    const auto row = make_tensor(element::f32, {1, 1, 1, 2}, std::vector<double>{0.5, -1});
    expect_near(values_of(grid_sample(data, row, {{"align_corners", true}})), {1.75}, 1e-6);
    // Unaligned: x = -1 is the outer edge, -0.5 in pixels: half of pixel 0 and half of nothing.
    const auto edge = grid_of({-1}, {-1});  // (x, y) = (-1, -1) -> (-0.5, -0.5)
    expect_near(values_of(grid_sample(data, edge, {})), {0.25}, 1e-6);
    expect_near(values_of(grid_sample(data, edge, {{"padding_mode", std::string("border")}})), {1},
                1e-6);
    expect_near(values_of(grid_sample(data, edge, {{"padding_mode", std::string("reflection")}})),
                {1}, 1e-6);
}

TEST(GridSampleKernel, PaddingModesBeyondTheImage) {
    // One row [0, 10, 20], aligned: x = 1.5 -> 2.5 pixels.
    const auto data = make_tensor(element::f32, {1, 1, 1, 3}, std::vector<double>{0, 10, 20});
    const auto grid = grid_of({0}, {1.5});
    const Attrs aligned{{"align_corners", true}};
    auto with = [&](const char* padding) {
        Attrs a = aligned;
        a["padding_mode"] = std::string(padding);
        return values_of(grid_sample(data, grid, a))[0];
    };
    EXPECT_NEAR(with("zeros"), 10.0, 1e-6);       // half of pixel 2, half of nothing
    EXPECT_NEAR(with("border"), 20.0, 1e-6);      // clipped to pixel 2
    EXPECT_NEAR(with("reflection"), 15.0, 1e-6);  // 2.5 reflects to 1.5
}

TEST(GridSampleKernel, NearestRoundsHalfToEvenAndBicubicByHand) {
    const auto data = make_tensor(element::f32, {1, 1, 1, 3}, std::vector<double>{0, 10, 20});
    // Aligned with width 3: x = gx + 1, so -0.5 -> 0.5 (rounds to 0) and 0.5 -> 1.5 (rounds to 2).
    const auto nearest = grid_sample(data, grid_of({0}, {-0.5, 0.5}),
                                     {{"align_corners", true}, {"mode", std::string("nearest")}});
    EXPECT_EQ(values_of(nearest), (std::vector<double>{0, 20}));
    // Bicubic at x = 1.5 of [0, 1, 4, 9]: weights -0.09375, 0.59375, 0.59375, -0.09375.
    const auto squares = make_tensor(element::f64, {1, 1, 1, 4}, std::vector<double>{0, 1, 4, 9});
    const auto bicubic = grid_sample(squares, grid_of({0}, {0}),
                                     {{"align_corners", true}, {"mode", std::string("bicubic")}});
    expect_near(values_of(bicubic), {0.59375 * 1 + 0.59375 * 4 - 0.09375 * 9}, 1e-9);
}

}  // namespace
}  // namespace vireo::test
