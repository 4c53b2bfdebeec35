// Shape inference of Split, VariadicSplit, StridedSlice (every mask) and Slice-8.
#include <limits>

#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

using Ints = std::vector<int64_t>;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

std::vector<std::string> all_shapes(const NodePtr& node) {
    std::vector<std::string> out;
    for (size_t i = 0; i < node->get_output_size(); ++i) out.push_back(shape_of(node, i));
    return out;
}

TEST(Split, EqualPartsAlongTheAxis) {
    EXPECT_EQ(all_shapes(op::split(param("6,4"), i64_scalar(0), 3)),
              (std::vector<std::string>{"[2,4]", "[2,4]", "[2,4]"}));
    EXPECT_EQ(all_shapes(op::split(param("6,4"), i64_scalar(-1), 2)),
              (std::vector<std::string>{"[6,2]", "[6,2]"}));
    EXPECT_EQ(all_shapes(op::split(param("4..8,4"), i64_scalar(0), 2)),
              (std::vector<std::string>{"[2..4,4]", "[2..4,4]"}));
    EXPECT_EQ(shape_of(op::split(param("?,4"), i64_scalar(0), 2), 1), "[?,4]");
    EXPECT_EQ(shape_of(op::split(param("6,4"), param("", element::i64), 2), 1), "[?,?]");
    EXPECT_EQ(shape_of(op::split(param("..."), i64_scalar(0), 2), 1), "[...]");
    expect_invalid([] { op::split(param("7,4"), i64_scalar(0), 3); },
                   {"Split '", "7", "num_splits 3"});
    expect_invalid([] { op::split(param("6,4"), i64_scalar(0), 0); },
                   {"Split '", "num_splits must be positive"});
    expect_invalid([] { op::split(param("6,4"), i64({0}), 2); }, {"Split '", "axis", "rank 0"});
}

TEST(VariadicSplit, LengthsWithOneMinusOne) {
    EXPECT_EQ(all_shapes(op::variadic_split(param("10,4"), i64_scalar(0), i64({2, -1, 3}))),
              (std::vector<std::string>{"[2,4]", "[5,4]", "[3,4]"}));
    EXPECT_EQ(all_shapes(op::variadic_split(param("?,4"), i64_scalar(1), i64({1, 3}))),
              (std::vector<std::string>{"[?,1]", "[?,3]"}));
    EXPECT_EQ(
        all_shapes(op::variadic_split(param("10,4"), i64_scalar(0), param("2", element::i64))),
        (std::vector<std::string>{"[..10,4]", "[..10,4]"}));
    EXPECT_EQ(all_shapes(op::variadic_split(param("10,4"), param("", element::i64), i64({1, 3}))),
              (std::vector<std::string>{"[?,?]", "[?,?]"}));
    expect_invalid(
        [] {
            op::variadic_split(param("10,4"), i64_scalar(0), i64({2, 3}));
        },
        {"VariadicSplit '", "[2,3]", "sum to 5", "10"});
    expect_invalid(
        [] {
            op::variadic_split(param("10,4"), i64_scalar(0), i64({-1, -1}));
        },
        {"VariadicSplit '", "at most one -1"});
    expect_invalid(
        [] { op::variadic_split(param("10,4"), i64_scalar(0), param("?", element::i64)); },
        {"VariadicSplit '", "split_lengths", "static length"});
}

struct StridedSliceCase {
    Ints begin, end, stride, begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask;
    std::string expected;
};

class StridedSliceShapes : public ::testing::TestWithParam<StridedSliceCase> {};

TEST_P(StridedSliceShapes, OnStaticData) {
    const auto& c = GetParam();
    auto node =
        op::strided_slice(param("10,20,30"), i64(c.begin), i64(c.end), i64(c.stride), c.begin_mask,
                          c.end_mask, c.new_axis_mask, c.shrink_axis_mask, c.ellipsis_mask);
    EXPECT_EQ(shape_of(node), c.expected);
}

// Lengths by hand: ceil((end - begin) / stride) after clamping; masked begin/end span the axis.
INSTANTIATE_TEST_SUITE_P(
    Ops, StridedSliceShapes,
    ::testing::Values(
        StridedSliceCase{{1, 2}, {5, 10}, {1, 2}, {0, 0}, {0, 0}, {}, {}, {}, "[4,4,30]"},
        StridedSliceCase{{1, 2}, {5, 10}, {1, 1}, {1, 0}, {0, 1}, {}, {}, {}, "[5,18,30]"},
        StridedSliceCase{{-3}, {-1}, {1}, {0}, {0}, {}, {}, {}, "[2,20,30]"},
        StridedSliceCase{{0}, {0}, {-1}, {1}, {1}, {}, {}, {}, "[10,20,30]"},
        StridedSliceCase{{8}, {2}, {-2}, {0}, {0}, {}, {}, {}, "[3,20,30]"},
        StridedSliceCase{{0}, {100}, {1}, {0}, {0}, {}, {}, {}, "[10,20,30]"},
        StridedSliceCase{{5}, {2}, {1}, {0}, {0}, {}, {}, {}, "[0,20,30]"},
        StridedSliceCase{{0, 0}, {2, 0}, {1, 1}, {0, 0}, {0, 0}, {0, 1}, {}, {}, "[2,1,20,30]"},
        StridedSliceCase{{3}, {4}, {1}, {0}, {0}, {}, {1}, {}, "[20,30]"},
        StridedSliceCase{{-1, 0}, {0, 0}, {1, 1}, {0, 1}, {0, 1}, {}, {1, 0}, {}, "[20,30]"},
        StridedSliceCase{{0, 0}, {0, 2}, {1, 1}, {0, 0}, {0, 0}, {}, {}, {1, 0}, "[10,20,2]"},
        StridedSliceCase{{0, 0, 1},
                         {0, 0, 3},
                         {1, 1, 1},
                         {0, 0, 0},
                         {0, 0, 0},
                         {1, 0, 0},
                         {},
                         {0, 1, 0},
                         "[1,10,20,2]"}));

TEST(StridedSlice, DynamicInputsAndUnknownValues) {
    auto ss = [](const std::string& data, const Output& begin, const Output& end) {
        return op::strided_slice(param(data), begin, end, {}, {0}, {0});
    };
    EXPECT_EQ(shape_of(ss("?,20", i64({0}), i64({5}))), "[..5,20]");
    EXPECT_EQ(shape_of(ss("?,20", i64({-2}), i64({kMax}))), "[..2,20]");
    EXPECT_EQ(shape_of(ss("4..8,20", i64({1}), i64({kMax}))), "[3..7,20]");
    EXPECT_EQ(shape_of(ss("10,20", param("1", element::i64), i64({5}))), "[..10,20]");
    EXPECT_EQ(shape_of(ss("...", i64({0}), i64({5}))), "[...]");
    EXPECT_EQ(shape_of(ss("10,20", param("?", element::i64), param("?", element::i64))), "[...]");
}

TEST(StridedSlice, Errors) {
    expect_invalid(
        [] { op::strided_slice(param("10"), i64({10}), i64({11}), {}, {0}, {0}, {}, {1}); },
        {"StridedSlice '", "shrink_axis_mask", "index 10", "size is 10"});
    expect_invalid([] { op::strided_slice(param("10"), i64({0}), i64({5}), i64({0}), {0}, {0}); },
                   {"StridedSlice '", "step must not be 0"});
    expect_invalid(
        [] {
            op::strided_slice(param("10"), i64({0}), i64({5, 6}), {}, {0}, {0});
        },
        {"StridedSlice '", "same length"});
    expect_invalid(
        [] {
            op::strided_slice(param("10"), i64({0, 0}), i64({1, 1}), {}, {0}, {0});
        },
        {"StridedSlice '", "rank 1"});
    expect_invalid(
        [] {
            op::strided_slice(param("10,3"), i64({0, 0}), i64({1, 1}), {}, {0}, {0}, {}, {},
                              {1, 1});
        },
        {"StridedSlice '", "ellipsis_mask", "more than one"});
    expect_invalid(
        [] {
            make_node("StridedSlice", {param("10"), i64({0}), i64({1})}, {{"begin_mask", Ints{0}}});
        },
        {"StridedSlice '", "end_mask", "missing"});
}

TEST(Slice, PythonStyleSlicesOverAxes) {
    EXPECT_EQ(shape_of(op::slice(param("10,20,30"), i64({1}), i64({5}), i64({1}))), "[4,20,30]");
    EXPECT_EQ(shape_of(op::slice(param("10,20,30"), i64({-5}), i64({kMax}), i64({1}), i64({2}))),
              "[10,20,5]");
    EXPECT_EQ(shape_of(op::slice(param("10,20,30"), i64({-1}), i64({kMin}), i64({-1}), i64({0}))),
              "[10,20,30]");
    EXPECT_EQ(shape_of(op::slice(param("10,20,30"), i64({0, 1}), i64({10, 20}), i64({3, 5}),
                                 i64({-1, 0}))),
              "[2,20,4]");
    EXPECT_EQ(shape_of(op::slice(param("?,20"), i64({1}), i64({3}), i64({1}), i64({0}))),
              "[..2,20]");
    EXPECT_EQ(
        shape_of(op::slice(param("10,20"), param("1", element::i64), i64({3}), i64({1}), i64({1}))),
        "[10,..20]");
    EXPECT_EQ(
        shape_of(op::slice(param("10,20"), i64({0}), i64({3}), i64({1}), param("1", element::i64))),
        "[..10,..20]");
    expect_invalid([] { op::slice(param("10"), i64({0}), i64({5}), i64({0})); },
                   {"Slice '", "step must not be 0"});
    expect_invalid(
        [] {
            op::slice(param("10,3"), i64({0, 0}), i64({1, 1}), i64({1, 1}), i64({1, -1}));
        },
        {"Slice '", "repeats axis 1"});
    expect_invalid(
        [] {
            op::slice(param("10,3"), i64({0, 0}), i64({1}), i64({1, 1}));
        },
        {"Slice '", "same length"});
}

}  // namespace
}  // namespace vireo::test
