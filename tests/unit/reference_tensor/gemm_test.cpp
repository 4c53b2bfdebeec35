// White-box tests of the f32 GEMM engine behind MatMul and the convolutions: packing layouts,
// strided and transposed views, accumulation, empty and degenerate sizes, against plain loops.
#include <stdexcept>

#include "tensor_gemm.hpp"
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

namespace gemm = reference::gemm;

std::vector<float> floats(size_t n, uint32_t seed) {
    const auto v = random_values(n, seed);
    return std::vector<float>(v.begin(), v.end());
}

// C[i][j] = sum_k A(i, k) * B(k, j) for strided views.
std::vector<double> reference(const gemm::MatrixView& a, const gemm::MatrixView& b) {
    std::vector<double> c(a.rows * b.cols, 0.0);
    for (size_t i = 0; i < a.rows; ++i)
        for (size_t j = 0; j < b.cols; ++j)
            for (size_t k = 0; k < a.cols; ++k)
                c[i * b.cols + j] +=
                    static_cast<double>(a.data[i * a.row_stride + k * a.col_stride]) *
                    b.data[k * b.row_stride + j * b.col_stride];
    return c;
}

std::vector<double> to_double(const std::vector<float>& v) {
    return std::vector<double>(v.begin(), v.end());
}

TEST(Gemm, TileIsOneOfTheKnownShapes) {
    const auto& t = gemm::tile();
    EXPECT_GE(t.mr, 4u);
    EXPECT_LE(t.mr, 8u);
    EXPECT_EQ(t.nr % 8, 0u);
    const std::string isa = gemm::isa_name();
    EXPECT_TRUE(isa == "avx512" || isa == "avx2" || isa == "sse2") << isa;
}

TEST(Gemm, PackedLayoutsPadWithZeros) {
    const auto& t = gemm::tile();
    const size_t m = t.mr + 1, n = t.nr + 1, k = 3;
    EXPECT_EQ(gemm::packed_a_size(m, k), 2 * t.mr * k);
    EXPECT_EQ(gemm::packed_b_size(k, n), 2 * t.nr * k);
    std::vector<float> a(m * k), b(k * n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i + 1);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i + 1);
    std::vector<float> pa(gemm::packed_a_size(m, k), -1.f), pb(gemm::packed_b_size(k, n), -1.f);
    gemm::pack_a({a.data(), m, k, k, 1}, pa.data());
    gemm::pack_b({b.data(), k, n, n, 1}, pb.data());
    // A sliver s holds, for each k, mr consecutive rows.
    EXPECT_EQ(pa[0], a[0]);                // (0, 0)
    EXPECT_EQ(pa[1], a[k]);                // (1, 0)
    EXPECT_EQ(pa[t.mr], a[1]);             // (0, 1)
    EXPECT_EQ(pa[t.mr * k], a[t.mr * k]);  // second sliver starts at row mr
    EXPECT_EQ(pa[t.mr * k + 1], 0.f);      // row mr + 1 does not exist
    // A B panel holds, for each k, nr consecutive columns.
    EXPECT_EQ(pb[0], b[0]);
    EXPECT_EQ(pb[t.nr], b[n]);         // (1, 0)
    EXPECT_EQ(pb[t.nr * k], b[t.nr]);  // second panel starts at column nr
    EXPECT_EQ(pb[t.nr * k + 1], 0.f);  // column nr + 1 does not exist
}

TEST(Gemm, StridedAndTransposedViews) {
    for (size_t m : {1u, 5u, 17u})
        for (size_t n : {1u, 31u, 70u})
            for (size_t k : {1u, 9u, 300u}) {
                SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k);
                // A stored transposed (k x m), B with a padded row stride.
                const auto a = floats(m * k, 7), b = floats(k * (n + 3), 8);
                const gemm::MatrixView av{a.data(), m, k, 1, m};
                const gemm::MatrixView bv{b.data(), k, n, n + 3, 1};
                std::vector<float> c(m * n, 123.f);
                gemm::multiply(av, bv, c.data(), n);
                expect_near(to_double(c), reference(av, bv), 1e-5);
            }
}

TEST(Gemm, AccumulateAddsToC) {
    const size_t m = 9, n = 40, k = 20;
    const auto a = floats(m * k, 9), b = floats(k * n, 10);
    const gemm::MatrixView av{a.data(), m, k, k, 1}, bv{b.data(), k, n, n, 1};
    std::vector<float> pa(gemm::packed_a_size(m, k)), pb(gemm::packed_b_size(k, n));
    gemm::pack_a(av, pa.data());
    gemm::pack_b(bv, pb.data());
    std::vector<float> c(m * n, 1.0f);
    gemm::multiply_packed(m, n, k, pa.data(), pb.data(), c.data(), n, true);
    auto expected = reference(av, bv);
    for (auto& v : expected) v += 1.0;
    expect_near(to_double(c), expected, 1e-5);
}

TEST(Gemm, ZeroDepthGivesZerosAndEmptySizesDoNothing) {
    std::vector<float> c(6, 5.f);
    gemm::multiply_packed(2, 3, 0, nullptr, nullptr, c.data(), 3);
    EXPECT_EQ(c, std::vector<float>(6, 0.f));
    gemm::multiply_packed(0, 3, 4, nullptr, nullptr, c.data(), 3);
    gemm::multiply_packed(2, 0, 4, nullptr, nullptr, c.data(), 3);
    EXPECT_EQ(c, std::vector<float>(6, 0.f));
}

TEST(Gemm, RowStrideOfCIsHonoured) {
    const size_t m = 3, n = 5, k = 4, ldc = 8;
    const auto a = floats(m * k, 11), b = floats(k * n, 12);
    const gemm::MatrixView av{a.data(), m, k, k, 1}, bv{b.data(), k, n, n, 1};
    std::vector<float> c(m * ldc, -7.f);
    gemm::multiply(av, bv, c.data(), ldc);
    const auto expected = reference(av, bv);
    for (size_t i = 0; i < m; ++i)
        for (size_t j = 0; j < ldc; ++j) {
            if (j < n) {
                EXPECT_NEAR(c[i * ldc + j], expected[i * n + j], 1e-5);
            } else {
                EXPECT_EQ(c[i * ldc + j], -7.f) << "column " << j << " beyond n was written";
            }
        }
}

// multiply_small_m reads B unpacked, row-major (axpy form) or column-major (dot form): every row
// count it takes, widths around the vector, chunk (1024) and thread-group (64) sizes, odd depths,
// strided A and padded strides of B and C, against plain loops; columns past n stay untouched.
TEST(Gemm, SmallMMatchesPlainLoopsForEveryLayout) {
    for (size_t m = 1; m <= gemm::kSmallM; ++m)
        for (size_t n : {1u, 15u, 64u, 70u, 1030u})
            for (size_t k : {1u, 7u, 9u, 300u})
                for (bool column_major : {false, true})
                    for (bool a_transposed : {false, true}) {
                        SCOPED_TRACE(testing::Message()
                                     << m << "x" << n << "x" << k << (column_major ? " B^T" : "")
                                     << (a_transposed ? " A^T" : ""));
                        const size_t pad = 3, ldc = n + 2;
                        const auto a = floats(m * k, 21), b = floats((k + pad) * (n + pad), 22);
                        const gemm::MatrixView av = a_transposed
                                                        ? gemm::MatrixView{a.data(), m, k, 1, m}
                                                        : gemm::MatrixView{a.data(), m, k, k, 1};
                        // Column-major: element (kk, j) at j * (k + pad) + kk.
                        const gemm::MatrixView bv =
                            column_major ? gemm::MatrixView{b.data(), k, n, 1, k + pad}
                                         : gemm::MatrixView{b.data(), k, n, n + pad, 1};
                        ASSERT_TRUE(gemm::small_m_applies(av, bv));
                        std::vector<float> c(m * ldc, -7.f);
                        gemm::multiply_small_m(av, bv, c.data(), ldc);
                        const auto expected = reference(av, bv);
                        std::vector<double> got;
                        for (size_t i = 0; i < m; ++i) {
                            for (size_t j = 0; j < n; ++j) got.push_back(c[i * ldc + j]);
                            EXPECT_EQ(c[i * ldc + n], -7.f);
                            EXPECT_EQ(c[i * ldc + n + 1], -7.f);
                        }
                        expect_near(got, expected, 1e-4);
                    }
}

TEST(Gemm, SmallMRefusesWhatItCannotRun) {
    const auto a = floats(5 * 4, 23), b = floats(4 * 6, 24);
    std::vector<float> c(5 * 6, 0.f);
    // Five rows: more than kSmallM.
    const gemm::MatrixView five{a.data(), gemm::kSmallM + 1, 4, 4, 1};
    const gemm::MatrixView bv{b.data(), 4, 6, 6, 1};
    EXPECT_FALSE(gemm::small_m_applies(five, bv));
    EXPECT_THROW(gemm::multiply_small_m(five, bv, c.data(), 6), std::invalid_argument);
    // B with no unit stride (every other element of a wider matrix).
    const gemm::MatrixView one{a.data(), 1, 4, 4, 1};
    const gemm::MatrixView strided{b.data(), 2, 3, 12, 2};
    EXPECT_FALSE(gemm::small_m_applies(one, strided));
    // Zero depth gives zeros; zero width writes nothing.
    std::vector<float> z(3, 5.f);
    gemm::multiply_small_m({a.data(), 1, 0, 0, 1}, {b.data(), 0, 3, 3, 1}, z.data(), 3);
    EXPECT_EQ(z, std::vector<float>(3, 0.f));
    gemm::multiply_small_m(one, {b.data(), 4, 0, 0, 1}, z.data(), 0);
    EXPECT_EQ(z, std::vector<float>(3, 0.f));
}

}  // namespace
}  // namespace vireo::test
