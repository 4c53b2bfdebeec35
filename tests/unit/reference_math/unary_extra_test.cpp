// Tests the unary kernels added for the ONNX frontend (Tan ... Atanh, Round, SoftSign, Selu, IsInf,
// IsNaN, IsFinite) and HSigmoid: every real type against a double formula, integers, edge values.
#include "math_test_util.hpp"

namespace vireo::reference::test {
namespace {

struct UnaryCase {
    std::string op;
    double (*fn)(double);
    std::vector<double> inputs;
};

TEST(UnaryExtra, EveryRealTypeMatchesTheFormula) {
    const std::vector<UnaryCase> cases{
        {"Tan", [](double x) { return std::tan(x); }, {-1.25, -0.5, 0, 1}},
        {"Asin", [](double x) { return std::asin(x); }, {-1, -0.5, 0, 0.75}},
        {"Acos", [](double x) { return std::acos(x); }, {-1, -0.5, 0, 0.75}},
        {"Atan", [](double x) { return std::atan(x); }, {-20, -0.5, 0, 3}},
        {"Sinh", [](double x) { return std::sinh(x); }, {-3, -0.5, 0, 2}},
        {"Cosh", [](double x) { return std::cosh(x); }, {-3, -0.5, 0, 2}},
        {"Asinh", [](double x) { return std::asinh(x); }, {-3, -0.5, 0, 10}},
        {"Acosh", [](double x) { return std::acosh(x); }, {1, 1.5, 3, 10}},
        {"Atanh", [](double x) { return std::atanh(x); }, {-0.75, -0.5, 0, 0.5}},
        {"SoftSign", [](double x) { return x / (1 + std::fabs(x)); }, {-3, -0.5, 0, 7}},
        {"HSigmoid",
         [](double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; },
         {-4, -1.5, 0.5, 3.5}},
    };
    for (const element::Type type : real_types()) {
        for (const auto& c : cases) {
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

TEST(UnaryExtra, OutOfDomainGivesNaNAndIntegersTruncate) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    expect_values(run("Asin", {f32({2}, {2, -1.5})}), {nan, nan});
    expect_values(run("Acosh", {f32({2}, {0.5, 1})}), {nan, 0});
    expect_values(run("Atanh", {f32({3}, {1, -1, 2})}), {inf, -inf, nan});
    // Integers: computed in double, truncated toward zero, NaN stored as 0, saturated.
    const Tensor x = make_tensor(element::i32, {4}, std::vector<int64_t>{-2, 0, 1, 30});
    EXPECT_EQ(ints_of(run("Atan", {x})),
              (std::vector<int64_t>{-1, 0, 0, 1}));  // -1.107, 0, 0.785, 1.537
    EXPECT_EQ(ints_of(run("Sinh", {x})), (std::vector<int64_t>{-3, 0, 1, 2147483647}));
    EXPECT_EQ(ints_of(run("Cosh", {x})), (std::vector<int64_t>{3, 1, 1, 2147483647}));
    EXPECT_EQ(ints_of(run("Asin", {x})), (std::vector<int64_t>{0, 0, 1, 0}));  // NaN, 0, pi/2, NaN
    EXPECT_EQ(ints_of(run("Tan", {x})),
              (std::vector<int64_t>{2, 0, 1, -6}));  // 2.185, 0, 1.557, -6.405
}

TEST(Round, HalfToEvenAndHalfAwayFromZero) {
    const std::vector<double> in{-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4, -2.6, 3.5, 0.49999997};
    const std::vector<double> even{-2, -2, -0, 0, 2, 2, 2, -3, 4, 0};
    const std::vector<double> away{-3, -2, -1, 1, 2, 3, 2, -3, 4, 0};
    for (const element::Type type : {element::f32, element::f64}) {
        const Tensor x = make_tensor(type, {in.size()}, in);
        expect_values(run("Round", {x}), even, 0.0, "half_to_even " + std::string(type.name()));
        expect_values(run("Round", {x}, {{"mode", std::string("half_away_from_zero")}}), away, 0.0,
                      "half_away_from_zero " + std::string(type.name()));
    }
    // f16/bf16: halves that the type holds exactly.
    for (const element::Type type : {element::f16, element::bf16}) {
        const Tensor x = make_tensor(type, {4}, std::vector<double>{-2.5, 0.5, 1.5, 6.5});
        expect_values(run("Round", {x}), {-2, 0, 2, 6}, 0.0, std::string(type.name()));
        expect_values(run("Round", {x}, {{"mode", std::string("half_away_from_zero")}}),
                      {-3, 1, 2, 7}, 0.0, std::string(type.name()));
    }
    // Large values are already integers; NaN and infinities pass through; integers unchanged.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    expect_values(run("Round", {f32({4}, {16777216, nan, inf, -inf})}), {16777216, nan, inf, -inf},
                  0.0);
    const Tensor i = make_tensor(element::i8, {3}, std::vector<int64_t>{-128, 5, 127});
    EXPECT_EQ(ints_of(run("Round", {i})), (std::vector<int64_t>{-128, 5, 127}));
}

TEST(Selu, ScalesBothBranches) {
    const double alpha = 1.67326, lambda = 1.0507;
    const std::vector<double> in{-3, -0.5, 0, 0.25, 4};
    for (const element::Type type : real_types()) {
        const Tensor x = make_tensor(type, {5}, in);
        const Tensor a = make_tensor(type, {1}, std::vector<double>{alpha});
        const Tensor l = make_tensor(type, {}, std::vector<double>{lambda});
        const double av = values_of(a)[0], lv = values_of(l)[0];
        std::vector<double> expected;
        for (double v : values_of(x))
            expected.push_back(v > 0 ? lv * v : lv * av * (std::exp(v) - 1));
        expect_values(run("Selu", {x, a, l}), expected, -1, std::string(type.name()));
    }
    // alpha of two elements is rejected (a dynamic shape lets the node be made; the kernel checks).
    const auto data = op::parameter(element::f32, PartialShape{2});
    const auto dyn = op::parameter(element::f32, PartialShape::dynamic(1));
    const NodePtr node = make_node("Selu", {data, dyn, dyn});
    try {
        evaluate(*node, {f32({2}, {1, 2}), f32({2}, {1, 1}), f32({1}, {1})});
        ADD_FAILURE() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("Selu"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("alpha"), std::string::npos) << e.what();
    }
}

TEST(ClassTests, IsInfIsNaNIsFinite) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> in{-inf, -1, 0, nan, 3.5, inf};
    for (const element::Type type : real_types()) {
        SCOPED_TRACE(type.name());
        const Tensor x = make_tensor(type, {2, 3}, in);
        const Tensor is_inf = run("IsInf", {x});
        EXPECT_EQ(is_inf.get_element_type(), element::boolean);
        EXPECT_EQ(is_inf.get_shape(), (Shape{2, 3}));
        EXPECT_EQ(ints_of(is_inf), (std::vector<int64_t>{1, 0, 0, 0, 0, 1}));
        EXPECT_EQ(ints_of(run("IsInf", {x}, {{"detect_negative", false}})),
                  (std::vector<int64_t>{0, 0, 0, 0, 0, 1}));
        EXPECT_EQ(ints_of(run("IsInf", {x}, {{"detect_positive", false}})),
                  (std::vector<int64_t>{1, 0, 0, 0, 0, 0}));
        EXPECT_EQ(
            ints_of(run("IsInf", {x}, {{"detect_positive", false}, {"detect_negative", false}})),
            (std::vector<int64_t>{0, 0, 0, 0, 0, 0}));
        EXPECT_EQ(ints_of(run("IsNaN", {x})), (std::vector<int64_t>{0, 0, 0, 1, 0, 0}));
        EXPECT_EQ(ints_of(run("IsFinite", {x})), (std::vector<int64_t>{0, 1, 1, 0, 1, 0}));
    }
    // Empty input: empty boolean output.
    EXPECT_EQ(run("IsNaN", {f32({0, 3}, {})}).get_shape(), (Shape{0, 3}));
}

}  // namespace
}  // namespace vireo::reference::test
