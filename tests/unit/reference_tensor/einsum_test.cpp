// Tests Einsum: matrix product, transpose, trace and diagonal, implicit output, batch with an
// ellipsis that broadcasts, three operands, against plain loops or hand-computed values.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

std::vector<Tensor> einsum(const std::string& equation, const std::vector<Tensor>& inputs) {
    OutputVector args;
    for (const auto& t : inputs) args.push_back(param(t.get_element_type(), t.get_shape()));
    return run(make_node("Einsum", args, {{"equation", equation}}, 7), inputs);
}

TEST(EinsumKernel, MatrixProductAndTranspose) {
    const auto a = make_tensor(element::f32, {2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
    const auto b = make_tensor(element::f32, {3, 2}, std::vector<float>{7, 8, 9, 10, 11, 12});
    // [[58, 64], [139, 154]]
    EXPECT_EQ(values_of(einsum("ij,jk->ik", {a, b})[0]), (std::vector<double>{58, 64, 139, 154}));
    EXPECT_EQ(values_of(einsum("ij->ji", {a})[0]), (std::vector<double>{1, 4, 2, 5, 3, 6}));
    // Implicit output "ik" (labels used once, alphabetical).
    EXPECT_EQ(values_of(einsum("ij,jk", {a, b})[0]), (std::vector<double>{58, 64, 139, 154}));
    // Full reduction to a scalar.
    const auto sum = einsum("ij->", {a});
    EXPECT_EQ(sum[0].get_shape(), Shape{});
    EXPECT_EQ(values_of(sum[0]), (std::vector<double>{21}));
}

TEST(EinsumKernel, TraceAndDiagonal) {
    const auto m = make_tensor(element::i32, {3, 3}, std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9});
    EXPECT_EQ(values_of(einsum("ii->i", {m})[0]), (std::vector<double>{1, 5, 9}));
    EXPECT_EQ(values_of(einsum("ii", {m})[0]), (std::vector<double>{15}));
}

TEST(EinsumKernel, BatchedEllipsisBroadcasts) {
    // a [2, 1, 2, 3] and b [4, 3, 2] over "...ij,...jk->...ik": batch [2, 4].
    const auto av = random_values(2 * 1 * 2 * 3, 3), bv = random_values(4 * 3 * 2, 4);
    const auto a = make_tensor(element::f64, {2, 1, 2, 3}, av),
               b = make_tensor(element::f64, {4, 3, 2}, bv);
    const auto out = einsum("...ij,...jk->...ik", {a, b});
    ASSERT_EQ(out[0].get_shape(), (Shape{2, 4, 2, 2}));
    std::vector<double> expected;
    for (size_t p = 0; p < 2; ++p)
        for (size_t q = 0; q < 4; ++q)
            for (size_t i = 0; i < 2; ++i)
                for (size_t k = 0; k < 2; ++k) {
                    double s = 0;
                    for (size_t j = 0; j < 3; ++j)
                        s += av[(p * 2 + i) * 3 + j] * bv[(q * 3 + j) * 2 + k];
                    expected.push_back(s);
                }
    expect_near(values_of(out[0]), expected, 1e-12);
}

TEST(EinsumKernel, ThreeOperands) {
    // sum_j,k a[i] * b[i, j] * c[j] ... "i,ij,j->i"
    const auto a = make_tensor(element::f32, {2}, std::vector<float>{1, 2});
    const auto b = make_tensor(element::f32, {2, 3}, std::vector<float>{1, 0, 2, 3, 1, 0});
    const auto c = make_tensor(element::f32, {3}, std::vector<float>{1, 10, 100});
    // i=0: 1 * (1 + 0 + 200) = 201; i=1: 2 * (3 + 10 + 0) = 26
    EXPECT_EQ(values_of(einsum("i,ij,j->i", {a, b, c})[0]), (std::vector<double>{201, 26}));
}

}  // namespace
}  // namespace vireo::test
