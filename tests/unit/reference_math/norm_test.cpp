// Tests the normalisation kernels: BatchNormInference (v1 and v5 input orders), MVN-1
// (across_channels, reduction_axes) and MVN-6 (axes, eps_mode), NormalizeL2 (eps_mode add/max).
#include "math_test_util.hpp"

namespace vireo::reference::test {
namespace {

std::vector<double> sample(size_t n) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = std::cos(static_cast<double>(i) * 0.7) * 3 + static_cast<double>(i % 3);
    return v;
}

TEST(BatchNormInference, V5AndV1InputOrders) {
    const Shape shape{2, 3, 2};
    const auto x = sample(12);
    const std::vector<double> gamma{1, 2, 0.5}, beta{0, -1, 3}, mean{0.5, -0.5, 1}, var{1, 4, 0.25};
    const double eps = 1e-3;
    std::vector<double> expected(12);
    for (size_t i = 0; i < 12; ++i) {
        const size_t c = (i / 2) % 3;
        expected[i] = gamma[c] * (x[i] - mean[c]) / std::sqrt(var[c] + eps) + beta[c];
    }
    for (const element::Type type : real_types()) {
        const auto t = [&](const Shape& s, const std::vector<double>& v) {
            return make_tensor(type, s, v);
        };
        // Expected values from the inputs as the type holds them.
        const auto xs = values_of(t(shape, x));
        std::vector<double> want(12);
        for (size_t i = 0; i < 12; ++i) {
            const size_t c = (i / 2) % 3;
            const auto g = values_of(t({3}, gamma))[c], b = values_of(t({3}, beta))[c];
            const auto m = values_of(t({3}, mean))[c], v = values_of(t({3}, var))[c];
            want[i] = g * (xs[i] - m) / std::sqrt(v + eps) + b;
        }
        const std::string name(type.name());
        expect_values(run("BatchNormInference",
                          {t(shape, x), t({3}, gamma), t({3}, beta), t({3}, mean), t({3}, var)},
                          {{"epsilon", eps}}, 5),
                      want, type == element::bf16 ? 3e-2 : -1, "v5 " + name);
        expect_values(run("BatchNormInference",
                          {t({3}, gamma), t({3}, beta), t(shape, x), t({3}, mean), t({3}, var)},
                          {{"epsilon", eps}}, 1),
                      want, type == element::bf16 ? 3e-2 : -1, "v1 " + name);
    }
    expect_values(
        run("BatchNormInference",
            {f32(shape, x), f32({3}, gamma), f32({3}, beta), f32({3}, mean), f32({3}, var)},
            {{"epsilon", eps}}, 5),
        expected, 1e-5);
}

/// MVN by a plain loop over groups: `group_of(i)` names the group of element i.
std::vector<double> expected_mvn(const std::vector<double>& x, size_t groups,
                                 size_t (*group_of)(size_t), bool variance, double eps,
                                 bool inside) {
    std::vector<double> sum(groups, 0), sq(groups, 0), count(groups, 0);
    for (size_t i = 0; i < x.size(); ++i) sum[group_of(i)] += x[i], count[group_of(i)] += 1;
    std::vector<double> out(x.size());
    for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] - sum[group_of(i)] / count[group_of(i)];
    if (!variance) return out;
    for (size_t i = 0; i < x.size(); ++i) sq[group_of(i)] += out[i] * out[i];
    for (size_t i = 0; i < x.size(); ++i) {
        const double var = sq[group_of(i)] / count[group_of(i)];
        out[i] /= inside ? std::sqrt(var + eps) : std::sqrt(var) + eps;
    }
    return out;
}

// Shape [2,3,4]: element i has n = i / 12, c = (i / 4) % 3, w = i % 4.
size_t per_n(size_t i) {
    return i / 12;
}
size_t per_nc(size_t i) {
    return i / 4;
}
size_t per_c(size_t i) {
    return (i / 4) % 3;
}

TEST(Mvn, V6AxesAndEpsModes) {
    const Shape shape{2, 3, 4};
    const auto x = sample(24);
    const double eps = 0.01;
    for (const bool inside : {true, false}) {
        const std::string mode = inside ? "inside_sqrt" : "outside_sqrt";
        const auto attrs = [&](bool variance) {
            return std::map<std::string, AttrValue>{
                {"normalize_variance", variance}, {"eps", eps}, {"eps_mode", mode}};
        };
        expect_values(run("MVN", {f32(shape, x), i64s({2})}, attrs(true), 6, {1}),
                      expected_mvn(x, 6, per_nc, true, eps, inside), 1e-5, mode + " axes {2}");
        expect_values(run("MVN", {f32(shape, x), i64s({-2, -1})}, attrs(true), 6, {1}),
                      expected_mvn(x, 2, per_n, true, eps, inside), 1e-5, mode + " axes {1,2}");
        expect_values(run("MVN", {f32(shape, x), i64s({0, 2})}, attrs(true), 6, {1}),
                      expected_mvn(x, 3, per_c, true, eps, inside), 1e-5, mode + " axes {0,2}");
        expect_values(run("MVN", {f32(shape, x), i64s({2})}, attrs(false), 6, {1}),
                      expected_mvn(x, 6, per_nc, false, eps, inside), 1e-5, mode + " mean only");
    }
}

TEST(Mvn, V1AcrossChannelsAndReductionAxes) {
    const Shape shape{2, 3, 4};
    const auto x = sample(24);
    const double eps = 1e-6;
    expect_values(run("MVN", {f32(shape, x)},
                      {{"across_channels", false}, {"normalize_variance", true}, {"eps", eps}}, 1),
                  expected_mvn(x, 6, per_nc, true, eps, true), 1e-5, "per channel");
    expect_values(run("MVN", {f32(shape, x)},
                      {{"across_channels", true}, {"normalize_variance", true}, {"eps", eps}}, 1),
                  expected_mvn(x, 2, per_n, true, eps, true), 1e-5, "across channels");
    expect_values(run("MVN", {f32(shape, x)},
                      {{"reduction_axes", std::vector<int64_t>{0, 2}},
                       {"normalize_variance", false},
                       {"eps", eps}},
                      1),
                  expected_mvn(x, 3, per_c, false, eps, true), 1e-5, "reduction_axes");
}

TEST(Mvn, EveryRealType) {
    const Shape shape{1, 2, 8};
    for (const element::Type type : real_types()) {
        const Tensor x = make_tensor(type, shape, sample(16));
        const auto want = expected_mvn(
            values_of(x), 2, [](size_t i) { return i / 8; }, true, 1e-9, true);
        expect_values(run("MVN", {x, i64s({2})},
                          {{"normalize_variance", true},
                           {"eps", 1e-9},
                           {"eps_mode", std::string("inside_sqrt")}},
                          6, {1}),
                      want, -1, std::string(type.name()));
    }
}

TEST(NormalizeL2, AxesAndEpsModes) {
    const Shape shape{2, 3};
    const std::vector<double> x{3, 4, 0, 0, 0, 1e-4};
    // Over axis 1: row norms 5 and 1e-4.
    const double eps = 1e-6;
    expect_values(
        run("NormalizeL2", {f32(shape, x), i64s({1})},
            {{"eps", eps}, {"eps_mode", std::string("add")}}, -1, {1}),
        {3 / std::sqrt(25 + eps), 4 / std::sqrt(25 + eps), 0, 0, 0, 1e-4 / std::sqrt(1e-8 + eps)},
        1e-5);
    expect_values(run("NormalizeL2", {f32(shape, x), i64s({1})},
                      {{"eps", eps}, {"eps_mode", std::string("max")}}, -1, {1}),
                  {0.6, 0.8, 0, 0, 0, 1e-4 / std::sqrt(eps)}, 1e-5);
    // Over both axes; and over axis 0 (columns).
    const double total = std::sqrt(25 + 1e-8);
    expect_values(run("NormalizeL2", {f32(shape, x), i64s({0, 1})},
                      {{"eps", 0.0}, {"eps_mode", std::string("add")}}, -1, {1}),
                  {3 / total, 4 / total, 0, 0, 0, 1e-4 / total}, 1e-5);
    expect_values(run("NormalizeL2", {f32(shape, x), i64s({-2})},
                      {{"eps", 0.0}, {"eps_mode", std::string("max")}}, -1, {1}),
                  {1, 1, 0, 0, 0, 1}, 1e-5);
    // An all-zero vector with eps 0 is 0/0: NaN, as IEEE says; any eps avoids it.
    expect_values(run("NormalizeL2", {f32({2}, {0, 0}), i64s({0})},
                      {{"eps", 0.0}, {"eps_mode", std::string("max")}}, -1, {1}),
                  {NAN, NAN});
    expect_values(run("NormalizeL2", {f32({2}, {0, 0}), i64s({0})},
                      {{"eps", 1e-9}, {"eps_mode", std::string("add")}}, -1, {1}),
                  {0, 0});
}

TEST(NormalizeL2, EveryRealType) {
    for (const element::Type type : real_types()) {
        const Tensor x = make_tensor(type, {1, 4}, std::vector<double>{1, 2, 2, 4});
        expect_values(run("NormalizeL2", {x, i64s({1})},
                          {{"eps", 1e-12}, {"eps_mode", std::string("add")}}, -1, {1}),
                      {0.2, 0.4, 0.4, 0.8}, -1, std::string(type.name()));
    }
}

}  // namespace
}  // namespace vireo::reference::test
