// Tests LRN: the channel window (odd and even size), a two-axis window, alpha divided by
// size^len(axes), every real type, against sums written out by hand.
#include "math_test_util.hpp"

namespace vireo::reference::test {
namespace {

Tensor lrn(const Tensor& x, const std::vector<int64_t>& axes, double alpha, double beta,
           double bias, int64_t size) {
    return run("LRN", {x, i64s(axes)},
               {{"alpha", alpha}, {"beta", beta}, {"bias", bias}, {"size", size}}, -1, {1});
}

TEST(Lrn, ChannelWindowOddAndEvenSize) {
    const Tensor x = f32({1, 3, 1, 1}, {1, 2, 3});
    // size 3: window c-1..c+1; sums 1+4, 1+4+9, 4+9; alpha / 3.
    const std::vector<double> sums3{5, 14, 13};
    std::vector<double> expected;
    for (size_t c = 0; c < 3; ++c)
        expected.push_back((c + 1.0) / std::pow(2 + 0.3 / 3 * sums3[c], 0.75));
    expect_values(lrn(x, {1}, 0.3, 0.75, 2, 3), expected);
    // size 2 (ONNX window): c..c+1; sums 1+4, 4+9, 9; alpha / 2.
    const std::vector<double> sums2{5, 13, 9};
    expected.clear();
    for (size_t c = 0; c < 3; ++c)
        expected.push_back((c + 1.0) / std::pow(1 + 0.3 / 2 * sums2[c], 0.5));
    expect_values(lrn(x, {1}, 0.3, 0.5, 1, 2), expected);
}

TEST(Lrn, TwoSpatialAxesDivideAlphaBySizeSquared) {
    // 2x2 plane, size 3: every window covers the whole plane (sum 1+4+9+16 = 30); alpha / 9.
    for (const element::Type type : real_types()) {
        const Tensor x = make_tensor(type, {1, 1, 2, 2}, std::vector<double>{1, 2, 3, 4});
        std::vector<double> expected;
        for (double v : {1.0, 2.0, 3.0, 4.0})
            expected.push_back(v / std::pow(1 + 0.9 / 9 * 30, 0.75));
        expect_values(lrn(x, {-2, -1}, 0.9, 0.75, 1, 3), expected, -1, std::string(type.name()));
    }
}

TEST(Lrn, BadAxisIsRejected) {
    EXPECT_THROW(lrn(f32({1, 2}, {1, 2}), {2}, 1, 1, 1, 1), InvalidArgument);
}

}  // namespace
}  // namespace vireo::reference::test
