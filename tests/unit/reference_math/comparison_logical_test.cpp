// Tests the comparison kernels (every type, NaN, broadcasting), the logical kernels and Select
// (three-way numpy broadcast, pdpd, every element size).
#include "math_test_util.hpp"

namespace vireo::reference::test {
namespace {

TEST(Comparison, EveryTypeAndOperator) {
    const std::vector<double> a{1, 2, 3, 0, 5, 5}, b{2, 2, 1, 0, 0, 6};
    const std::vector<std::pair<std::string, bool (*)(double, double)>> ops{
        {"Equal", [](double x, double y) { return x == y; }},
        {"NotEqual", [](double x, double y) { return x != y; }},
        {"Less", [](double x, double y) { return x < y; }},
        {"LessEqual", [](double x, double y) { return x <= y; }},
        {"Greater", [](double x, double y) { return x > y; }},
        {"GreaterEqual", [](double x, double y) { return x >= y; }},
    };
    std::vector<element::Type> types = numeric_types();
    types.push_back(element::boolean);
    for (const element::Type type : types) {
        std::vector<double> va = a, vb = b;
        if (type == element::boolean)
            for (size_t i = 0; i < va.size(); ++i) va[i] = va[i] != 0, vb[i] = vb[i] != 0;
        for (const auto& [name, fn] : ops) {
            std::vector<double> expected;
            for (size_t i = 0; i < va.size(); ++i) expected.push_back(fn(va[i], vb[i]) ? 1 : 0);
            const Tensor out = run(name, {make_tensor(type, {6}, va), make_tensor(type, {6}, vb)});
            EXPECT_EQ(out.get_element_type(), element::boolean);
            expect_values(out, expected, 0.0, name + " " + std::string(type.name()));
        }
    }
}

TEST(Comparison, NanComparesUnequalToEverything) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (const element::Type type : real_types()) {
        const Tensor a = make_tensor(type, {3}, std::vector<double>{nan, nan, inf});
        const Tensor b = make_tensor(type, {3}, std::vector<double>{nan, 1, inf});
        EXPECT_EQ(ints_of(run("Equal", {a, b})), (std::vector<int64_t>{0, 0, 1})) << type;
        EXPECT_EQ(ints_of(run("NotEqual", {a, b})), (std::vector<int64_t>{1, 1, 0})) << type;
        EXPECT_EQ(ints_of(run("Less", {a, b})), (std::vector<int64_t>{0, 0, 0})) << type;
        EXPECT_EQ(ints_of(run("GreaterEqual", {a, b})), (std::vector<int64_t>{0, 0, 1})) << type;
    }
}

TEST(Comparison, BroadcastsAndComparesSignedCorrectly) {
    // [2,3] < [3]: per-column thresholds; i8 negative values stay negative.
    const Tensor a = make_tensor(element::i8, {2, 3}, std::vector<int64_t>{-128, 0, 127, 5, -5, 1});
    const Tensor b = make_tensor(element::i8, {3}, std::vector<int64_t>{0, 0, 1});
    EXPECT_EQ(ints_of(run("Less", {a, b})), (std::vector<int64_t>{1, 0, 0, 0, 1, 0}));
    const Tensor big = make_tensor(element::u64, {1}, std::vector<uint64_t>{~0ULL});
    const Tensor one = make_tensor(element::u64, {1}, std::vector<uint64_t>{1});
    EXPECT_EQ(ints_of(run("Greater", {big, one})), (std::vector<int64_t>{1}));
}

TEST(Logical, TruthTablesAndBroadcast) {
    const Tensor a = make_tensor(element::boolean, {4}, std::vector<int64_t>{0, 0, 1, 1});
    const Tensor b = make_tensor(element::boolean, {4}, std::vector<int64_t>{0, 1, 0, 1});
    EXPECT_EQ(ints_of(run("LogicalAnd", {a, b})), (std::vector<int64_t>{0, 0, 0, 1}));
    EXPECT_EQ(ints_of(run("LogicalOr", {a, b})), (std::vector<int64_t>{0, 1, 1, 1}));
    EXPECT_EQ(ints_of(run("LogicalXor", {a, b})), (std::vector<int64_t>{0, 1, 1, 0}));
    EXPECT_EQ(ints_of(run("LogicalNot", {a})), (std::vector<int64_t>{1, 1, 0, 0}));
    // [2,1] and [1,2] -> [2,2]
    const Tensor c = make_tensor(element::boolean, {2, 1}, std::vector<int64_t>{0, 1});
    const Tensor d = make_tensor(element::boolean, {1, 2}, std::vector<int64_t>{0, 1});
    EXPECT_EQ(ints_of(run("LogicalOr", {c, d})), (std::vector<int64_t>{0, 1, 1, 1}));
    EXPECT_EQ(ints_of(run("LogicalAnd", {c, d})), (std::vector<int64_t>{0, 0, 0, 1}));
}

TEST(Select, SameShapeEveryElementSize) {
    const Tensor cond = make_tensor(element::boolean, {4}, std::vector<int64_t>{1, 0, 0, 1});
    for (const element::Type type :
         {element::boolean, element::i8, element::f16, element::f32, element::i64, element::f64}) {
        const Tensor t = make_tensor(type, {4}, std::vector<double>{1, 1, 1, 1});
        const Tensor e = make_tensor(type, {4}, std::vector<double>{0, 0, 0, 0});
        expect_values(run("Select", {cond, t, e}), {1, 0, 0, 1}, 0.0, std::string(type.name()));
    }
}

TEST(Select, NumpyBroadcastOfThreeInputs) {
    // cond [2,1,1], then [1,3,1], else [4] -> out [2,3,4]
    const Tensor cond = make_tensor(element::boolean, {2, 1, 1}, std::vector<int64_t>{1, 0});
    const Tensor then_v = f32({1, 3, 1}, {10, 20, 30});
    const Tensor else_v = f32({4}, {-1, -2, -3, -4});
    std::vector<double> expected;
    for (size_t i = 0; i < 2; ++i)
        for (size_t j = 0; j < 3; ++j)
            for (size_t k = 0; k < 4; ++k) expected.push_back(i == 0 ? 10.0 * (j + 1) : -(k + 1.0));
    const Tensor out = run("Select", {cond, then_v, else_v});
    EXPECT_EQ(out.get_shape(), (Shape{2, 3, 4}));
    expect_values(out, expected, 0.0);
}

TEST(Select, PdpdBroadcastIntoThen) {
    // then [2,3] gives the output shape; else [3] is aligned with its last axis.
    const Tensor then_v = f32({2, 3}, {1, 2, 3, 4, 5, 6});
    const Tensor else_v = f32({3}, {-1, -2, -3});
    const Tensor cond =
        make_tensor(element::boolean, {2, 3}, std::vector<int64_t>{1, 0, 1, 0, 1, 0});
    expect_values(run("Select", {cond, then_v, else_v}, {{"auto_broadcast", std::string("pdpd")}}),
                  {1, -2, 3, -1, 5, -3}, 0.0);
}

TEST(Select, NaNValuesAreCopiedBitExact) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Tensor cond = make_tensor(element::boolean, {2}, std::vector<int64_t>{1, 0});
    expect_values(run("Select", {cond, f32({2}, {nan, 0}), f32({2}, {0, nan})}), {nan, nan});
}

}  // namespace
}  // namespace vireo::reference::test
