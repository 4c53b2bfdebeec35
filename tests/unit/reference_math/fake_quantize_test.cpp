// Tests FakeQuantize: scalar and per-channel limits, levels, inverted input ranges, every real
// type.
#include "math_test_util.hpp"

namespace vireo::reference::test {
namespace {

double expected_fq(double x, double il, double ih, double ol, double oh, double levels) {
    if (x <= std::min(il, ih)) return ol;
    if (x > std::max(il, ih)) return oh;
    return std::nearbyint((x - il) / (ih - il) * (levels - 1)) / (levels - 1) * (oh - ol) + ol;
}

TEST(FakeQuantize, ScalarLimits) {
    // 5 levels over [0, 4] -> steps of 1 mapped onto [-1, 1] (steps of 0.5). Values avoid .5 ties.
    const std::vector<double> x{-1, 0, 0.4, 0.6, 1.7, 2.2, 3.9, 4, 7};
    std::vector<double> expected;
    for (double v : x) expected.push_back(expected_fq(v, 0, 4, -1, 1, 5));
    const Tensor out =
        run("FakeQuantize", {f32({9}, x), f32({}, {0}), f32({}, {4}), f32({}, {-1}), f32({}, {1})},
            {{"levels", int64_t{5}}});
    expect_values(out, expected);
    expect_values(out, {-1, -1, -1, -0.5, 0.0, 0.0, 1, 1, 1});  // by hand
}

TEST(FakeQuantize, PerChannelLimitsBroadcast) {
    // x [1,2,3]; input limits per channel [1,2,1]; output limits scalar.
    const std::vector<double> x{0.1, 0.5, 0.9, 10, 25, 41};
    const std::vector<double> il{0, 0}, ih{1, 40};
    std::vector<double> expected;
    for (size_t i = 0; i < 6; ++i)
        expected.push_back(expected_fq(x[i], il[i / 3], ih[i / 3], 0, 255, 256));
    expect_values(run("FakeQuantize",
                      {f32({1, 2, 3}, x), f32({1, 2, 1}, il), f32({1, 2, 1}, ih), f32({1}, {0}),
                       f32({1}, {255})},
                      {{"levels", int64_t{256}}}),
                  expected, 1e-5);
}

TEST(FakeQuantize, EveryRealTypeAndTwoLevels) {
    for (const element::Type type : real_types()) {
        const auto t = [&](const Shape& s, const std::vector<double>& v) {
            return make_tensor(type, s, v);
        };
        // Two levels: a threshold at the middle of [-1, 1].
        const Tensor out =
            run("FakeQuantize",
                {t({4}, {-2, -0.25, 0.25, 2}), t({}, {-1}), t({}, {1}), t({}, {0}), t({}, {8})},
                {{"levels", int64_t{2}}});
        expect_values(out, {0, 0, 8, 8}, -1, std::string(type.name()));
    }
}

}  // namespace
}  // namespace vireo::reference::test
