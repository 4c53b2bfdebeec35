// Tests Convert / ConvertLike and convert_elements(): every pair of static types on values exact in
// both, and the defined out-of-range rules (truncation, saturation, NaN, wrap, boolean, rounding).
#include <cstring>

#include "math_test_util.hpp"
#include "vireo/op_registry.hpp"

namespace vireo::reference::test {
namespace {

const std::vector<element::Type>& all_types() {
    static const std::vector<element::Type> types{
        element::boolean, element::u8,  element::i8,  element::u16, element::i16,
        element::u32,     element::i32, element::u64, element::i64, element::f16,
        element::bf16,    element::f32, element::f64};
    return types;
}

Tensor convert(const Tensor& x, element::Type to) {
    return run("Convert", {x}, {{"destination_type", to}});
}

TEST(Convert, EveryPairOfTypesOnValuesExactInBoth) {
    // 0..5 and 100 are exact in every type (bf16 included); boolean sees them as x != 0.
    const std::vector<double> values{0, 1, 2, 3, 5, 100};
    for (const element::Type from : all_types()) {
        for (const element::Type to : all_types()) {
            const Tensor x = make_tensor(from, {2, 3}, values);
            const Tensor y = convert(x, to);
            EXPECT_EQ(y.get_element_type(), to);
            EXPECT_EQ(y.get_shape(), (Shape{2, 3}));
            std::vector<double> expected;
            for (double v : values)
                expected.push_back((from == element::boolean || to == element::boolean) ? (v != 0)
                                                                                        : v);
            expect_values(y, expected, 0.0,
                          std::string(from.name()) + "->" + std::string(to.name()));
        }
    }
}

TEST(Convert, RealToIntegerTruncatesTowardZeroAndSaturates) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const Tensor x = f32({8}, {2.9, -2.9, 300, -300, nan, inf, -inf, 0.5});
    EXPECT_EQ(ints_of(convert(x, element::i8)),
              (std::vector<int64_t>{2, -2, 127, -128, 0, 127, -128, 0}));
    EXPECT_EQ(ints_of(convert(x, element::u8)), (std::vector<int64_t>{2, 0, 255, 0, 0, 255, 0, 0}));
    EXPECT_EQ(ints_of(convert(x, element::i32)),
              (std::vector<int64_t>{2, -2, 300, -300, 0, 2147483647, -2147483648LL, 0}));
    const auto i64 = ints_of(convert(x, element::i64));
    EXPECT_EQ(i64[5], std::numeric_limits<int64_t>::max());
    EXPECT_EQ(i64[6], std::numeric_limits<int64_t>::min());
    // Just inside / at the i32 limits, from f64.
    const Tensor d = make_tensor(element::f64, {3},
                                 std::vector<double>{2147483647.9, 2147483648.0, -2147483648.9});
    EXPECT_EQ(ints_of(convert(d, element::i32)),
              (std::vector<int64_t>{2147483647, 2147483647, -2147483648LL}));
    // f16 and bf16 sources use the same rule.
    EXPECT_EQ(
        ints_of(convert(make_tensor(element::f16, {3}, std::vector<double>{-1.5, 1000, 65504}),
                        element::i8)),
        (std::vector<int64_t>{-1, 127, 127}));
    EXPECT_EQ(ints_of(convert(make_tensor(element::bf16, {2}, std::vector<double>{-3.5, 70000}),
                              element::u16)),
              (std::vector<int64_t>{0, 65535}));
}

TEST(Convert, IntegerToIntegerWrapsModulo) {
    const Tensor x = make_tensor(element::i32, {4}, std::vector<int64_t>{-1, 129, 256, -129});
    EXPECT_EQ(ints_of(convert(x, element::u8)), (std::vector<int64_t>{255, 129, 0, 127}));
    EXPECT_EQ(ints_of(convert(x, element::i8)), (std::vector<int64_t>{-1, -127, 0, 127}));
    const auto u32 = ints_of(convert(x, element::u32));
    EXPECT_EQ(u32[0], 4294967295LL);
    const Tensor u = make_tensor(element::u8, {2}, std::vector<int64_t>{255, 128});
    EXPECT_EQ(ints_of(convert(u, element::i8)), (std::vector<int64_t>{-1, -128}));
    EXPECT_EQ(ints_of(convert(u, element::i64)), (std::vector<int64_t>{255, 128}));
}

TEST(Convert, BooleanRules) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(ints_of(convert(f32({5}, {0, -0.0, 0.1, -3, nan}), element::boolean)),
              (std::vector<int64_t>{0, 0, 1, 1, 1}));
    EXPECT_EQ(ints_of(convert(make_tensor(element::i64, {3}, std::vector<int64_t>{0, 256, -1}),
                              element::boolean)),
              (std::vector<int64_t>{0, 1, 1}));
    // A boolean byte other than 0/1 still converts to 1.
    Tensor b(element::boolean, Shape{3});
    static_cast<uint8_t*>(b.data())[0] = 0;
    static_cast<uint8_t*>(b.data())[1] = 1;
    static_cast<uint8_t*>(b.data())[2] = 7;
    expect_values(convert(b, element::f32), {0, 1, 1});
    EXPECT_EQ(ints_of(convert(b, element::i32)), (std::vector<int64_t>{0, 1, 1}));
}

TEST(Convert, RealToHalfRoundsToNearestEven) {
    // 1 + 2^-11 is halfway between f16 1 and 1 + 2^-10: ties to even gives 1. 1 + 3*2^-11 gives 1 +
    // 2^-9.
    const Tensor x =
        f32({4}, {1.0 + std::ldexp(1.0, -11), 1.0 + 3 * std::ldexp(1.0, -11), 70000, 1e-8});
    expect_values(convert(x, element::f16),
                  {1.0, 1.0 + std::ldexp(1.0, -9), std::numeric_limits<double>::infinity(), 0},
                  0.0);
    // bf16 keeps 8 bits of mantissa: 1 + 2^-8 is a tie, rounds to 1.
    expect_values(convert(f32({2}, {1.0 + std::ldexp(1.0, -8), 1.0 + 3 * std::ldexp(1.0, -8)}),
                          element::bf16),
                  {1.0, 1.0 + std::ldexp(1.0, -6)}, 0.0);
    // f64 -> f32 rounds too; NaN and infinities survive every real conversion.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (const element::Type to : {element::f16, element::bf16, element::f32})
        expect_values(
            convert(make_tensor(element::f64, {3}, std::vector<double>{nan, inf, -inf}), to),
            {nan, inf, -inf}, 0.0, std::string(to.name()));
}

TEST(Convert, IntegerToRealIsExactWhereRepresentable) {
    const Tensor x =
        make_tensor(element::i64, {3}, std::vector<int64_t>{-7, 1 << 20, -(1LL << 40)});
    expect_values(convert(x, element::f64), {-7, 1 << 20, -std::ldexp(1.0, 40)}, 0.0);
    expect_values(convert(x, element::f32), {-7, 1 << 20, -std::ldexp(1.0, 40)}, 0.0);
    // 255 is exact in f16; 65535 is above the largest f16 (65504) by more than half a step: inf.
    expect_values(
        convert(make_tensor(element::u16, {2}, std::vector<int64_t>{255, 65535}), element::f16),
        {255, std::numeric_limits<double>::infinity()}, 0.0);
}

TEST(Convert, ConvertLikeTakesTheTypeOfItsSecondInput) {
    ASSERT_NE(OpRegistry::instance().find("ConvertLike", 1), nullptr);
    const NodePtr node =
        make_node("ConvertLike", {op::parameter(element::f32, PartialShape{Dimension::dynamic()}),
                                  op::parameter(element::i8, PartialShape{1})});
    EXPECT_EQ(node->get_output_element_type(0), element::i8);
    const auto out = evaluate(
        *node, {f32({3}, {1.7, -200, 3}), make_tensor(element::i8, {1}, std::vector<int64_t>{0})});
    EXPECT_EQ(ints_of(out[0]), (std::vector<int64_t>{1, -128, 3}));
}

TEST(ConvertElements, ConvertsBetweenTensorsAndChecksCounts) {
    const Tensor src = f32({2, 2}, {1.5, -2.5, 3.5, 300});
    Tensor dst(element::u8, Shape{4});
    convert_elements(src, dst);
    EXPECT_EQ(ints_of(dst), (std::vector<int64_t>{1, 0, 3, 255}));
    Tensor wrong(element::u8, Shape{3});
    EXPECT_THROW(convert_elements(src, wrong), InvalidArgument);
    Tensor same(element::f32, Shape{4});
    convert_elements(src, same);
    expect_values(same, {1.5, -2.5, 3.5, 300}, 0.0);
}

}  // namespace
}  // namespace vireo::reference::test

namespace vireo::reference::test {
namespace {

// The kernels convert f16 with their own inline code; it must agree bit for bit with float16.
TEST(ConvertHalf, EveryF16BitPatternToF32MatchesFloat16) {
    Tensor h(element::f16, Shape{65536});
    auto* hp = static_cast<float16*>(h.data());
    for (uint32_t i = 0; i < 65536; ++i) hp[i] = float16::from_bits(static_cast<uint16_t>(i));
    const Tensor f = run("Convert", {h}, {{"destination_type", element::f32}});
    const float* fp = static_cast<const float*>(f.data());
    size_t mismatches = 0;
    for (uint32_t i = 0; i < 65536; ++i) {
        const float want = float16::to_float(static_cast<uint16_t>(i));
        if (std::isnan(want) ? !std::isnan(fp[i]) : (std::memcmp(&want, &fp[i], sizeof want) != 0))
            ++mismatches;
    }
    EXPECT_EQ(mismatches, 0u);
}

TEST(ConvertHalf, F32SweepToF16MatchesFloat16) {
    // Every 4099th bit pattern of f32 (about a million values, all exponents, both signs), plus the
    // exact halfway points between neighbouring f16 values.
    std::vector<float> values;
    for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 4099) {
        float v;
        const uint32_t b = static_cast<uint32_t>(bits);
        std::memcpy(&v, &b, sizeof v);
        values.push_back(v);
    }
    for (uint32_t h = 0; h < 0x7c00; ++h) {
        const float lo = float16::to_float(static_cast<uint16_t>(h));
        const float hi = float16::to_float(static_cast<uint16_t>(h + 1));
        values.push_back(lo + (hi - lo) / 2);  // exact in f32: ties must go to even
        values.push_back(-(lo + (hi - lo) / 2));
    }
    Tensor f(element::f32, Shape{values.size()});
    std::memcpy(f.data(), values.data(), values.size() * sizeof(float));
    const Tensor h = run("Convert", {f}, {{"destination_type", element::f16}});
    const auto* hp = static_cast<const float16*>(h.data());
    size_t mismatches = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        const uint16_t want = float16::from_float(values[i]);
        const bool nan = (want & 0x7fffu) > 0x7c00u;
        if (nan ? (hp[i].to_bits() & 0x7fffu) <= 0x7c00u : hp[i].to_bits() != want) ++mismatches;
    }
    EXPECT_EQ(mismatches, 0u) << "of " << values.size();
}

}  // namespace
}  // namespace vireo::reference::test
