// Tests the activation kernels: Relu, Clamp, Elu, Gelu (v2, v7 erf/tanh), HSwish, HSigmoid, Swish
// (with and without beta), Mish, SoftPlus and PRelu (per-channel and numpy slopes).
#include "math_test_util.hpp"

namespace vireo::reference::test {
namespace {

const std::vector<double> kInputs{-6, -2.5, -0.5, 0, 0.75, 2, 5, 30};

std::vector<double> apply(const Tensor& x, double (*fn)(double)) {
    std::vector<double> out;
    for (double v : values_of(x)) out.push_back(fn(v));
    return out;
}

double softplus(double x) {
    return std::log(1 + std::exp(x));
}

TEST(Activation, RealFormulasEveryRealType) {
    const std::vector<std::pair<std::string, double (*)(double)>> cases{
        {"Relu", [](double x) { return x > 0 ? x : 0.0; }},
        {"HSwish", [](double x) { return x * std::min(std::max(x + 3, 0.0), 6.0) / 6; }},
        {"HSigmoid", [](double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; }},
        {"Mish", [](double x) { return x * std::tanh(softplus(x)); }},
        {"SoftPlus", [](double x) { return softplus(x); }},
    };
    for (const element::Type type : real_types()) {
        const Tensor x = make_tensor(type, {2, 4}, kInputs);
        for (const auto& [name, fn] : cases)
            expect_values(run(name, {x}), apply(x, fn), -1, name + " " + std::string(type.name()));
    }
}

TEST(Activation, SoftPlusIsStableAtTheExtremes) {
    const Tensor x = make_tensor(element::f32, {3}, std::vector<double>{100, -100, 1000});
    expect_values(run("SoftPlus", {x}), {100, std::exp(-100.0), 1000});
    expect_values(run("Mish", {x}), {100, -100 * std::tanh(std::exp(-100.0)), 1000});
}

TEST(Activation, ReluAndClampOnIntegers) {
    for (const element::Type type : {element::i8, element::i32, element::i64}) {
        const Tensor x = make_tensor(type, {5}, std::vector<int64_t>{-100, -1, 0, 3, 100});
        EXPECT_EQ(ints_of(run("Relu", {x})), (std::vector<int64_t>{0, 0, 0, 3, 100})) << type;
        // Integer clamp uses ceil(min) = -1 and floor(max) = 3.
        EXPECT_EQ(ints_of(run("Clamp", {x}, {{"min", -1.5}, {"max", 3.7}})),
                  (std::vector<int64_t>{-1, -1, 0, 3, 3}))
            << type;
    }
    const Tensor u = make_tensor(element::u8, {3}, std::vector<int64_t>{0, 7, 255});
    EXPECT_EQ(ints_of(run("Relu", {u})), (std::vector<int64_t>{0, 7, 255}));
    EXPECT_EQ(ints_of(run("Clamp", {u}, {{"min", -5.0}, {"max", 300.0}})),
              (std::vector<int64_t>{0, 7, 255}));
}

TEST(Activation, ClampRealKeepsNaN) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (const element::Type type : real_types()) {
        const Tensor x = make_tensor(type, {5}, std::vector<double>{-inf, -1, 0.25, 9, nan});
        expect_values(run("Clamp", {x}, {{"min", -0.5}, {"max", 2.0}}), {-0.5, -0.5, 0.25, 2, nan},
                      -1, std::string(type.name()));
        expect_values(run("Relu", {x}), {0, 0, 0.25, 9, nan}, -1, std::string(type.name()));
    }
}

TEST(Activation, EluUsesAlpha) {
    for (const element::Type type : real_types()) {
        const Tensor x = make_tensor(type, {2, 4}, kInputs);
        std::vector<double> expected;
        for (double v : values_of(x)) expected.push_back(v > 0 ? v : 0.5 * (std::exp(v) - 1));
        expect_values(run("Elu", {x}, {{"alpha", 0.5}}), expected, -1, std::string(type.name()));
    }
}

TEST(Activation, GeluErfAndTanhApproximations) {
    const auto erf_gelu = [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); };
    const auto tanh_gelu = [](double x) {
        return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    };
    for (const element::Type type : real_types()) {
        const Tensor x = make_tensor(type, {2, 4}, kInputs);
        std::vector<double> e, t;
        for (double v : values_of(x)) e.push_back(erf_gelu(v)), t.push_back(tanh_gelu(v));
        const std::string name(type.name());
        expect_values(run("Gelu", {x}, {{"approximation_mode", std::string("erf")}}, 7), e, -1,
                      "erf " + name);
        expect_values(run("Gelu", {x}, {{"approximation_mode", std::string("tanh")}}, 7), t, -1,
                      "tanh " + name);
        expect_values(run("Gelu", {x}, {}, 2), e, -1, "v2 " + name);
    }
    // The two modes differ measurably at x = 1 (checks the attribute is honoured).
    const Tensor one = f32({1}, {1});
    EXPECT_NE(values_of(run("Gelu", {one}, {{"approximation_mode", std::string("erf")}}, 7))[0],
              values_of(run("Gelu", {one}, {{"approximation_mode", std::string("tanh")}}, 7))[0]);
}

TEST(Activation, SwishWithAndWithoutBeta) {
    for (const element::Type type : real_types()) {
        const Tensor x = make_tensor(type, {2, 4}, kInputs);
        std::vector<double> b1, b2;
        for (double v : values_of(x))
            b1.push_back(v / (1 + std::exp(-v))), b2.push_back(v / (1 + std::exp(-2.0 * v)));
        const std::string name(type.name());
        expect_values(run("Swish", {x}), b1, -1, "beta=1 " + name);
        expect_values(run("Swish", {x, make_tensor(type, {}, std::vector<double>{2})}), b2, -1,
                      "beta=2 " + name);
    }
}

TEST(Activation, PReluPerChannelSlope) {
    // data [2,3,2], slope [3]: one slope per channel (axis 1), not per last axis.
    std::vector<double> x(12);
    for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 2 ? 1.0 : -1.0) * static_cast<double>(i + 1);
    const std::vector<double> slope{0.1, 0.2, 0.3};
    std::vector<double> expected(12);
    for (size_t n = 0; n < 2; ++n)
        for (size_t c = 0; c < 3; ++c)
            for (size_t k = 0; k < 2; ++k) {
                const size_t i = (n * 3 + c) * 2 + k;
                expected[i] = x[i] < 0 ? x[i] * slope[c] : x[i];
            }
    for (const element::Type type : real_types()) {
        const Tensor out =
            run("PRelu", {make_tensor(type, {2, 3, 2}, x), make_tensor(type, {3}, slope)});
        std::vector<double> want;
        const auto xs = values_of(make_tensor(type, {12}, x));
        const auto ss = values_of(make_tensor(type, {3}, slope));
        for (size_t i = 0; i < 12; ++i) want.push_back(xs[i] < 0 ? xs[i] * ss[(i / 2) % 3] : xs[i]);
        expect_values(out, want, -1, std::string(type.name()));
    }
    expect_values(run("PRelu", {f32({2, 3, 2}, x), f32({3}, slope)}), expected);
}

TEST(Activation, PReluNumpyAndScalarSlope) {
    // data [2,2], slope [1,2] broadcasts numpy-style along the last axis.
    expect_values(run("PRelu", {f32({2, 2}, {-1, -2, 3, -4}), f32({1, 2}, {0.5, 0.25})}),
                  {-0.5, -0.5, 3, -1});
    // A one-element slope applies everywhere.
    expect_values(run("PRelu", {f32({3}, {-2, 0, 2}), f32({1}, {0.1})}), {-0.2, 0, 2});
    // Signed integers: x < 0 multiplies by the slope (wrapping).
    const Tensor xi = make_tensor(element::i32, {1, 2, 2}, std::vector<int64_t>{-3, 4, -5, 6});
    const Tensor si = make_tensor(element::i32, {2}, std::vector<int64_t>{2, 3});
    EXPECT_EQ(ints_of(run("PRelu", {xi, si})), (std::vector<int64_t>{-6, 4, -15, 6}));
}

}  // namespace
}  // namespace vireo::reference::test
