// Tests the binary arithmetic kernels (Add, Subtract, Multiply, Divide, Power, Maximum, Minimum,
// SquaredDifference, Mod, FloorMod): every numeric type, broadcasting, wrap-around, edge values.
#include "math_test_util.hpp"

namespace vireo::reference::test {
namespace {

struct BinaryCase {
    std::string op;
    double (*expected)(double, double);
};

// Small operands whose results fit every numeric type (unsigned ones included), so one plain
// formula in double gives the expected value for all types.
const std::vector<double> kA{1, 2, 3, 4, 6, 8, 9, 12};
const std::vector<double> kB{1, 2, 1, 3, 2, 4, 3, 5};

TEST(BinaryArithmetic, EveryNumericTypeSameShape) {
    const std::vector<BinaryCase> cases{
        {"Add", [](double a, double b) { return a + b; }},
        {"Subtract",
         [](double a, double b) { return a - b; }},  // a >= b in the data: fits unsigned
        {"Multiply", [](double a, double b) { return a * b; }},
        {"Maximum", [](double a, double b) { return std::max(a, b); }},
        {"Minimum", [](double a, double b) { return std::min(a, b); }},
        {"SquaredDifference", [](double a, double b) { return (a - b) * (a - b); }},
        {"Mod", [](double a, double b) { return std::fmod(a, b); }},
        {"FloorMod", [](double a, double b) { return std::fmod(a, b); }},
    };
    for (const element::Type type : numeric_types()) {
        for (const auto& c : cases) {
            std::vector<double> expected;
            for (size_t i = 0; i < kA.size(); ++i) expected.push_back(c.expected(kA[i], kB[i]));
            const Tensor out =
                run(c.op, {make_tensor(type, {2, 4}, kA), make_tensor(type, {2, 4}, kB)});
            EXPECT_EQ(out.get_element_type(), type);
            EXPECT_EQ(out.get_shape(), (Shape{2, 4}));
            expect_values(out, expected, -1, c.op + " " + std::string(type.name()));
        }
    }
}

TEST(BinaryArithmetic, DivideAndPowerEveryType) {
    const std::vector<double> a{8, 9, 7, 1, 0, 6}, b{2, 3, 2, 4, 5, 1};
    const std::vector<double> pa{2, 3, 1, 5, 0, 2}, pb{3, 2, 7, 0, 3, 6};
    for (const element::Type type : numeric_types()) {
        std::vector<double> div, pw;
        for (size_t i = 0; i < a.size(); ++i) {
            div.push_back(type.is_real() ? a[i] / b[i] : std::floor(a[i] / b[i]));
            pw.push_back(std::pow(pa[i], pb[i]));
        }
        expect_values(run("Divide", {make_tensor(type, {6}, a), make_tensor(type, {6}, b)}), div,
                      -1, std::string("Divide ") + std::string(type.name()));
        expect_values(run("Power", {make_tensor(type, {6}, pa), make_tensor(type, {6}, pb)}), pw,
                      -1, std::string("Power ") + std::string(type.name()));
    }
}

TEST(BinaryArithmetic, RealResultsRoundOnceForHalfTypes) {
    // 1/3 computed in float and rounded once to f16/bf16.
    for (const element::Type type : {element::f16, element::bf16}) {
        const Tensor out = run("Divide", {make_tensor(type, {1}, std::vector<double>{1}),
                                          make_tensor(type, {1}, std::vector<double>{3})});
        const double got = values_of(out)[0];
        const double want = type == element::f16 ? static_cast<float>(float16(1.0f / 3.0f))
                                                 : static_cast<float>(bfloat16(1.0f / 3.0f));
        EXPECT_EQ(got, want) << type;
    }
}

TEST(BinaryArithmetic, NumpyBroadcastBothSides) {
    // [2,1,3] + [4,1] -> [2,4,3]
    std::vector<double> a(6), b(4);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i) * 10;
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>(i) + 0.5;
    std::vector<double> expected;
    for (size_t i = 0; i < 2; ++i)
        for (size_t j = 0; j < 4; ++j)
            for (size_t k = 0; k < 3; ++k) expected.push_back(a[i * 3 + k] + b[j]);
    const Tensor out = run("Add", {f32({2, 1, 3}, a), f32({4, 1}, b)});
    EXPECT_EQ(out.get_shape(), (Shape{2, 4, 3}));
    expect_values(out, expected);
    // Swapped operands: the broadcast goes the other way round.
    const Tensor swapped = run("Subtract", {f32({4, 1}, b), f32({2, 1, 3}, a)});
    std::vector<double> expected_sub;
    for (size_t i = 0; i < 2; ++i)
        for (size_t j = 0; j < 4; ++j)
            for (size_t k = 0; k < 3; ++k) expected_sub.push_back(b[j] - a[i * 3 + k]);
    expect_values(swapped, expected_sub);
}

TEST(BinaryArithmetic, NumpyBroadcastPerChannelAndScalar) {
    // [1,3,2,2] * [1,3,1,1] (a per-channel scale), and * a scalar on either side.
    std::vector<double> x(12);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i) - 5;
    const std::vector<double> s{2, -1, 0.5};
    std::vector<double> expected(12);
    for (size_t c = 0; c < 3; ++c)
        for (size_t k = 0; k < 4; ++k) expected[c * 4 + k] = x[c * 4 + k] * s[c];
    expect_values(run("Multiply", {f32({1, 3, 2, 2}, x), f32({1, 3, 1, 1}, s)}), expected);

    std::vector<double> scaled(12);
    for (size_t i = 0; i < 12; ++i) scaled[i] = x[i] * 3;
    expect_values(run("Multiply", {f32({1, 3, 2, 2}, x), f32({}, {3})}), scaled);
    expect_values(run("Multiply", {f32({}, {3}), f32({1, 3, 2, 2}, x)}), scaled);
    std::vector<double> minus(12);
    for (size_t i = 0; i < 12; ++i) minus[i] = 3 - x[i];
    expect_values(run("Subtract", {f32({1}, {3}), f32({1, 3, 2, 2}, x)}), minus);
}

TEST(BinaryArithmetic, PdpdBroadcastAlignsRightAndIgnoresTrailingOnes) {
    // A [2,3,4], B [3,1]: pdpd places B at axis 1 (rank 3 - rank 2) and drops its trailing 1.
    std::vector<double> a(24);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i);
    const std::vector<double> b{100, 200, 300};
    std::vector<double> expected;
    for (size_t i = 0; i < 2; ++i)
        for (size_t j = 0; j < 3; ++j)
            for (size_t k = 0; k < 4; ++k) expected.push_back(a[(i * 3 + j) * 4 + k] + b[j]);
    const Tensor out =
        run("Add", {f32({2, 3, 4}, a), f32({3, 1}, b)}, {{"auto_broadcast", std::string("pdpd")}});
    EXPECT_EQ(out.get_shape(), (Shape{2, 3, 4}));
    expect_values(out, expected);

    // B [4] aligns with the last axis.
    const std::vector<double> c{1, 2, 3, 4};
    std::vector<double> expected_c;
    for (size_t i = 0; i < 24; ++i) expected_c.push_back(a[i] * c[i % 4]);
    expect_values(run("Multiply", {f32({2, 3, 4}, a), f32({4}, c)},
                      {{"auto_broadcast", std::string("pdpd")}}),
                  expected_c);
}

TEST(BinaryArithmetic, NoneBroadcastNeedsEqualShapes) {
    const std::vector<double> a{1, 2, 3}, b{4, 5, 6};
    expect_values(run("Add", {f32({3}, a), f32({3}, b)}, {{"auto_broadcast", std::string("none")}}),
                  {5, 7, 9});
    // Shape inference rejects mismatched shapes before the kernel runs.
    EXPECT_THROW(
        run("Add", {f32({3}, a), f32({1}, {1})}, {{"auto_broadcast", std::string("none")}}),
        InvalidArgument);
}

TEST(BinaryArithmetic, SameKernelRunsOnDifferentShapes) {
    // One node with dynamic shapes, one kernel, executed on two shape pairs.
    const NodePtr node = make_node("Add", {op::parameter(element::f32, PartialShape::dynamic()),
                                           op::parameter(element::f32, PartialShape::dynamic())});
    const auto kernel = KernelRegistry::instance().create(*node);
    {
        std::vector<Tensor> out{Tensor(element::f32, Shape{2, 2})};
        kernel->execute({f32({2, 2}, {1, 2, 3, 4}), f32({2}, {10, 20})}, out);
        expect_values(out[0], {11, 22, 13, 24});
    }
    {
        std::vector<Tensor> out{Tensor(element::f32, Shape{3, 1})};
        kernel->execute({f32({3, 1}, {1, 2, 3}), f32({}, {0.5})}, out);
        expect_values(out[0], {1.5, 2.5, 3.5});
    }
}

TEST(BinaryArithmetic, IntegerOverflowWraps) {
    const Tensor a = make_tensor(element::i8, {3}, std::vector<int64_t>{127, -128, 100});
    const Tensor b = make_tensor(element::i8, {3}, std::vector<int64_t>{1, -1, 2});
    EXPECT_EQ(ints_of(run("Add", {a, b})), (std::vector<int64_t>{-128, 127, 102}));
    EXPECT_EQ(ints_of(run("Subtract", {a, b})), (std::vector<int64_t>{126, -127, 98}));
    EXPECT_EQ(ints_of(run("Multiply", {a, b})),
              (std::vector<int64_t>{127, -128, -56}));  // 200 wraps to -56

    const Tensor u = make_tensor(element::u8, {2}, std::vector<int64_t>{250, 3});
    const Tensor v = make_tensor(element::u8, {2}, std::vector<int64_t>{10, 5});
    EXPECT_EQ(ints_of(run("Add", {u, v})), (std::vector<int64_t>{4, 8}));
    EXPECT_EQ(ints_of(run("Subtract", {u, v})), (std::vector<int64_t>{240, 254}));

    // u16 * u16 would overflow int if promoted naively: 65535 * 65535 mod 2^16 == 1.
    const Tensor w = make_tensor(element::u16, {1}, std::vector<int64_t>{65535});
    EXPECT_EQ(ints_of(run("Multiply", {w, w})), (std::vector<int64_t>{1}));

    const int64_t big = std::numeric_limits<int64_t>::max();
    const Tensor i = make_tensor(element::i64, {1}, std::vector<int64_t>{big});
    EXPECT_EQ(ints_of(run("Add", {i, make_tensor(element::i64, {1}, std::vector<int64_t>{1})})),
              (std::vector<int64_t>{std::numeric_limits<int64_t>::min()}));
    EXPECT_EQ(ints_of(run("Power", {make_tensor(element::i32, {1}, std::vector<int64_t>{2}),
                                    make_tensor(element::i32, {1}, std::vector<int64_t>{33})})),
              (std::vector<int64_t>{0}));  // 2^33 mod 2^32
}

TEST(BinaryArithmetic, IntegerDivisionTruncatesOrFloors) {
    const Tensor a = make_tensor(element::i32, {6}, std::vector<int64_t>{7, -7, 7, -7, 6, -6});
    const Tensor b = make_tensor(element::i32, {6}, std::vector<int64_t>{2, 2, -2, -2, 3, 3});
    EXPECT_EQ(ints_of(run("Divide", {a, b}, {{"m_pythondiv", true}})),
              (std::vector<int64_t>{3, -4, -4, 3, 2, -2}));
    EXPECT_EQ(ints_of(run("Divide", {a, b}, {{"m_pythondiv", false}})),
              (std::vector<int64_t>{3, -3, -3, 3, 2, -2}));
    EXPECT_EQ(ints_of(run("Mod", {a, b})), (std::vector<int64_t>{1, -1, 1, -1, 0, 0}));
    EXPECT_EQ(ints_of(run("FloorMod", {a, b})), (std::vector<int64_t>{1, 1, -1, -1, 0, 0}));
}

TEST(BinaryArithmetic, IntegerDivisionByZeroGivesZeroAndMinOverMinusOneWraps) {
    const int32_t min = std::numeric_limits<int32_t>::min();
    const Tensor a = make_tensor(element::i32, {4}, std::vector<int64_t>{5, -5, 0, min});
    const Tensor b = make_tensor(element::i32, {4}, std::vector<int64_t>{0, 0, 0, -1});
    for (const bool python : {true, false})
        EXPECT_EQ(ints_of(run("Divide", {a, b}, {{"m_pythondiv", python}})),
                  (std::vector<int64_t>{0, 0, 0, min}));
    EXPECT_EQ(ints_of(run("Mod", {a, b})), (std::vector<int64_t>{0, 0, 0, 0}));
    EXPECT_EQ(ints_of(run("FloorMod", {a, b})), (std::vector<int64_t>{0, 0, 0, 0}));
    const Tensor u = make_tensor(element::u8, {2}, std::vector<int64_t>{9, 0});
    EXPECT_EQ(
        ints_of(run("Divide", {u, make_tensor(element::u8, {2}, std::vector<int64_t>{0, 0})})),
        (std::vector<int64_t>{0, 0}));
}

TEST(BinaryArithmetic, IntegerPowerWithNegativeExponent) {
    const Tensor base = make_tensor(element::i32, {5}, std::vector<int64_t>{1, -1, -1, 2, 0});
    const Tensor exp = make_tensor(element::i32, {5}, std::vector<int64_t>{-3, -3, -2, -1, -1});
    EXPECT_EQ(ints_of(run("Power", {base, exp})), (std::vector<int64_t>{1, -1, 1, 0, 0}));
}

TEST(BinaryArithmetic, RealEdgeValuesFollowIeee) {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const element::Type type : real_types()) {
        const Tensor a = make_tensor(type, {5}, std::vector<double>{1, -1, 0, inf, nan});
        const Tensor b = make_tensor(type, {5}, std::vector<double>{0, 0, 0, inf, 1});
        expect_values(run("Divide", {a, b}), {inf, -inf, nan, nan, nan}, -1,
                      std::string(type.name()));
        expect_values(run("Add", {a, b}), {1, -1, 0, inf, nan}, -1, std::string(type.name()));
        expect_values(run("Subtract", {a, b}), {1, -1, 0, nan, nan}, -1, std::string(type.name()));
        // Maximum/Minimum propagate NaN from either side.
        const Tensor c = make_tensor(type, {3}, std::vector<double>{nan, 1, -inf});
        const Tensor d = make_tensor(type, {3}, std::vector<double>{1, nan, 2});
        expect_values(run("Maximum", {c, d}), {nan, nan, 2}, -1, std::string(type.name()));
        expect_values(run("Minimum", {c, d}), {nan, nan, -inf}, -1, std::string(type.name()));
        expect_values(run("Mod", {make_tensor(type, {2}, std::vector<double>{5.5, -5.5}),
                                  make_tensor(type, {2}, std::vector<double>{2, 2})}),
                      {1.5, -1.5}, -1, std::string(type.name()));
        expect_values(run("FloorMod", {make_tensor(type, {2}, std::vector<double>{5.5, -5.5}),
                                       make_tensor(type, {2}, std::vector<double>{2, 2})}),
                      {1.5, 0.5}, -1, std::string(type.name()));
    }
}

TEST(BinaryArithmetic, BooleanIsRejectedByShapeInferenceOrKernel) {
    const Tensor t = make_tensor(element::boolean, {2}, std::vector<int64_t>{1, 0});
    EXPECT_THROW(run("Add", {t, t}), Exception);
}

}  // namespace
}  // namespace vireo::reference::test
