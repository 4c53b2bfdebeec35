// Shape inference of MatMul (transposes, 1-D rules, batch broadcasting) and the convolutions
// (explicit and automatic padding, dilations, groups, backprop with output_padding/output_shape).
#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

struct MatMulCase {
    std::string a, b;
    bool ta, tb;
    std::string expected;  // "" = error
};

class MatMulShapes : public ::testing::TestWithParam<MatMulCase> {};

TEST_P(MatMulShapes, InfersOrRejects) {
    const auto& c = GetParam();
    if (c.expected.empty()) {
        expect_invalid([&] { op::matmul(param(c.a), param(c.b), c.ta, c.tb); },
                       {"MatMul '", "inner dimensions"});
    } else {
        EXPECT_EQ(shape_of(op::matmul(param(c.a), param(c.b), c.ta, c.tb)), c.expected);
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, MatMulShapes,
                         ::testing::Values(MatMulCase{"2,3", "3,4", false, false, "[2,4]"},
                                           MatMulCase{"3,2", "3,4", true, false, "[2,4]"},
                                           MatMulCase{"2,3", "4,3", false, true, "[2,4]"},
                                           MatMulCase{"3,2", "4,3", true, true, "[2,4]"},
                                           MatMulCase{"5,1,2,3", "4,3,6", false, false,
                                                      "[5,4,2,6]"},
                                           MatMulCase{"3", "3,4", false, false, "[4]"},
                                           MatMulCase{"3", "3,4", true, false, "[4]"},
                                           MatMulCase{"2,3", "3", false, false, "[2]"},
                                           MatMulCase{"3", "3", false, false, "[]"},
                                           MatMulCase{"7,2,3", "3", false, false, "[7,2]"},
                                           MatMulCase{"?,3", "3,?", false, false, "[?,?]"},
                                           MatMulCase{"?,?,3", "2..4,3,5", false, false, "[?,?,5]"},
                                           MatMulCase{"...", "3,4", false, false, "[...]"},
                                           MatMulCase{"2,3", "4,5", false, false, ""},
                                           MatMulCase{"2,3", "2,3", false, false, ""}));

TEST(MatMul, BatchMismatchAndScalarAndTypesAreRejected) {
    expect_invalid([] { op::matmul(param("2,2,3"), param("3,3,4")); },
                   {"MatMul '", "[2]", "[3]", "broadcast"});
    expect_invalid([] { op::matmul(param(""), param("3")); }, {"MatMul '", "rank >= 1"});
    expect_invalid([] { op::matmul(param("2,3"), param("3,4", element::f16)); },
                   {"MatMul '", "f32", "f16"});
}

struct ConvCase {
    std::string x, w;
    std::vector<int64_t> strides, pads_begin, pads_end, dilations;
    std::string auto_pad, expected;
};

class ConvolutionShapes : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvolutionShapes, Infers) {
    const auto& c = GetParam();
    auto node = op::convolution(param(c.x), param(c.w), c.strides, c.pads_begin, c.pads_end,
                                c.dilations, c.auto_pad);
    EXPECT_EQ(shape_of(node), c.expected);
    EXPECT_EQ(node->get_output_element_type(0), element::f32);
}

// Expected sizes by hand: out = floor((in + pb + pe - ((k-1)*d + 1)) / s) + 1; same_*: ceil(in /
// s).
INSTANTIATE_TEST_SUITE_P(
    Ops, ConvolutionShapes,
    ::testing::Values(
        ConvCase{"1,3,224,224",
                 "64,3,7,7",
                 {2, 2},
                 {3, 3},
                 {3, 3},
                 {1, 1},
                 "explicit",
                 "[1,64,112,112]"},
        ConvCase{"1,3,15,15", "8,3,3,3", {2, 2}, {0, 0}, {0, 0}, {1, 1}, "same_upper", "[1,8,8,8]"},
        ConvCase{"1,3,15,16", "8,3,4,4", {3, 3}, {}, {}, {1, 1}, "same_lower", "[1,8,5,6]"},
        ConvCase{"1,3,10,10", "8,3,3,3", {1, 1}, {5, 5}, {5, 5}, {2, 2}, "valid", "[1,8,6,6]"},
        ConvCase{"1,3,10,11", "8,3,3,3", {1, 2}, {0, 1}, {2, 0}, {1, 1}, "explicit", "[1,8,10,5]"},
        ConvCase{"?,3,?,10", "8,3,3,3", {1, 1}, {1, 1}, {1, 1}, {1, 1}, "explicit", "[?,8,?,10]"},
        ConvCase{"1,3,10..20,10",
                 "8,3,3,3",
                 {1, 1},
                 {1, 1},
                 {1, 1},
                 {1, 1},
                 "explicit",
                 "[1,8,10..20,10]"},
        ConvCase{"...", "8,3,3,3", {1, 1}, {0, 0}, {0, 0}, {1, 1}, "explicit", "[?,8,?,?]"},
        ConvCase{"2,3,10", "4,3,3", {1}, {0}, {0}, {1}, "explicit", "[2,4,8]"},
        ConvCase{"1,2,5,6,7",
                 "4,2,3,3,3",
                 {1, 1, 1},
                 {1, 1, 1},
                 {1, 1, 1},
                 {1, 1, 1},
                 "explicit",
                 "[1,4,5,6,7]"},
        ConvCase{"1,3,8,8", "4,3,?,?", {1, 1}, {0, 0}, {0, 0}, {1, 1}, "explicit", "[1,4,?,?]"}));

TEST(Convolution, ErrorsNameTheNodeAndBothShapes) {
    expect_invalid(
        [] {
            op::convolution(param("1,4,8,8"), param("8,3,3,3"), {1, 1}, {0, 0}, {0, 0}, {1, 1});
        },
        {"Convolution '", "[1,4,8,8]", "[8,3,3,3]", "channels"});
    expect_invalid(
        [] {
            op::convolution(param("1,3,8,8"), param("8,3,3,3"), {1}, {0, 0}, {0, 0}, {1, 1});
        },
        {"Convolution '", "'strides'", "2 values", "[1]"});
    expect_invalid(
        [] {
            op::convolution(param("1,3,2,2"), param("8,3,3,3"), {1, 1}, {0, 0}, {0, 0}, {1, 1});
        },
        {"Convolution '", "does not fit", "2"});
    expect_invalid(
        [] {
            op::convolution(param("1,3,8,8"), param("8,3,3"), {1, 1}, {0, 0}, {0, 0}, {1, 1});
        },
        {"Convolution '", "spatial axes"});
    expect_invalid(
        [] {
            op::convolution(param("1,3,8,8"), param("8,3,3,3"), {1, 1}, {0, 0}, {0, 0}, {1, 1},
                            "full");
        },
        {"Convolution '", "auto_pad", "full"});
}

TEST(GroupConvolution, OutputChannelsAreGroupsTimesFilterOutputs) {
    auto node = op::group_convolution(param("1,8,10,10"), param("2,4,4,3,3"), {1, 1}, {0, 0},
                                      {0, 0}, {1, 1});
    EXPECT_EQ(shape_of(node), "[1,8,8,8]");
    auto depthwise = op::group_convolution(param("?,32,?,?"), param("32,1,1,3,3"), {2, 2}, {1, 1},
                                           {1, 1}, {1, 1});
    EXPECT_EQ(shape_of(depthwise), "[?,32,?,?]");
    expect_invalid(
        [] {
            op::group_convolution(param("1,8,10,10"), param("2,4,3,3,3"), {1, 1}, {0, 0}, {0, 0},
                                  {1, 1});
        },
        {"GroupConvolution '", "[1,8,10,10]", "groups"});
}

TEST(ConvolutionBackpropData, OutputSizeFromStridesPadsAndOutputPadding) {
    // s * (in - 1) + (k - 1) * d + 1 - pb - pe + output_padding = 2*3 + 2 + 1 - 2 + 1 = 8
    auto node = op::convolution_backprop_data(param("1,16,4,4"), param("16,8,3,3"), {2, 2}, {1, 1},
                                              {1, 1}, {1, 1}, {1, 1});
    EXPECT_EQ(shape_of(node), "[1,8,8,8]");
    EXPECT_EQ(node->get_attribute<std::vector<int64_t>>("output_padding"),
              (std::vector<int64_t>{1, 1}));
    auto no_padding = op::convolution_backprop_data(param("1,16,4,4"), param("16,8,3,3"), {2, 2},
                                                    {1, 1}, {1, 1}, {1, 1});
    EXPECT_EQ(shape_of(no_padding), "[1,8,7,7]");
    auto given = op::convolution_backprop_data(param("1,16,4,4"), param("16,8,3,3"), {2, 2}, {0, 0},
                                               {0, 0}, {1, 1}, {}, i64({10, 9}), "same_upper");
    EXPECT_EQ(shape_of(given), "[1,8,10,9]");
    auto unknown =
        op::convolution_backprop_data(param("1,16,4,4"), param("16,8,3,3"), {2, 2}, {0, 0}, {0, 0},
                                      {1, 1}, {}, param("2", element::i64));
    EXPECT_EQ(shape_of(unknown), "[1,8,?,?]");
    EXPECT_EQ(shape_of(op::convolution_backprop_data(param("?,16,?,4"), param("16,8,3,3"), {1, 1},
                                                     {0, 0}, {0, 0}, {1, 1})),
              "[?,8,?,6]");
    expect_invalid(
        [] {
            op::convolution_backprop_data(param("1,16,4,4"), param("16,8,3,3"), {2, 2}, {0, 0},
                                          {0, 0}, {1, 1}, {}, i64({10, 9, 8}));
        },
        {"ConvolutionBackpropData '", "output_shape", "2 values"});
    expect_invalid(
        [] {
            op::convolution_backprop_data(param("1,15,4,4"), param("16,8,3,3"), {2, 2}, {0, 0},
                                          {0, 0}, {1, 1});
        },
        {"ConvolutionBackpropData '", "[1,15,4,4]", "[16,8,3,3]"});
}

}  // namespace
}  // namespace vireo::test
