// Shape inference of Gather-1/7/8 (batch_dims, negative axes), GatherElements-6, ScatterUpdate-3.
#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

TEST(Gather, OutputIsDataAroundTheIndicesShape) {
    auto data = param("5,6,7");
    EXPECT_EQ(shape_of(op::gather(data, param("2,3", element::i32), i64_scalar(1))), "[5,2,3,7]");
    EXPECT_EQ(shape_of(op::gather(data, param("", element::i64), i64_scalar(0))), "[6,7]");
    EXPECT_EQ(shape_of(op::gather(data, param("2,3", element::i64), i64_scalar(-1))), "[5,6,2,3]");
    EXPECT_EQ(shape_of(op::gather(data, param("5,3", element::i64), i64_scalar(1), 1)), "[5,3,7]");
    EXPECT_EQ(shape_of(op::gather(data, param("5,3", element::i64), i64_scalar(1), -1)), "[5,3,7]");
    EXPECT_EQ(shape_of(op::gather(param("?,6,7"), param("2..5,3", element::i64), i64_scalar(1), 1)),
              "[2..5,3,7]");
    EXPECT_EQ(shape_of(op::gather(data, param("2,3", element::i64), param("", element::i64))),
              "[?,?,?,?]");
    EXPECT_EQ(shape_of(op::gather(param("..."), param("2", element::i64), i64_scalar(0))), "[...]");
}

TEST(Gather, AllThreeVersionsAreRegistered) {
    auto v1 = make_node("Gather", {param("4,3"), i64({0, 2}), i64_scalar(0)}, {}, 1);
    EXPECT_EQ(shape_of(v1), "[2,3]");
    EXPECT_FALSE(v1->has_attribute("batch_dims"));
    for (int version : {7, 8}) {
        auto node = make_node("Gather", {param("4,3"), i64({0, 2}), i64_scalar(1)}, {}, version);
        EXPECT_EQ(node->get_attribute<int64_t>("batch_dims"), 0);
        EXPECT_EQ(shape_of(node), "[4,2]");
    }
    EXPECT_EQ(OpRegistry::instance().resolve("Gather", "opset7").version, 7);
    EXPECT_EQ(OpRegistry::instance().resolve("Gather", "opset6").version, 1);
}

TEST(Gather, Errors) {
    expect_invalid([] { op::gather(param("5,6"), i64({0}), i64_scalar(2)); },
                   {"Gather '", "axis 2", "[-2, 1]"});
    expect_invalid([] { op::gather(param("5,6,7"), param("5,3", element::i64), i64_scalar(0), 1); },
                   {"Gather '", "batch_dims 1", "axis 0"});
    expect_invalid([] { op::gather(param("5,6,7"), param("4,3", element::i64), i64_scalar(1), 1); },
                   {"Gather '", "batch dimension 0", "[5,6,7]", "[4,3]"});
    expect_invalid([] { op::gather(param("5,6"), param("2", element::f32), i64_scalar(0)); },
                   {"Gather '", "indices", "integer"});
    expect_invalid([] { op::gather(param("5,6"), param("2", element::i64), i64_scalar(0), 3); },
                   {"Gather '", "batch_dims 3"});
}

TEST(GatherElements, OutputHasTheIndicesShape) {
    EXPECT_EQ(shape_of(op::gather_elements(param("3,4"), param("3,2", element::i32), 1)), "[3,2]");
    EXPECT_EQ(shape_of(op::gather_elements(param("3,4"), param("7,4", element::i32), -2)), "[7,4]");
    EXPECT_EQ(shape_of(op::gather_elements(param("3,?"), param("?,2", element::i32), 1)), "[3,2]");
    EXPECT_EQ(shape_of(op::gather_elements(param("..."), param("?,2", element::i32), 0)), "[?,2]");
    expect_invalid([] { op::gather_elements(param("3,4"), param("2,2", element::i32), 1); },
                   {"GatherElements '", "[3,4]", "[2,2]", "axis 0"});
    expect_invalid([] { op::gather_elements(param("3,4"), param("3,4,1", element::i32), 1); },
                   {"GatherElements '", "same rank"});
    expect_invalid([] { op::gather_elements(param("3,4"), param("3,4", element::i32), 2); },
                   {"GatherElements '", "axis 2"});
}

TEST(ScatterUpdate, OutputIsDataAndUpdatesAreChecked) {
    auto node = op::scatter_update(param("4,5"), i64({1, 3}), param("2,5"), i64_scalar(0));
    EXPECT_EQ(shape_of(node), "[4,5]");
    EXPECT_EQ(shape_of(op::scatter_update(param("4,5"), param("2,2", element::i32), param("4,2,2"),
                                          i64_scalar(1))),
              "[4,5]");
    EXPECT_EQ(
        shape_of(op::scatter_update(param("?,5"), i64({1}), param("1,?"), param("", element::i64))),
        "[?,5]");
    expect_invalid(
        [] {
            op::scatter_update(param("4,5"), i64({1, 3}), param("2,4"), i64_scalar(0));
        },
        {"ScatterUpdate '", "[2,4]", "[2,5]"});
    expect_invalid(
        [] {
            op::scatter_update(param("4,5"), i64({1, 3}), param("2"), i64_scalar(0));
        },
        {"ScatterUpdate '", "rank 2"});
    expect_invalid(
        [] {
            op::scatter_update(param("4,5"), i64({1}), param("1,5", element::f16), i64_scalar(0));
        },
        {"ScatterUpdate '", "f32", "f16"});
}

}  // namespace
}  // namespace vireo::test
