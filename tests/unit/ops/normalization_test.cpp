// Shape inference of BatchNormInference-1/5, MVN-1/6 and NormalizeL2-1.
#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

TEST(BatchNormInference, Version5TakesDataFirstAndVersion1Third) {
    auto v5 = op::batch_norm_inference(param("2,3,4,4"), param("3"), param("3"), param("3"),
                                       param("3"), 1e-5);
    EXPECT_EQ(shape_of(v5), "[2,3,4,4]");
    EXPECT_EQ(v5->get_version(), 5);
    auto v1 = make_node("BatchNormInference",
                        {param("3"), param("3"), param("2,3,4,4"), param("3"), param("3")},
                        {{"epsilon", 1e-3}}, 1);
    EXPECT_EQ(shape_of(v1), "[2,3,4,4]");
    // The channel dimension is refined from the 1-D inputs.
    EXPECT_EQ(shape_of(op::batch_norm_inference(param("?,?,5"), param("3"), param("?"), param("3"),
                                                param("?"), 1e-5)),
              "[?,3,5]");
    EXPECT_EQ(shape_of(op::batch_norm_inference(param("..."), param("3"), param("3"), param("3"),
                                                param("3"), 0.0)),
              "[...]");
}

TEST(BatchNormInference, Errors) {
    expect_invalid(
        [] {
            op::batch_norm_inference(param("2,3,4"), param("4"), param("3"), param("3"), param("3"),
                                     1e-5);
        },
        {"BatchNormInference '", "input 1", "[4]", "[2,3,4]"});
    expect_invalid(
        [] {
            op::batch_norm_inference(param("2,3"), param("3"), param("3"), param("3"), param("3"),
                                     -1.0);
        },
        {"BatchNormInference '", "epsilon", "-1"});
    expect_invalid(
        [] {
            op::batch_norm_inference(param("3"), param("3"), param("3"), param("3"), param("3"),
                                     1e-5);
        },
        {"BatchNormInference '", "data", "rank"});
    expect_invalid(
        [] {
            op::batch_norm_inference(param("2,3"), param("3", element::f16), param("3"), param("3"),
                                     param("3"), 1e-5);
        },
        {"BatchNormInference '", "f32", "f16"});
    expect_invalid(
        [] {
            make_node("BatchNormInference",
                      {param("2,3"), param("3"), param("3"), param("3"), param("3")});
        },
        {"BatchNormInference '", "epsilon", "missing"});
}

TEST(Mvn, Version6KeepsShapeAndChecksAxes) {
    auto node = op::mvn(param("2,3,?,?"), i64({2, 3}), true, 1e-9, "outside_sqrt");
    EXPECT_EQ(shape_of(node), "[2,3,?,?]");
    EXPECT_EQ(node->get_attribute<std::string>("eps_mode"), "outside_sqrt");
    EXPECT_EQ(shape_of(op::mvn(param("..."), i64({-1}), false, 1e-9)), "[...]");
    expect_invalid([] { op::mvn(param("2,3"), i64({2}), true, 1e-9); }, {"MVN '", "axes 2"});
    expect_invalid(
        [] {
            op::mvn(param("2,3"), i64({0, 1, 1}), true, 1e-9);
        },
        {"MVN '", "more entries"});
    expect_invalid([] { op::mvn(param("2,3"), i64({1}), true, 1e-9, "both"); },
                   {"MVN '", "eps_mode", "both"});
    expect_invalid(
        [] {
            make_node("MVN", {param("2,3"), i64({1})}, {{"eps", 1e-9}}, 6);
        },
        {"MVN '", "normalize_variance", "missing"});
}

TEST(Mvn, Version1HasDefaultsAndOneInput) {
    auto node = make_node("MVN", {param("1,3,8,8")}, {{"eps", 1e-9}}, 1);
    EXPECT_EQ(shape_of(node), "[1,3,8,8]");
    EXPECT_FALSE(node->get_attribute<bool>("across_channels"));
    EXPECT_FALSE(node->get_attribute<bool>("normalize_variance"));
    EXPECT_TRUE(node->get_attribute<std::vector<int64_t>>("reduction_axes").empty());
    expect_invalid(
        [] {
            make_node("MVN", {param("1,3")},
                      {{"eps", 1e-9}, {"reduction_axes", std::vector<int64_t>{3}}}, 1);
        },
        {"MVN '", "reduction_axes 3"});
}

TEST(NormalizeL2, KeepsShapeAndChecksAxesAndMode) {
    auto node = op::normalize_l2(param("2,?,4"), i64({1}), 1e-10, "max");
    EXPECT_EQ(shape_of(node), "[2,?,4]");
    EXPECT_EQ(shape_of(op::normalize_l2(param("2,3"), i64({}), 1e-10)), "[2,3]");
    expect_invalid([] { op::normalize_l2(param("2,3"), i64({-3}), 1e-10); },
                   {"NormalizeL2 '", "axes -3"});
    expect_invalid([] { op::normalize_l2(param("2,3"), i64({0}), 1e-10, "mul"); },
                   {"NormalizeL2 '", "eps_mode", "mul"});
    expect_invalid([] { op::normalize_l2(param("2,3", element::i32), i64({0}), 1e-10); },
                   {"NormalizeL2 '", "i32"});
}

}  // namespace
}  // namespace vireo::test
