// Tests the MatMul kernel against plain loops: odd sizes, transposes, batch broadcasting, the 1-D
// rules, constant (pre-packed) and variable B, and every supported element type.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

// Plain-loop reference: C[b] = op(A[b]) * op(B[b]) with numpy broadcasting of batch axes.
// Shapes are given already with the 1-D rules applied (rank >= 2).
std::vector<double> reference_matmul(const std::vector<double>& a, Shape as,
                                     const std::vector<double>& b, Shape bs, bool ta, bool tb,
                                     Shape* out_shape) {
    const size_t ar = as.size(), br = bs.size();
    const size_t m = ta ? as[ar - 1] : as[ar - 2], k = ta ? as[ar - 2] : as[ar - 1];
    const size_t n = tb ? bs[br - 2] : bs[br - 1];
    const size_t rank = std::max(ar, br);
    while (as.size() < rank) as.insert(as.begin(), 1);
    while (bs.size() < rank) bs.insert(bs.begin(), 1);
    Shape batch(rank - 2);
    for (size_t i = 0; i + 2 < rank; ++i) batch[i] = std::max(as[i], bs[i]);
    size_t count = 1;
    for (size_t d : batch) count *= d;
    std::vector<double> c(count * m * n, 0.0);
    for (size_t bi = 0; bi < count; ++bi) {
        // Decompose the batch index and map it into each operand.
        size_t rem = bi, ia = 0, ib = 0, sa = 1, sb = 1;
        for (size_t d = batch.size(); d-- > 0;) {
            const size_t idx = rem % batch[d];
            rem /= batch[d];
            ia += (as[d] == 1 ? 0 : idx) * sa;
            ib += (bs[d] == 1 ? 0 : idx) * sb;
            sa *= as[d];
            sb *= bs[d];
        }
        for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < n; ++j) {
                double s = 0;
                for (size_t kk = 0; kk < k; ++kk) {
                    const double x = ta ? a[ia * m * k + kk * m + i] : a[ia * m * k + i * k + kk];
                    const double y = tb ? b[ib * k * n + j * k + kk] : b[ib * k * n + kk * n + j];
                    s += x * y;
                }
                c[bi * m * n + i * n + j] = s;
            }
    }
    *out_shape = batch;
    out_shape->push_back(m);
    out_shape->push_back(n);
    return c;
}

struct MatMulCase {
    Shape a, b;
    bool ta, tb;
    bool constant_b;
};

void check_case(const MatMulCase& c, element::Type type = element::f32, double tol = 1e-5) {
    const bool integral = type.is_integral_number();
    const double lo = integral ? (type.is_signed() ? -4 : 0) : -1, hi = integral ? 5 : 1;
    const auto av = random_values(shape_size(c.a), 11, lo, hi, integral);
    const auto bv = random_values(shape_size(c.b), 12, lo, hi, integral);
    const Tensor at = make_tensor(type, c.a, av), bt = make_tensor(type, c.b, bv);
    NodePtr b_node = c.constant_b ? constant(bt) : param(type, c.b);
    auto node = make_node("MatMul", {param(type, c.a), b_node},
                          {{"transpose_a", c.ta}, {"transpose_b", c.tb}});
    const auto out = run(node, {at, bt});
    ASSERT_EQ(out.size(), 1u);
    // Apply the 1-D rules for the reference.
    Shape as = c.a, bs = c.b;
    bool ta = c.ta, tb = c.tb;
    if (as.size() == 1) as.insert(as.begin(), 1), ta = false;
    if (bs.size() == 1) bs.push_back(1), tb = false;
    Shape expected_shape;
    // Reference inputs: the values as the element type stores them.
    const auto expected =
        reference_matmul(values_of(at), as, values_of(bt), bs, ta, tb, &expected_shape);
    if (c.a.size() == 1) expected_shape.erase(expected_shape.end() - 2);
    if (c.b.size() == 1) expected_shape.pop_back();
    EXPECT_EQ(out[0].get_shape(), expected_shape);
    EXPECT_EQ(out[0].get_element_type(), type);
    expect_near(values_of(out[0]), expected, tol,
                "MatMul " + c.a.to_string() + " x " + c.b.to_string());
}

TEST(MatMulKernel, OddSizesNotMultiplesOfTheTile) {
    check_case({{7, 13}, {13, 37}, false, false, false});
    check_case({{7, 13}, {13, 37}, false, false, true});
    check_case({{1, 1}, {1, 1}, false, false, false});
    check_case({{33, 5}, {5, 65}, false, false, true});
}

TEST(MatMulKernel, LargeDepthAndRowsCrossCacheBlocks) {
    // K > 256 and M > 128 cross the engine's depth and row blocks; N spans many panels.
    check_case({{131, 300}, {300, 70}, false, false, false}, element::f32, 1e-4);
    check_case({{131, 300}, {300, 70}, false, false, true}, element::f32, 1e-4);
}

TEST(MatMulKernel, MatrixVectorProductWithConstantWeights) {
    check_case({{1, 1030}, {1030, 257}, false, false, true}, element::f32, 1e-4);
    check_case({{2, 1030}, {33, 1030}, false, true, true}, element::f32, 1e-4);
}

TEST(MatMulKernel, TransposeCombinations) {
    for (bool ta : {false, true})
        for (bool tb : {false, true})
            for (bool cb : {false, true}) {
                const Shape a = ta ? Shape{9, 6} : Shape{6, 9};
                const Shape b = tb ? Shape{11, 9} : Shape{9, 11};
                check_case({a, b, ta, tb, cb});
            }
}

TEST(MatMulKernel, BatchBroadcasting) {
    check_case({{2, 3, 5, 4}, {4, 6}, false, false, false});  // B shared: stacked rows
    check_case({{2, 3, 5, 4}, {4, 6}, false, false, true});
    check_case({{2, 1, 5, 4}, {3, 4, 6}, false, false, false});  // both broadcast
    check_case({{2, 1, 4, 5}, {3, 6, 4}, true, true, true});     // with transposes, constant B
    check_case({{5, 4}, {2, 4, 6}, false, false, false});        // A shared
    check_case({{1, 2, 5, 4}, {4, 6}, false, false, true});      // leading 1 in A
}

TEST(MatMulKernel, OneDimensionalRules) {
    check_case({{8}, {8, 5}, true, false, false});  // A is a row vector, transpose_a ignored
    check_case({{5, 8}, {8}, false, true, true});   // B is a column vector, transpose_b ignored
    check_case({{8}, {8}, true, true, false});      // dot product: a scalar
    check_case({{8}, {3, 8, 5}, false, false, false});
}

TEST(MatMulKernel, HandComputedValues) {
    // [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]]
    const auto a = make_tensor(element::f32, {2, 2}, std::vector<float>{1, 2, 3, 4});
    const auto b = make_tensor(element::f32, {2, 2}, std::vector<float>{5, 6, 7, 8});
    auto node = make_node("MatMul", {constant(a), constant(b)}, {});
    EXPECT_EQ(values_of(run(node, {a, b})[0]), (std::vector<double>{19, 22, 43, 50}));
    auto node_t =
        make_node("MatMul", {param(element::f32, {2, 2}), constant(b)}, {{"transpose_b", true}});
    // B^T = [[5,7],[6,8]]: [[17,23],[39,53]]
    EXPECT_EQ(values_of(run(node_t, {a, b})[0]), (std::vector<double>{17, 23, 39, 53}));
}

TEST(MatMulKernel, EveryElementType) {
    for (element::Type type : {element::f16, element::bf16, element::f64, element::i8, element::u8,
                               element::i32, element::i64, element::u32}) {
        SCOPED_TRACE(type.name());
        const double tol = type == element::f16 ? 2e-2 : type == element::bf16 ? 5e-2 : 1e-9;
        // Integer data is small and whole, so integer results are exact (u8/i8 stay in range).
        if (type == element::u8 || type == element::i8) {
            const auto a = make_tensor(type, {2, 3}, std::vector<int>{1, 2, 3, 4, 0, 1});
            const auto b = make_tensor(type, {3, 2}, std::vector<int>{2, 1, 0, 3, 1, 1});
            auto node = make_node("MatMul", {param(type, {2, 3}), param(type, {3, 2})}, {});
            EXPECT_EQ(values_of(run(node, {a, b})[0]), (std::vector<double>{5, 10, 9, 5}));
            continue;
        }
        check_case({{3, 4, 5}, {5, 7}, false, false, false}, type, tol);
        check_case({{5, 4}, {2, 7, 5}, true, true, true}, type, tol);
    }
}

TEST(MatMulKernel, ReportsFlops) {
    const auto a = make_tensor(element::f32, {4, 3}, std::vector<float>(12, 1.f));
    const auto b = make_tensor(element::f32, {3, 5}, std::vector<float>(15, 1.f));
    auto node = make_node("MatMul", {param(element::f32, {4, 3}), param(element::f32, {3, 5})}, {});
    auto kernel = reference::KernelRegistry::instance().create(*node);
    std::vector<Tensor> outputs{Tensor(element::f32, {4, 5})};
    kernel->execute({a, b}, outputs);
    EXPECT_EQ(values_of(outputs[0]), std::vector<double>(20, 3.0));
    EXPECT_DOUBLE_EQ(kernel->flops({a, b}, outputs), 2.0 * 4 * 3 * 5);
}

TEST(MatMulKernel, RejectsMismatchedInnerDimensionAtRunTime) {
    auto node = make_node("MatMul",
                          {op::parameter(element::f32, PartialShape::dynamic(2)),
                           op::parameter(element::f32, PartialShape::dynamic(2))},
                          {});
    auto kernel = reference::KernelRegistry::instance().create(*node);
    std::vector<Tensor> outputs{Tensor(element::f32, {2, 2})};
    const Tensor a(element::f32, {2, 3}), b(element::f32, {4, 2});
    try {
        kernel->execute({a, b}, outputs);
        FAIL() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("K=3"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("MatMul"), std::string::npos) << e.what();
    }
}

// Constant weights are packed at creation only when a call may multiply more than 2 rows: a
// static batch-1 (or 2 rows, batch axes included) product reads them in place, so compiling adds
// no copy of the weights; a dynamic or larger A gets them packed.
TEST(MatMulKernel, PacksConstantWeightsOnlyForProductsWithManyRows) {
    const Tensor w = make_tensor(element::f32, {64, 48}, random_values(64 * 48, 31));
    const size_t weight_bytes = 64 * 48 * sizeof(float);
    auto owned = [&](const PartialShape& a, bool tb, const Tensor& b) {
        auto node = make_node("MatMul", {op::parameter(element::f32, a), constant(b)},
                              {{"transpose_a", false}, {"transpose_b", tb}});
        return reference::KernelRegistry::instance().create(*node)->owned_bytes();
    };
    EXPECT_EQ(owned(PartialShape(Shape{1, 64}), false, w), 0u);
    EXPECT_EQ(owned(PartialShape(Shape{2, 64}), false, w), 0u);
    EXPECT_EQ(owned(PartialShape(Shape{2, 1, 64}), false, w), 0u);  // 2 x 1 rows
    EXPECT_EQ(owned(PartialShape(Shape{64}), false, w), 0u);        // 1-D: one row
    EXPECT_GE(owned(PartialShape(Shape{3, 64}), false, w), weight_bytes);
    EXPECT_GE(owned(PartialShape(Shape{2, 2, 64}), false, w), weight_bytes);
    EXPECT_GE(owned(PartialShape{Dimension::dynamic(), 64}, false, w), weight_bytes);
    const Tensor wt = make_tensor(element::f32, {48, 64}, random_values(48 * 64, 32));
    EXPECT_EQ(owned(PartialShape(Shape{1, 64}), true, wt), 0u);
    // f16 weights are converted, so they are packed whatever the rows.
    const Tensor w16 = make_tensor(element::f16, {64, 48}, random_values(64 * 48, 33));
    auto node = make_node("MatMul", {op::parameter(element::f16, Shape{1, 64}), constant(w16)});
    EXPECT_GE(reference::KernelRegistry::instance().create(*node)->owned_bytes(), weight_bytes);
}

// The same weights give the same products on both paths: rows 1..4 unpacked vs packed (A's rows
// declared dynamic), both weight layouts, and several batch shapes that stack into few rows.
TEST(MatMulKernel, UnpackedAndPackedWeightsAgree) {
    for (bool tb : {false, true})
        for (const Shape& a_shape :
             {Shape{1, 300}, Shape{3, 300}, Shape{4, 300}, Shape{2, 2, 300}, Shape{300}}) {
            SCOPED_TRACE(a_shape.to_string() + (tb ? " B^T" : ""));
            const Shape w_shape = tb ? Shape{70, 300} : Shape{300, 70};
            const Tensor a =
                make_tensor(element::f32, a_shape, random_values(shape_size(a_shape), 34));
            const Tensor w = make_tensor(element::f32, w_shape, random_values(300 * 70, 35));
            auto run_with = [&](const PartialShape& declared) {
                auto node =
                    make_node("MatMul", {op::parameter(element::f32, declared), constant(w)},
                              {{"transpose_a", false}, {"transpose_b", tb}});
                return values_of(run(node, {a, w})[0]);
            };
            std::vector<Dimension> dynamic(a_shape.size(), Dimension::dynamic());
            dynamic.back() = Dimension(300);
            expect_near(run_with(PartialShape(a_shape)), run_with(PartialShape(dynamic)), 1e-4,
                        "unpacked vs packed");
        }
}

}  // namespace
}  // namespace vireo::test
