// Shape inference of MaxPool-1/8 and AvgPool-1: rounding, auto_pad, dilations, the indices output.
#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

using Ints = std::vector<int64_t>;

TEST(MaxPool, FloorAndCeilRounding) {
    // floor((8 - 3) / 2) + 1 = 3; ceil((8 - 3) / 2) + 1 = 4
    EXPECT_EQ(shape_of(op::max_pool(param("1,3,8,8"), {2, 2}, {0, 0}, {0, 0}, {3, 3})),
              "[1,3,3,3]");
    EXPECT_EQ(shape_of(op::max_pool(param("1,3,8,8"), {2, 2}, {0, 0}, {0, 0}, {3, 3}, "ceil")),
              "[1,3,4,4]");
    EXPECT_EQ(shape_of(op::max_pool(param("1,3,32,32"), {2, 2}, {0, 0}, {0, 0}, {2, 2})),
              "[1,3,16,16]");
    // pads: (7 + 1 + 1 - 3) / 2 + 1 = 4
    EXPECT_EQ(shape_of(op::max_pool(param("2,4,7,7"), {2, 2}, {1, 1}, {1, 1}, {3, 3})),
              "[2,4,4,4]");
}

// "ceil_torch" (MaxPool-14, AvgPool-14; ONNX's and PyTorch's ceil_mode) drops a last window that
// would start in the end padding: kernel 4, stride 3, pads 2+2 on 13 give ceil(13 / 3) + 1 = 6
// windows, the sixth starting at 5 * 3 = 15 = 13 + 2, inside the end padding, so 5. Where the last
// window starts inside the input both ceilings agree.
TEST(MaxPool, CeilTorchDropsAWindowStartingInTheEndPadding) {
    EXPECT_EQ(shape_of(op::max_pool_with_indices(param("1,2,13"), {3}, {1}, {2}, {2}, {4}, "ceil")),
              "[1,2,6]");
    const auto torch =
        op::max_pool_with_indices(param("1,2,13"), {3}, {1}, {2}, {2}, {4}, "ceil_torch");
    EXPECT_EQ(torch->get_version(), 14);
    EXPECT_EQ(shape_of(torch), "[1,2,5]");
    EXPECT_EQ(shape_of(op::avg_pool(param("1,2,13,13"), {3, 3}, {2, 2}, {2, 2}, {4, 4}, true,
                                    "ceil_torch")),
              "[1,2,5,5]");
    // 8 - 3 with stride 2, no pads: the fourth window starts at 6 < 8, kept by both.
    EXPECT_EQ(shape_of(op::avg_pool(param("1,3,8,8"), {2, 2}, {0, 0}, {0, 0}, {3, 3}, false,
                                    "ceil_torch")),
              "[1,3,4,4]");
    // Dynamic input: each bound rounded the same way (13 -> 5, 16 -> 6).
    EXPECT_EQ(shape_of(op::max_pool_with_indices(param("1,2,13..16"), {3}, {1}, {2}, {2}, {4},
                                                 "ceil_torch")),
              "[1,2,5..6]");
    // MaxPool-1 and -8 and AvgPool-1 keep OpenVINO's two roundings.
    expect_invalid([] { op::max_pool(param("1,2,13"), {3}, {2}, {2}, {4}, "ceil_torch"); },
                   {"MaxPool", "rounding_type", "ceil_torch"});
}

TEST(MaxPool, AutoPadIgnoresPadsAttributes) {
    // same_upper: ceil(5 / 2) = 3; valid: (5 - 3) / 2 + 1 = 2
    EXPECT_EQ(shape_of(op::max_pool(param("1,1,5,5"), {2, 2}, {9, 9}, {9, 9}, {3, 3}, "floor",
                                    "same_upper")),
              "[1,1,3,3]");
    EXPECT_EQ(
        shape_of(op::max_pool(param("1,1,5,5"), {2, 2}, {9, 9}, {9, 9}, {3, 3}, "floor", "valid")),
        "[1,1,2,2]");
}

TEST(MaxPool, DynamicDimensionsAndRank) {
    EXPECT_EQ(shape_of(op::max_pool(param("?,3,?,32"), {2, 2}, {0, 0}, {0, 0}, {2, 2})),
              "[?,3,?,16]");
    // (10 - 2) / 2 + 1 = 5 .. (20 - 2) / 2 + 1 = 10
    EXPECT_EQ(shape_of(op::max_pool(param("1,3,10..20,8"), {2, 2}, {0, 0}, {0, 0}, {2, 2})),
              "[1,3,5..10,4]");
    EXPECT_EQ(shape_of(op::max_pool(param("..."), {2, 2}, {0, 0}, {0, 0}, {2, 2})), "[...]");
    EXPECT_EQ(shape_of(op::max_pool(param("1,2,9"), {3}, {0}, {0}, {3})), "[1,2,3]");
}

TEST(MaxPool, Version8HasIndicesOutputAndDilations) {
    // dilated kernel (3 - 1) * 2 + 1 = 5; 10 - 5 + 1 = 6
    auto node =
        op::max_pool_with_indices(param("1,1,10,10"), {1, 1}, {2, 2}, {0, 0}, {0, 0}, {3, 3});
    ASSERT_EQ(node->get_output_size(), 2u);
    EXPECT_EQ(shape_of(node, 0), "[1,1,6,6]");
    EXPECT_EQ(shape_of(node, 1), "[1,1,6,6]");
    EXPECT_EQ(node->get_output_element_type(0), element::f32);
    EXPECT_EQ(node->get_output_element_type(1), element::i64);
    auto i32 = op::max_pool_with_indices(param("1,1,4,4"), {2, 2}, {}, {0, 0}, {0, 0}, {2, 2},
                                         "floor", "explicit", element::i32, 2);
    EXPECT_EQ(i32->get_output_element_type(1), element::i32);
    EXPECT_EQ(shape_of(i32, 1), "[1,1,2,2]");
    auto defaults = make_node("MaxPool", {param("1,1,4,4")},
                              {{"strides", Ints{1, 1}},
                               {"pads_begin", Ints{0, 0}},
                               {"pads_end", Ints{0, 0}},
                               {"kernel", Ints{2, 2}}},
                              8);
    EXPECT_EQ(defaults->get_attribute<element::Type>("index_element_type"), element::i64);
    EXPECT_EQ(defaults->get_attribute<int64_t>("axis"), 0);
    EXPECT_EQ(defaults->get_attribute<std::string>("rounding_type"), "floor");
    EXPECT_EQ(defaults->get_attribute<std::string>("auto_pad"), "explicit");
    EXPECT_EQ(shape_of(defaults), "[1,1,3,3]");
}

TEST(MaxPool, ErrorsNameTheNode) {
    expect_invalid(
        [] {
            op::max_pool(param("1,3,8,8"), {1, 1}, {0, 0}, {0, 0}, {2, 2, 2});
        },
        {"MaxPool '", "'kernel'", "[1,3,8,8]"});
    expect_invalid([] { op::max_pool(param("3,8"), {1}, {0}, {0}, {2}); },
                   {"MaxPool '", "rank 3..5", "[3,8]"});
    expect_invalid(
        [] {
            op::max_pool(param("1,3,8,8"), {1, 1}, {0, 0}, {0, 0}, {2, 2}, "round");
        },
        {"MaxPool '", "rounding_type", "round"});
    expect_invalid(
        [] {
            op::max_pool_with_indices(param("1,1,4,4"), {1, 1}, {}, {0, 0}, {0, 0}, {2, 2}, "floor",
                                      "explicit", element::f32);
        },
        {"MaxPool '", "index_element_type", "f32"});
    expect_invalid(
        [] {
            op::max_pool_with_indices(param("1,1,4,4"), {1, 1}, {}, {0, 0}, {0, 0}, {2, 2}, "floor",
                                      "explicit", element::i64, 4);
        },
        {"MaxPool '", "axis 4"});
}

TEST(AvgPool, ExcludePadIsRequiredAndSpelledWithADash) {
    // (6 + 1 + 1 - 2) / 2 + 1 = 4
    auto node = op::avg_pool(param("1,2,6,6"), {2, 2}, {1, 1}, {1, 1}, {2, 2}, true);
    EXPECT_EQ(shape_of(node), "[1,2,4,4]");
    EXPECT_TRUE(node->get_attribute<bool>("exclude-pad"));
    expect_invalid(
        [] {
            make_node("AvgPool", {param("1,2,6,6")},
                      {{"strides", Ints{1, 1}},
                       {"pads_begin", Ints{0, 0}},
                       {"pads_end", Ints{0, 0}},
                       {"kernel", Ints{2, 2}}});
        },
        {"AvgPool '", "'exclude-pad'", "missing"});
    EXPECT_EQ(
        shape_of(op::avg_pool(param("1,2,7,7"), {2, 2}, {0, 0}, {0, 0}, {2, 2}, false, "ceil")),
        "[1,2,4,4]");
}

}  // namespace
}  // namespace vireo::test
