// Tests the data-movement kernels Reshape, Squeeze, Unsqueeze, Transpose, Concat, Split and
// VariadicSplit: values, shapes, negative axes and element types of every byte size.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

std::vector<double> iota_values(size_t n, double start = 0) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<double>(i);
    return v;
}

Tensor i64_tensor(const std::vector<int64_t>& v) {
    return make_tensor(element::i64, {v.size()}, v);
}

TEST(ReshapeKernel, KeepsElementOrderForEveryByteSize) {
    for (element::Type type :
         {element::boolean, element::u8, element::f16, element::i32, element::f32, element::i64}) {
        SCOPED_TRACE(type.name());
        std::vector<double> v = iota_values(24);
        if (type == element::boolean)
            for (auto& x : v) x = static_cast<double>(static_cast<int>(x) % 3 == 0);
        const auto x = make_tensor(type, {2, 3, 4}, v);
        const auto target = i64_tensor({4, -1});
        auto node = make_node("Reshape", {param(type, {2, 3, 4}), constant(target)},
                              {{"special_zero", false}});
        const auto out = run(node, {x, target});
        EXPECT_EQ(out[0].get_shape(), (Shape{4, 6}));
        EXPECT_EQ(values_of(out[0]), v);
    }
}

TEST(SqueezeUnsqueezeKernel, CopyTheData) {
    const auto x = make_tensor(element::f32, {1, 3, 1}, std::vector<float>{1, 2, 3});
    const auto axes = i64_tensor({-1});
    auto squeeze = make_node("Squeeze", {param(element::f32, {1, 3, 1}), constant(axes)}, {});
    const auto sq = run(squeeze, {x, axes});
    EXPECT_EQ(sq[0].get_shape(), (Shape{1, 3}));
    EXPECT_EQ(values_of(sq[0]), (std::vector<double>{1, 2, 3}));
    const auto axes2 = i64_tensor({0, 3});
    auto unsqueeze = make_node("Unsqueeze", {param(element::f32, {1, 3, 1}), constant(axes2)}, {});
    const auto un = run(unsqueeze, {x, axes2});
    EXPECT_EQ(un[0].get_shape(), (Shape{1, 1, 3, 1, 1}));
    EXPECT_EQ(values_of(un[0]), (std::vector<double>{1, 2, 3}));
}

TEST(TransposeKernel, PermutesAxes) {
    // [2,3,4] with order [2,0,1]: out[k][i][j] = in[i][j][k].
    const Shape shape{2, 3, 4};
    const auto v = iota_values(24);
    for (element::Type type : {element::u8, element::i16, element::f32, element::f64}) {
        SCOPED_TRACE(type.name());
        const auto x = make_tensor(type, shape, v);
        const auto order = i64_tensor({2, 0, 1});
        auto node = make_node("Transpose", {param(type, shape), constant(order)}, {});
        const auto out = run(node, {x, order});
        ASSERT_EQ(out[0].get_shape(), (Shape{4, 2, 3}));
        std::vector<double> expected;
        for (size_t k = 0; k < 4; ++k)
            for (size_t i = 0; i < 2; ++i)
                for (size_t j = 0; j < 3; ++j) expected.push_back(v[(i * 3 + j) * 4 + k]);
        EXPECT_EQ(values_of(out[0]), expected);
    }
}

TEST(TransposeKernel, EmptyOrderReversesAxesAndNegativeOrderIsAccepted) {
    const auto x = make_tensor(element::f32, {2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
    const Tensor empty = make_tensor(element::i64, {0}, std::vector<int64_t>{});
    auto node = make_node("Transpose", {param(element::f32, {2, 3}), constant(empty)}, {});
    const auto out = run(node, {x, empty});
    EXPECT_EQ(out[0].get_shape(), (Shape{3, 2}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{1, 4, 2, 5, 3, 6}));
    // The same permutation through a non-constant i32 order input.
    const auto order = make_tensor(element::i32, {2}, std::vector<int>{1, 0});
    auto dynamic =
        make_node("Transpose", {param(element::f32, {2, 3}), param(element::i32, {2})}, {});
    auto kernel = reference::KernelRegistry::instance().create(*dynamic);
    std::vector<Tensor> outputs{Tensor(element::f32, {3, 2})};
    kernel->execute({x, order}, outputs);
    EXPECT_EQ(values_of(outputs[0]), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(ConcatKernel, JoinsAlongNegativeAxis) {
    const auto a = make_tensor(element::i32, {2, 2}, std::vector<int>{1, 2, 3, 4});
    const auto b = make_tensor(element::i32, {2, 1}, std::vector<int>{9, 8});
    const auto c = make_tensor(element::i32, {2, 3}, std::vector<int>{5, 6, 7, -5, -6, -7});
    auto node = make_node(
        "Concat",
        {param(element::i32, {2, 2}), param(element::i32, {2, 1}), param(element::i32, {2, 3})},
        {{"axis", int64_t{-1}}});
    const auto out = run(node, {a, b, c});
    EXPECT_EQ(out[0].get_shape(), (Shape{2, 6}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{1, 2, 9, 5, 6, 7, 3, 4, 8, -5, -6, -7}));
}

TEST(ConcatKernel, LeadingAxisAndEmptyInputs) {
    const auto a = make_tensor(element::f16, {1, 3}, std::vector<float>{1, 2, 3});
    const auto empty = make_tensor(element::f16, {0, 3}, std::vector<float>{});
    const auto b = make_tensor(element::f16, {2, 3}, std::vector<float>{4, 5, 6, 7, 8, 9});
    auto node = make_node(
        "Concat",
        {param(element::f16, {1, 3}), param(element::f16, {0, 3}), param(element::f16, {2, 3})},
        {{"axis", int64_t{0}}});
    const auto out = run(node, {a, empty, b});
    EXPECT_EQ(out[0].get_shape(), (Shape{3, 3}));
    EXPECT_EQ(values_of(out[0]), iota_values(9, 1));
}

TEST(SplitKernel, EqualPartsAlongAxis) {
    const auto x = make_tensor(element::f32, {2, 4}, std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7});
    const auto axis = make_tensor(element::i64, {}, std::vector<int64_t>{-1});
    auto node = make_node("Split", {param(element::f32, {2, 4}), constant(axis)},
                          {{"num_splits", int64_t{2}}});
    const auto out = run(node, {x, axis});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].get_shape(), (Shape{2, 2}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{0, 1, 4, 5}));
    EXPECT_EQ(values_of(out[1]), (std::vector<double>{2, 3, 6, 7}));
}

TEST(VariadicSplitKernel, LengthsWithMinusOne) {
    const auto x = make_tensor(element::u8, {5, 2}, std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    const auto axis = make_tensor(element::i32, {}, std::vector<int>{0});
    const auto lengths = i64_tensor({1, -1, 2});
    auto node = make_node("VariadicSplit",
                          {param(element::u8, {5, 2}), constant(axis), constant(lengths)}, {});
    const auto out = run(node, {x, axis, lengths});
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[1].get_shape(), (Shape{2, 2}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{0, 1}));
    EXPECT_EQ(values_of(out[1]), (std::vector<double>{2, 3, 4, 5}));
    EXPECT_EQ(values_of(out[2]), (std::vector<double>{6, 7, 8, 9}));
}

}  // namespace
}  // namespace vireo::test
