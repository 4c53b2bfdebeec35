// Shape inference of the reductions: keep_dims, negative and repeated axes, unknown axes values.
#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

const std::vector<std::pair<std::string, int>> kReductions{
    {"ReduceMean", 1}, {"ReduceSum", 1}, {"ReduceMax", 1}, {"ReduceMin", 1},
    {"ReduceProd", 1}, {"ReduceL1", 4},  {"ReduceL2", 4}};

NodePtr reduce(const std::string& type, int version, const Output& x, const Output& axes,
               bool keep) {
    return make_node(type, {x, axes}, {{"keep_dims", keep}}, version);
}

TEST(Reductions, ConstantAxes) {
    for (const auto& [type, version] : kReductions) {
        SCOPED_TRACE(type);
        auto x = param("2,3,4,5");
        EXPECT_EQ(shape_of(reduce(type, version, x, i64({1, 3}), false)), "[2,4]");
        EXPECT_EQ(shape_of(reduce(type, version, x, i64({1, 3}), true)), "[2,1,4,1]");
        EXPECT_EQ(shape_of(reduce(type, version, x, i64({-1}), false)), "[2,3,4]");
        EXPECT_EQ(shape_of(reduce(type, version, x, i64_scalar(1), false)), "[2,4,5]");
        EXPECT_EQ(shape_of(reduce(type, version, x, i64({1, -3}), false)), "[2,4,5]");
        EXPECT_EQ(shape_of(reduce(type, version, x, i64({0, 1, 2, 3}), false)), "[]");
        EXPECT_EQ(shape_of(reduce(type, version, x, i32({}), true)), "[2,3,4,5]");
        EXPECT_EQ(shape_of(reduce(type, version, param("?,3,1..4"), i64({1}), false)), "[?,1..4]");
    }
}

TEST(Reductions, UnknownAxesValuesGiveDynamicDimensions) {
    auto x = param("2,3,4,5");
    EXPECT_EQ(shape_of(op::reduce_mean(x, param("2", element::i64), false)), "[?,?]");
    EXPECT_EQ(shape_of(op::reduce_mean(x, param("2", element::i64), true)), "[?,?,?,?]");
    EXPECT_EQ(shape_of(op::reduce_mean(x, param("?", element::i64), false)), "[...]");
    EXPECT_EQ(shape_of(op::reduce_mean(param("..."), i64({1}), true)), "[...]");
}

TEST(Reductions, ErrorsNameTheNodeAndTheAxis) {
    for (const auto& [type, version] : kReductions) {
        SCOPED_TRACE(type);
        expect_invalid([&] { reduce(type, version, param("2,3"), i64({2}), false); },
                       {type + " '", "axes 2", "[-2, 1]"});
    }
    expect_invalid([] { op::reduce_sum(param("2,3"), param("1", element::f32)); },
                   {"ReduceSum '", "axes", "integer"});
    expect_invalid([] { op::reduce_sum(param("2,3"), param("1,1", element::i64)); },
                   {"ReduceSum '", "axes", "rank"});
    expect_invalid([] { op::reduce_sum(param("2,3", element::boolean), i64({0})); },
                   {"ReduceSum '", "boolean"});
}

TEST(Reductions, LogicalOnesNeedBoolean) {
    for (const char* type : {"ReduceLogicalAnd", "ReduceLogicalOr"}) {
        auto node =
            make_node(type, {param("2,3", element::boolean), i64({0})}, {{"keep_dims", true}});
        EXPECT_EQ(shape_of(node), "[1,3]");
        expect_invalid(
            [&] {
                make_node(type, {param("2,3"), i64({0})});
            },
            {std::string(type) + " '", "boolean"});
    }
}

TEST(Reductions, KeepDimsDefaultsToFalse) {
    auto node = make_node("ReduceMax", {param("2,3"), i64({0})});
    EXPECT_FALSE(node->get_attribute<bool>("keep_dims"));
    EXPECT_EQ(shape_of(node), "[3]");
}

}  // namespace
}  // namespace vireo::test
