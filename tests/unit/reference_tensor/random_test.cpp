// Tests RandomUniform-8's kernel: the Philox4x32-10 generator against the published known-answer
// vectors, every value in [min, max) for each output type, the same numbers for the same seeds
// (and different ones for other seeds or, unseeded, for each run), and loose statistics.
#include <set>

#include "philox.hpp"
#include "tensor_test_utils.hpp"

namespace vireo::test::random_kernel_test {  // its own names in CI's unity build
namespace {

using reference::tensor::philox4x32_10;

// Random123's kat_vectors for philox4x32 with 10 rounds: (counter, key) -> output.
TEST(Philox, KnownAnswers) {
    using Block = reference::tensor::PhiloxBlock;
    EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
              (Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
    EXPECT_EQ(
        philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
        (Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
    EXPECT_EQ(
        philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
        (Block{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

template <typename V>
Tensor scalar_of(element::Type type, V v) {
    return make_tensor(type, {}, std::vector<V>{v});
}

// RandomUniform of `count` elements of `type` in [lo, hi), seeds as given.
std::vector<Tensor> uniform(element::Type type, size_t count, double lo, double hi,
                            int64_t global_seed, int64_t op_seed, size_t runs = 1) {
    const Tensor shape = make_tensor(element::i64, {1}, std::vector<int64_t>{int64_t(count)});
    const Tensor min = scalar_of(type, lo), max = scalar_of(type, hi);
    auto node = op::random_uniform(constant(shape), param(type, {}), param(type, {}), type,
                                   global_seed, op_seed);
    std::vector<Tensor> out;
    for (size_t r = 0; r < runs; ++r) out.push_back(run(node, {shape, min, max})[0]);
    return out;
}

TEST(RandomUniformKernel, EveryValueIsInRangeForEveryType) {
    struct Case {
        element::Type type;
        double lo, hi;
    };
    // Narrow ranges near max make rounding up to max likely in f16/bf16: it must be stepped down.
    const std::vector<Case> cases{
        {element::f32, -2.5, 4.0},      {element::f64, 0.0, 1.0},   {element::f16, 0.0, 1.0},
        {element::f16, 1000, 1002},     {element::bf16, -1.0, 1.0}, {element::bf16, 254, 256},
        {element::f32, 1.0, 1.0000002},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(std::string(c.type.name()) + " [" + std::to_string(c.lo) + ", " +
                     std::to_string(c.hi) + ")");
        const auto values = values_of(uniform(c.type, 4096, c.lo, c.hi, 3, 5)[0]);
        ASSERT_EQ(values.size(), 4096u);
        for (double v : values) {
            ASSERT_GE(v, c.lo);
            ASSERT_LT(v, c.hi);
        }
        EXPECT_GT(std::set<double>(values.begin(), values.end()).size(), 1u);
    }
    for (const auto& type : {element::i32, element::i64}) {
        const auto values = ints_of(uniform(type, 4096, -3, 4, 3, 5)[0]);
        std::set<int64_t> seen(values.begin(), values.end());
        EXPECT_EQ(seen, (std::set<int64_t>{-3, -2, -1, 0, 1, 2, 3})) << type;
    }
}

TEST(RandomUniformKernel, SameSeedsSameNumbersOtherSeedsOthers) {
    const auto a = values_of(uniform(element::f32, 1000, 0, 1, 42, 7)[0]);
    const auto again = uniform(element::f32, 1000, 0, 1, 42, 7, 2);  // a new kernel, two runs
    EXPECT_EQ(values_of(again[0]), a);
    EXPECT_EQ(values_of(again[1]), a);
    EXPECT_NE(values_of(uniform(element::f32, 1000, 0, 1, 42, 8)[0]), a);
    EXPECT_NE(values_of(uniform(element::f32, 1000, 0, 1, 43, 7)[0]), a);
    // A shorter output is a prefix of a longer one: element i depends on i, not on the count.
    const auto prefix = values_of(uniform(element::f32, 10, 0, 1, 42, 7)[0]);
    EXPECT_EQ(prefix, std::vector<double>(a.begin(), a.begin() + 10));
    // Element 0 is the top 24 bits of Philox word 0 for counter (0, 0, op_seed), key global_seed.
    const auto word = philox4x32_10({0, 0, 7, 0}, {42, 0})[0];
    EXPECT_EQ(a[0], static_cast<float>((word >> 8) * 0x1.0p-24));
}

TEST(RandomUniformKernel, UnseededRunsDrawFreshNumbers) {
    const auto runs = uniform(element::f32, 64, 0, 1, 0, 0, 3);
    EXPECT_NE(values_of(runs[0]), values_of(runs[1]));
    EXPECT_NE(values_of(runs[1]), values_of(runs[2]));
}

TEST(RandomUniformKernel, MeanAndSpreadAreThoseOfAUniformDistribution) {
    // 100,000 draws in [-1, 3): mean 1, variance 16 / 12; each quarter of the range holds a quarter
    // of them. The bounds are many standard errors wide: the test is about gross errors (a wrong
    // scale, a biased conversion), not a statistical suite.
    const size_t n = 100000;
    for (const auto& type : {element::f32, element::f64}) {
        const auto v = values_of(uniform(type, n, -1, 3, 9, 1)[0]);
        double sum = 0, squares = 0;
        std::vector<size_t> quarters(4, 0);
        for (double x : v) {
            sum += x;
            squares += x * x;
            ++quarters[static_cast<size_t>(x + 1)];
        }
        const double mean = sum / n, var = squares / n - mean * mean;
        EXPECT_NEAR(mean, 1.0, 0.03) << type;
        EXPECT_NEAR(var, 16.0 / 12.0, 0.05) << type;
        for (size_t q : quarters) EXPECT_NEAR(static_cast<double>(q) / n, 0.25, 0.01) << type;
    }
}

TEST(RandomUniformKernel, RefusesBoundsThatAreNotAnInterval) {
    const Tensor shape = make_tensor(element::i64, {1}, std::vector<int64_t>{3});
    auto node = op::random_uniform(constant(shape), param(element::f32, {}),
                                   param(element::f32, {}), element::f32, 1, 1);
    try {
        run(node, {shape, scalar_of(element::f32, 2.0), scalar_of(element::f32, 1.0)});
        ADD_FAILURE() << "min > max was accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("min (2) must be less than max (1)"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace vireo::test::random_kernel_test
