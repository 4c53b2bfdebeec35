// Tests the plain unary math kernels (Abs, Negative, Sign, Floor, Ceiling, Exp, Log, Sqrt, Erf,
// Sin, Cos, Sigmoid, Tanh): every real type against a double formula, integer types, edge values.
#include "math_test_util.hpp"

namespace vireo::reference::test {
namespace {

struct UnaryCase {
    std::string op;
    double (*fn)(double);
    std::vector<double> inputs;
};

const std::vector<UnaryCase>& real_cases() {
    static const std::vector<UnaryCase> cases{
        {"Abs", [](double x) { return std::fabs(x); }, {-2.5, -0.0, 0, 3.25}},
        {"Negative", [](double x) { return -x; }, {-2.5, 0, 3.25, 1e3}},
        {"Sign",
         [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); },
         {-2.5, 0, 3.25, -1e-3}},
        {"Floor", [](double x) { return std::floor(x); }, {-2.5, -0.5, 0.5, 3.75}},
        {"Ceiling", [](double x) { return std::ceil(x); }, {-2.5, -0.5, 0.5, 3.25}},
        {"Exp", [](double x) { return std::exp(x); }, {-3, -0.5, 0, 2}},
        {"Log", [](double x) { return std::log(x); }, {0.25, 1, 2.5, 100}},
        {"Sqrt", [](double x) { return std::sqrt(x); }, {0, 0.25, 2, 81}},
        {"Erf", [](double x) { return std::erf(x); }, {-2, -0.5, 0, 1.25}},
        {"Sin", [](double x) { return std::sin(x); }, {-2, -0.5, 0, 1.25}},
        {"Cos", [](double x) { return std::cos(x); }, {-2, -0.5, 0, 1.25}},
        {"Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, {-4, -0.5, 0, 3}},
        {"Tanh", [](double x) { return std::tanh(x); }, {-4, -0.5, 0, 0.75}},
    };
    return cases;
}

TEST(UnaryMath, EveryRealTypeMatchesTheFormula) {
    for (const element::Type type : real_types()) {
        for (const auto& c : real_cases()) {
            // The input as the type holds it (f16/bf16 round the literal), then the formula in
            // double.
            const Tensor x = make_tensor(type, {2, 2}, c.inputs);
            std::vector<double> expected;
            for (double v : values_of(x)) expected.push_back(c.fn(v));
            const Tensor out = run(c.op, {x});
            EXPECT_EQ(out.get_element_type(), type);
            EXPECT_EQ(out.get_shape(), (Shape{2, 2}));
            expect_values(out, expected, -1, c.op + " " + std::string(type.name()));
        }
    }
}

TEST(UnaryMath, IntegerTypesComputeNativelyOrTruncate) {
    for (const element::Type type : {element::i8, element::i16, element::i32, element::i64}) {
        const Tensor x = make_tensor(type, {4}, std::vector<int64_t>{-3, 0, 2, 9});
        EXPECT_EQ(ints_of(run("Abs", {x})), (std::vector<int64_t>{3, 0, 2, 9})) << type;
        EXPECT_EQ(ints_of(run("Negative", {x})), (std::vector<int64_t>{3, 0, -2, -9})) << type;
        EXPECT_EQ(ints_of(run("Sign", {x})), (std::vector<int64_t>{-1, 0, 1, 1})) << type;
        EXPECT_EQ(ints_of(run("Floor", {x})), (std::vector<int64_t>{-3, 0, 2, 9})) << type;
        EXPECT_EQ(ints_of(run("Ceiling", {x})), (std::vector<int64_t>{-3, 0, 2, 9})) << type;
        // Real formulas on integers: computed in double, truncated toward zero, saturated.
        EXPECT_EQ(ints_of(run("Sqrt", {x}))[3], 3) << type;
        EXPECT_EQ(ints_of(run("Sqrt", {x}))[2], 1) << type;  // sqrt(2) = 1.41 -> 1
        EXPECT_EQ(ints_of(run("Exp", {x}))[2], 7) << type;   // e^2 = 7.39 -> 7
        EXPECT_EQ(ints_of(run("Tanh", {x}))[0], 0) << type;  // tanh(-3) = -0.995 -> 0
        EXPECT_EQ(ints_of(run("Sigmoid", {x}))[1], 0) << type;
    }
    // Exp saturates at the type's maximum; Sqrt of a negative integer (NaN) gives 0.
    const Tensor x = make_tensor(element::i8, {2}, std::vector<int64_t>{10, -4});
    EXPECT_EQ(ints_of(run("Exp", {x}))[0], 127);
    EXPECT_EQ(ints_of(run("Sqrt", {x}))[1], 0);
    for (const element::Type type : {element::u8, element::u16, element::u32, element::u64}) {
        const Tensor u = make_tensor(type, {3}, std::vector<int64_t>{0, 4, 200});
        EXPECT_EQ(ints_of(run("Abs", {u})), (std::vector<int64_t>{0, 4, 200})) << type;
        EXPECT_EQ(ints_of(run("Sign", {u})), (std::vector<int64_t>{0, 1, 1})) << type;
        EXPECT_EQ(ints_of(run("Sqrt", {u})), (std::vector<int64_t>{0, 2, 14})) << type;
    }
}

TEST(UnaryMath, MostNegativeIntegerWraps) {
    const Tensor x = make_tensor(element::i8, {1}, std::vector<int64_t>{-128});
    EXPECT_EQ(ints_of(run("Abs", {x})), (std::vector<int64_t>{-128}));
    EXPECT_EQ(ints_of(run("Negative", {x})), (std::vector<int64_t>{-128}));
    const Tensor y =
        make_tensor(element::i64, {1}, std::vector<int64_t>{std::numeric_limits<int64_t>::min()});
    EXPECT_EQ(ints_of(run("Negative", {y}))[0], std::numeric_limits<int64_t>::min());
    const Tensor u = make_tensor(element::u8, {2}, std::vector<int64_t>{1, 0});
    EXPECT_EQ(ints_of(run("Negative", {u})), (std::vector<int64_t>{255, 0}));
}

TEST(UnaryMath, IeeeEdgeValues) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (const element::Type type : real_types()) {
        const std::string t(type.name());
        const Tensor x = make_tensor(type, {4}, std::vector<double>{nan, inf, -inf, -1});
        expect_values(run("Log", {make_tensor(type, {3}, std::vector<double>{0, -1, inf})}),
                      {-inf, nan, inf}, -1, t);
        expect_values(run("Sqrt", {x}), {nan, inf, nan, nan}, -1, t);
        expect_values(run("Exp", {x}), {nan, inf, 0, std::exp(-1.0)}, -1, t);
        expect_values(run("Sigmoid", {x}), {nan, 1, 0, 1 / (1 + std::exp(1.0))}, -1, t);
        expect_values(run("Tanh", {x}), {nan, 1, -1, std::tanh(-1.0)}, -1, t);
        expect_values(run("Abs", {x}), {nan, inf, inf, 1}, -1, t);
        expect_values(run("Floor", {x}), {nan, inf, -inf, -1}, -1, t);
        expect_values(run("Sign", {x}), {nan, 1, -1, -1}, -1, t);
        // Exp overflows to inf in the type (f16's range ends at 65504).
        expect_values(
            run("Exp",
                {make_tensor(type, {1}, std::vector<double>{type == element::f64 ? 710.0 : 89.0})}),
            {inf}, -1, t);
    }
}

TEST(UnaryMath, LargeTensorTakesTheContiguousLoop) {
    // 10,000 elements: checks the loop bound and that every element is written.
    std::vector<double> v(10000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 97) - 48.0;
    std::vector<double> expected(v.size());
    for (size_t i = 0; i < v.size(); ++i) expected[i] = std::fabs(v[i]);
    expect_values(run("Abs", {f32({100, 100}, v)}), expected, 0.0);
}

}  // namespace
}  // namespace vireo::reference::test
