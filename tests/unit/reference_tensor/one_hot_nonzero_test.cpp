// Tests Unique (flat and by axis, sorted or not, NaN and -0.0), OneHot (axes, negative indices
// counted from the end, out-of-range rows of off_value) and Eye (diagonals, batches) and NonZero
// (row-major coordinates, i32/i64 output, boolean and real inputs, none found).
#include <cmath>
#include <limits>

#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

std::vector<Tensor> eval(const std::string& type, const std::vector<Tensor>& inputs,
                         Attrs attrs = {}) {
    OutputVector args;
    for (const auto& t : inputs) args.push_back(param(t.get_element_type(), t.get_shape()));
    return run(make_node(type, args, std::move(attrs)), inputs);
}

TEST(OneHotKernel, LastAndFirstAxisWithNegativeAndOutOfRangeIndices) {
    const auto idx = make_tensor(element::i64, {4}, Ints{0, 2, -1, 5});
    const auto depth = make_tensor(element::i32, {}, Ints{3});
    const auto on = make_tensor(element::f32, {}, std::vector<double>{5});
    const auto off = make_tensor(element::f32, {}, std::vector<double>{-1});
    const auto last = eval("OneHot", {idx, depth, on, off}, {{"axis", int64_t{-1}}})[0];
    EXPECT_EQ(last.get_shape(), (Shape{4, 3}));
    EXPECT_EQ(values_of(last), (std::vector<double>{5, -1, -1, -1, -1, 5, -1, -1, 5, -1, -1, -1}));
    const auto first = eval("OneHot", {idx, depth, on, off}, {{"axis", int64_t{0}}})[0];
    EXPECT_EQ(first.get_shape(), (Shape{3, 4}));
    EXPECT_EQ(values_of(first), (std::vector<double>{5, -1, -1, -1, -1, -1, -1, -1, -1, 5, 5, -1}));
}

TEST(OneHotKernel, MiddleAxisOfTwoDimensionalIndices) {
    // indices [2, 2], depth 2, axis 1 -> [2, 2, 2]: out[a][j][b] = idx[a][b] == j.
    const Ints v{1, 0, 0, -3};
    const auto idx = make_tensor(element::i32, {2, 2}, v);
    const auto out =
        eval("OneHot",
             {idx, make_tensor(element::i64, {}, Ints{2}), make_tensor(element::i32, {}, Ints{1}),
              make_tensor(element::i32, {}, Ints{0})},
             {{"axis", int64_t{1}}})[0];
    EXPECT_EQ(out.get_shape(), (Shape{2, 2, 2}));
    // -3 + 2 = -1: still out of range, so a column of zeros.
    EXPECT_EQ(ints_of(out), (Ints{0, 1, 1, 0, 1, 0, 0, 0}));
}

TEST(NonZeroKernel, CoordinatesInRowMajorOrder) {
    const auto x = make_tensor(element::f32, {2, 3}, std::vector<double>{1, 0, -2, 0, 0, 0.5});
    const auto out = eval("NonZero", {x})[0];
    EXPECT_EQ(out.get_element_type(), element::i64);
    EXPECT_EQ(out.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(ints_of(out), (Ints{0, 0, 1, 0, 2, 2}));
    const auto b = make_tensor(element::boolean, {4}, Ints{0, 1, 1, 0});
    const auto out32 = eval("NonZero", {b}, {{"output_type", element::i32}})[0];
    EXPECT_EQ(out32.get_element_type(), element::i32);
    EXPECT_EQ(out32.get_shape(), (Shape{1, 2}));
    EXPECT_EQ(ints_of(out32), (Ints{1, 2}));
}

TEST(NonZeroKernel, NaNCountsNegativeZeroDoesNotAndNoneFoundIsEmpty) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto x = make_tensor(element::f16, {3}, std::vector<double>{-0.0, nan, 0});
    const auto out = eval("NonZero", {x})[0];
    EXPECT_EQ(out.get_shape(), (Shape{1, 1}));
    EXPECT_EQ(ints_of(out), (Ints{1}));
    const auto zeros = make_tensor(element::u16, {2, 2}, Ints{0, 0, 0, 0});
    EXPECT_EQ(eval("NonZero", {zeros})[0].get_shape(), (Shape{2, 0}));
    const auto empty = make_tensor(element::i32, {0, 3}, Ints{});
    EXPECT_EQ(eval("NonZero", {empty})[0].get_shape(), (Shape{2, 0}));
}

TEST(EyeKernel, SpecExamplesAndBatches) {
    auto eye = [](int64_t rows, int64_t cols, int64_t diagonal, const Ints& batch,
                  element::Type type) {
        std::vector<Tensor> in{make_tensor(element::i32, {}, Ints{rows}),
                               make_tensor(element::i64, {1}, Ints{cols}),
                               make_tensor(element::i32, {}, Ints{diagonal})};
        if (!batch.empty()) in.push_back(make_tensor(element::i64, {batch.size()}, batch));
        return eval("Eye", in, {{"output_type", type}})[0];
    };
    const auto upper = eye(3, 4, 2, {}, element::i32);
    EXPECT_EQ(upper.get_shape(), (Shape{3, 4}));
    EXPECT_EQ(ints_of(upper), (Ints{0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0}));
    EXPECT_EQ(ints_of(eye(3, 4, -1, {}, element::u8)), (Ints{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0}));
    const auto far = eye(2, 2, 5, {1, 2}, element::f16);
    EXPECT_EQ(far.get_shape(), (Shape{1, 2, 2, 2}));
    EXPECT_EQ(values_of(far), std::vector<double>(8, 0.0));
    const auto batched = eye(2, 3, 0, {2}, element::f32);
    EXPECT_EQ(values_of(batched), (std::vector<double>{1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0}));
    EXPECT_EQ(eye(0, 3, 0, {}, element::f32).get_shape(), (Shape{0, 3}));
}

TEST(UniqueKernel, FlatSortedAndInFirstOccurrenceOrder) {
    const auto x = make_tensor(element::f32, {2, 3}, std::vector<double>{1, 3, 1, 2, 3, 3});
    auto out = eval("Unique", {x});
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{1, 2, 3}));
    EXPECT_EQ(ints_of(out[1]), (Ints{0, 3, 1}));
    EXPECT_EQ(ints_of(out[2]), (Ints{0, 2, 0, 1, 2, 2}));
    EXPECT_EQ(ints_of(out[3]), (Ints{2, 1, 3}));
    out = eval("Unique", {x}, {{"sorted", false}, {"index_element_type", element::i32}});
    EXPECT_EQ(out[1].get_element_type(), element::i32);
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{1, 3, 2}));
    EXPECT_EQ(ints_of(out[1]), (Ints{0, 1, 3}));
    EXPECT_EQ(ints_of(out[2]), (Ints{0, 1, 0, 2, 1, 1}));
    EXPECT_EQ(ints_of(out[3]), (Ints{2, 3, 1}));
}

TEST(UniqueKernel, RowsAndColumnsAlongAnAxis) {
    const auto rows = make_tensor(element::i32, {3, 2}, Ints{1, 2, 3, 4, 1, 2});
    auto out = eval("Unique", {rows, make_tensor(element::i64, {}, Ints{0})});
    EXPECT_EQ(out[0].get_shape(), (Shape{2, 2}));
    EXPECT_EQ(ints_of(out[0]), (Ints{1, 2, 3, 4}));
    EXPECT_EQ(ints_of(out[1]), (Ints{0, 1}));
    EXPECT_EQ(ints_of(out[2]), (Ints{0, 1, 0}));
    EXPECT_EQ(ints_of(out[3]), (Ints{2, 1}));
    // Columns (1,2), (0,5), (1,2): sorted, (0,5) comes first.
    const auto cols = make_tensor(element::u8, {2, 3}, Ints{1, 0, 1, 2, 5, 2});
    out = eval("Unique", {cols, make_tensor(element::i32, {1}, Ints{-1})});
    EXPECT_EQ(out[0].get_shape(), (Shape{2, 2}));
    EXPECT_EQ(ints_of(out[0]), (Ints{0, 1, 5, 2}));
    EXPECT_EQ(ints_of(out[1]), (Ints{1, 0}));
    EXPECT_EQ(ints_of(out[2]), (Ints{1, 0, 1}));
    EXPECT_EQ(ints_of(out[3]), (Ints{1, 2}));
}

TEST(UniqueKernel, NaNsAreOneValueSortedLastAndNegativeZeroIsZero) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto x = make_tensor(element::f32, {5}, std::vector<double>{nan, 0.0, -0.0, nan, 1});
    const auto out = eval("Unique", {x});
    ASSERT_EQ(out[0].get_shape(), (Shape{3}));
    const auto v = values_of(out[0]);
    EXPECT_EQ(v[0], 0.0);
    EXPECT_EQ(v[1], 1.0);
    EXPECT_TRUE(std::isnan(v[2]));
    EXPECT_EQ(ints_of(out[1]), (Ints{1, 4, 0}));
    EXPECT_EQ(ints_of(out[2]), (Ints{2, 0, 0, 2, 1}));
    EXPECT_EQ(ints_of(out[3]), (Ints{2, 1, 2}));
    const auto empty = eval("Unique", {make_tensor(element::i64, {0}, Ints{})});
    for (const auto& t : empty) EXPECT_EQ(t.get_size(), 0u);
}

}  // namespace
}  // namespace vireo::test
