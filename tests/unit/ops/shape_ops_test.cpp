// Shape inference of Reshape, Transpose, Squeeze, Unsqueeze and Concat, including value-driven
// shapes from constants and re-inference with run-time values.
#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

struct ReshapeCase {
    std::string data;
    std::vector<int64_t> target;
    bool special_zero;
    std::string expected;
};

class ReshapeShapes : public ::testing::TestWithParam<ReshapeCase> {};

TEST_P(ReshapeShapes, FromConstantTarget) {
    const auto& c = GetParam();
    EXPECT_EQ(shape_of(op::reshape(param(c.data), i64(c.target), c.special_zero)), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Ops, ReshapeShapes,
                         ::testing::Values(ReshapeCase{"2,3,4", {6, 4}, false, "[6,4]"},
                                           ReshapeCase{"2,3,4", {-1, 4}, false, "[6,4]"},
                                           ReshapeCase{"2,3,4", {0, -1}, true, "[2,12]"},
                                           ReshapeCase{"2,3,4", {0, 0, 4}, true, "[2,3,4]"},
                                           ReshapeCase{"2,3,4", {24}, false, "[24]"},
                                           ReshapeCase{"0,3", {0}, false, "[0]"},
                                           ReshapeCase{"0,3", {-1, 3}, false, "[0,3]"},
                                           ReshapeCase{"?,3,4", {0, -1}, true, "[?,12]"},
                                           ReshapeCase{"?,3,4", {-1, 12}, false, "[?,12]"},
                                           ReshapeCase{"2..4,3,4", {-1, 12}, false, "[2..4,12]"},
                                           ReshapeCase{"...", {2, -1}, false, "[2,?]"},
                                           ReshapeCase{"1", {}, false, "[]"}));

TEST(Reshape, UnknownTargetValuesGiveItsLength) {
    EXPECT_EQ(shape_of(op::reshape(param("2,3,4"), param("3", element::i64), false)), "[?,?,?]");
    EXPECT_EQ(shape_of(op::reshape(param("2,3,4"), param("?", element::i64), false)), "[...]");
}

// A target computed from shapes (what exporters write: a head split of [batch, seq, 768] into
// [batch, seq, 12, 64]) keeps what the graph knows of it: dimensions of ShapeOf that are static,
// constants, and arithmetic of known values; the unknown ones stay dynamic.
TEST(Reshape, TargetsComputedFromShapesKeepTheirKnownDimensions) {
    auto x = param("?,?,768");
    auto dims = [&](std::vector<int64_t> axes) {
        return op::gather(op::shape_of(x), i64(axes), i64({0}));
    };
    // Concat(ShapeOf(x)[0:2], [12, 64])
    EXPECT_EQ(shape_of(op::reshape(x, op::concat({dims({0, 1}), i64({12, 64})}, 0), false)),
              "[?,?,12,64]");
    // The head size computed: ShapeOf(x)[2] / 12, through Unsqueeze and Convert.
    auto scalar = [](int64_t v) {
        return op::constant(element::i64, Shape{}, std::vector<int64_t>{v});
    };
    auto head = op::unsqueeze(op::divide(op::squeeze(dims({2})), scalar(12)), i64({0}));
    EXPECT_EQ(shape_of(op::reshape(x, op::concat({dims({0, 1}), i64({12}), head}, 0), false)),
              "[?,?,12,64]");
    // special_zero's 0 copies the data's dimension; -1 next to unknown ones stays dynamic.
    EXPECT_EQ(shape_of(op::reshape(x, op::concat({i64({0, 0}), dims({0}), i64({-1})}, 0), true)),
              "[?,?,?,?]");
    auto y = param("2,?,6");
    EXPECT_EQ(shape_of(op::reshape(y, op::concat({i64({0}), dims({1}), i64({3, 2})}, 0), true)),
              "[2,?,3,2]");
    // A division that is not exact is not guessed (floor and truncation could differ).
    auto odd = op::divide(op::squeeze(dims({2})), scalar(7));
    EXPECT_EQ(
        shape_of(op::reshape(x, op::concat({dims({0}), op::unsqueeze(odd, i64({0}))}, 0), false)),
        "[?,?]");
    // Nothing known: as before, the target's length.
    EXPECT_EQ(shape_of(op::reshape(x, dims({0, 1}), false)), "[?,?]");
    // Broadcast's target shape too.
    EXPECT_EQ(shape_of(op::broadcast(param("1,64"), op::concat({dims({0}), i64({64})}, 0))),
              "[?,64]");
}

// A target graph that branches at every level (each level adds the last to itself: the walk
// doubles) is followed only within a budget of producers, so a hostile model costs no more than
// a few hundred visits per Reshape: five levels are known, six are past the budget (not the
// depth limit) and stay dynamic.
TEST(Reshape, TargetsAreFollowedWithinABudget) {
    auto x = param("?,?,768");
    auto doubled = [&](int levels) {
        Output t = op::gather(op::shape_of(x), i64({2}), i64({0}));
        for (int i = 0; i < levels; ++i) t = op::add(t, t);
        return t;
    };
    EXPECT_EQ(shape_of(op::reshape(param("?"), doubled(5), false)), "[24576]");
    EXPECT_EQ(shape_of(op::reshape(param("?"), doubled(6), false)), "[?]");
}

TEST(Reshape, Errors) {
    expect_invalid(
        [] {
            op::reshape(param("2,3"), i64({-1, -1}), false);
        },
        {"Reshape '", "more than one -1"});
    expect_invalid(
        [] {
            op::reshape(param("2,3"), i64({4, 2}), false);
        },
        {"Reshape '", "[2,3]", "[4,2]", "6 vs 8"});
    expect_invalid(
        [] {
            op::reshape(param("2,3"), i64({-1, 4}), false);
        },
        {"Reshape '", "not divisible"});
    expect_invalid(
        [] {
            op::reshape(param("6"), i64({2, 0}), true);
        },
        {"Reshape '", "copies axis 1", "rank 1"});
    expect_invalid([] { op::reshape(param("6"), i64({2, -3}), false); }, {"Reshape '", "-3"});
    expect_invalid(
        [] {
            make_node("Reshape", {param("6"), i64({6})});
        },
        {"Reshape '", "special_zero", "missing"});
}

TEST(Reshape, RunTimeValuesGiveStaticShape) {
    // A plugin re-infers with every input's value; the same function must give the exact shape.
    auto target = param("2", element::i64);
    auto node = op::reshape(param("?,3,4"), target, true);
    EXPECT_EQ(shape_of(node), "[?,?]");
    Tensor value(element::i64, Shape{2});
    value.data<int64_t>()[0] = 0;
    value.data<int64_t>()[1] = -1;
    std::vector<InferInput> inputs{{element::f32, PartialShape{5, 3, 4}, {}},
                                   {element::i64, PartialShape{2}, value}};
    auto outs = node->get_op_def().infer(*node, inputs);
    ASSERT_EQ(outs.size(), 1u);
    EXPECT_EQ(outs[0].shape.to_string(), "[5,12]");
}

TEST(Transpose, PermutesReversesOrLeavesRank) {
    EXPECT_EQ(shape_of(op::transpose(param("2,3,4"), i64({2, 0, 1}))), "[4,2,3]");
    EXPECT_EQ(shape_of(op::transpose(param("2,?,4"), i64({}))), "[4,?,2]");
    EXPECT_EQ(shape_of(op::transpose(param("2,3,4"), param("3", element::i64))), "[?,?,?]");
    EXPECT_EQ(shape_of(op::transpose(param("..."), i64({1, 0}))), "[?,?]");
    expect_invalid(
        [] {
            op::transpose(param("2,3,4"), i64({0, 0, 1}));
        },
        {"Transpose '", "[0,0,1]", "permutation"});
    expect_invalid(
        [] {
            op::transpose(param("2,3,4"), i64({1, 0}));
        },
        {"Transpose '", "[1,0]", "rank 3"});
}

TEST(Squeeze, WithAndWithoutAxes) {
    EXPECT_EQ(shape_of(op::squeeze(param("1,3,1,4"))), "[3,4]");
    EXPECT_EQ(shape_of(op::squeeze(param("1,3,1,4"), i64({0}))), "[3,1,4]");
    EXPECT_EQ(shape_of(op::squeeze(param("1,3,1,4"), i64({-2, 0}))), "[3,4]");
    EXPECT_EQ(shape_of(op::squeeze(param("?,3"), i64({0}))), "[3]");
    EXPECT_EQ(shape_of(op::squeeze(param("?,3"))), "[...]");
    EXPECT_EQ(shape_of(op::squeeze(param("2..5,3"))), "[2..5,3]");
    EXPECT_EQ(shape_of(op::squeeze(param("1,3,1,4"), param("1", element::i64))), "[?,?,?]");
    expect_invalid([] { op::squeeze(param("1,3,1"), i64({1})); },
                   {"Squeeze '", "axis 1", "[1,3,1]", "not 1"});
    expect_invalid([] { op::squeeze(param("1,3,1"), i64({3})); }, {"Squeeze '", "axes 3"});
}

TEST(Unsqueeze, InsertsOnesAtOutputAxes) {
    EXPECT_EQ(shape_of(op::unsqueeze(param("3,4"), i64({0, 3}))), "[1,3,4,1]");
    EXPECT_EQ(shape_of(op::unsqueeze(param("3,4"), i64({-1}))), "[3,4,1]");
    EXPECT_EQ(shape_of(op::unsqueeze(param("?,4"), i64_scalar(1))), "[?,1,4]");
    EXPECT_EQ(shape_of(op::unsqueeze(param(""), i64({0}))), "[1]");
    EXPECT_EQ(shape_of(op::unsqueeze(param("3,4"), param("2", element::i64))), "[?,?,?,?]");
    expect_invalid(
        [] {
            op::unsqueeze(param("3,4"), i64({1, 1}));
        },
        {"Unsqueeze '", "repeats axis 1"});
    expect_invalid([] { op::unsqueeze(param("3,4"), i64({5})); },
                   {"Unsqueeze '", "axes 5", "[-3, 2]"});
}

TEST(Concat, SumsTheAxisAndMergesTheRest) {
    EXPECT_EQ(shape_of(op::concat({param("2,3"), param("4,3")}, 0)), "[6,3]");
    EXPECT_EQ(shape_of(op::concat({param("2,3"), param("2,5"), param("2,1")}, -1)), "[2,9]");
    EXPECT_EQ(shape_of(op::concat({param("2,?"), param("?,3")}, 0)), "[2..,3]");
    EXPECT_EQ(shape_of(op::concat({param("1..2,3"), param("4,3")}, 0)), "[5..6,3]");
    EXPECT_EQ(shape_of(op::concat({param("..."), param("2,3")}, 0)), "[2..,3]");
    EXPECT_EQ(shape_of(op::concat({param("..."), param("...")}, 0)), "[...]");
    EXPECT_EQ(shape_of(op::concat({param("7")}, 0)), "[7]");
}

TEST(Concat, Errors) {
    expect_invalid(
        [] {
            op::concat({param("2,3"), param("2,3,1")}, 0);
        },
        {"Concat '", "input 1", "[2,3,1]", "rank"});
    expect_invalid(
        [] {
            op::concat({param("2,3"), param("2,4")}, 0);
        },
        {"Concat '", "[2,4]", "[2,3]", "axis 0"});
    expect_invalid(
        [] {
            op::concat({param("2,3"), param("2,3", element::i32)}, 0);
        },
        {"Concat '", "f32", "i32"});
    expect_invalid([] { op::concat({param("2,3")}, 2); }, {"Concat '", "axis 2"});
    expect_invalid([] { op::concat({param("")}, 0); }, {"Concat '", "scalar"});
}

}  // namespace
}  // namespace vireo::test
