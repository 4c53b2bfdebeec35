// Tests element::Type sizes, names and precision spellings, and float16/bfloat16 rounding.
#include "vireo/element_type.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "vireo/exception.hpp"
#include "vireo/float16.hpp"

using namespace vireo;

TEST(ElementType, SizesAndNames) {
    EXPECT_EQ(element::f32.size(), 4u);
    EXPECT_EQ(element::f16.size(), 2u);
    EXPECT_EQ(element::bf16.bitwidth(), 16u);
    EXPECT_EQ(element::i64.size(), 8u);
    EXPECT_EQ(element::boolean.size(), 1u);
    EXPECT_EQ(element::u1.bitwidth(), 1u);
    EXPECT_EQ(element::u4.bitwidth(), 4u);
    EXPECT_EQ(element::f32.name(), "f32");
    EXPECT_EQ(element::f32.precision(), "FP32");
    EXPECT_EQ(element::u8.precision(), "U8");
    EXPECT_EQ(element::boolean.precision(), "BOOL");
    EXPECT_EQ(element::Type::all_static().size(), 16u);
}

TEST(ElementType, ParsesNamesAndPrecisions) {
    EXPECT_EQ(element::Type::from_name("f32"), element::f32);
    EXPECT_EQ(element::Type::from_name("FP32"), element::f32);
    EXPECT_EQ(element::Type::from_name("U8"), element::u8);
    EXPECT_EQ(element::Type::from_name("boolean"), element::boolean);
    EXPECT_EQ(element::Type::from_name("BOOL"), element::boolean);
    EXPECT_EQ(element::Type::from_name("bf16"), element::bf16);
    for (const auto& t : element::Type::all_static()) {
        EXPECT_EQ(element::Type::from_name(t.name()), t);
        EXPECT_EQ(element::Type::from_name(t.precision()), t);
    }
}

TEST(ElementType, UnknownNameIsClearError) {
    try {
        element::Type::from_name("f33");
        FAIL() << "expected an exception";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("'f33'"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("f32"), std::string::npos);
    }
}

TEST(ElementType, PackedBytesAndOverflow) {
    EXPECT_EQ(element::u1.bytes_for(9), 2u);
    EXPECT_EQ(element::u4.bytes_for(3), 2u);
    EXPECT_EQ(element::f32.bytes_for(10), 40u);
    EXPECT_THROW(element::f64.bytes_for(std::numeric_limits<size_t>::max() / 4), InvalidArgument);
}

TEST(Float16, ExactValuesRoundTrip) {
    for (float v : {0.f, 1.f, -2.f, 0.5f, 65504.f, -65504.f, 6.103515625e-05f /*min normal*/,
                    5.960464477539063e-08f /*min subnormal*/}) {
        EXPECT_EQ(static_cast<float>(float16(v)), v) << v;
    }
}

TEST(Float16, RoundsToNearestEven) {
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even -> 1.
    EXPECT_EQ(float16(1.f + std::ldexp(1.f, -11)).to_bits(), 0x3c00);
    // 1 + 3 * 2^-11 is halfway between 1+2^-10 (odd) and 1+2^-9 (even) -> up.
    EXPECT_EQ(float16(1.f + 3 * std::ldexp(1.f, -11)).to_bits(), 0x3c02);
    // Just above half rounds up.
    EXPECT_EQ(float16(1.f + std::ldexp(1.f, -11) + std::ldexp(1.f, -20)).to_bits(), 0x3c01);
}

TEST(Float16, OverflowUnderflowAndNan) {
    EXPECT_EQ(float16(65520.f).to_bits(), 0x7c00);  // rounds to infinity
    EXPECT_EQ(float16(65519.f).to_bits(), 0x7bff);  // rounds to max
    EXPECT_EQ(float16(-1e10f).to_bits(), 0xfc00);
    EXPECT_EQ(float16(std::ldexp(1.f, -25)).to_bits(),
              0x0000);  // half of min subnormal: ties to even
    EXPECT_EQ(float16(std::ldexp(1.5f, -25)).to_bits(), 0x0001);
    EXPECT_TRUE(std::isnan(static_cast<float>(float16(std::numeric_limits<float>::quiet_NaN()))));
    EXPECT_TRUE(std::isinf(static_cast<float>(float16(std::numeric_limits<float>::infinity()))));
}

TEST(Float16, EveryBitPatternRoundTrips) {
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
        const float f = float16::to_float(static_cast<uint16_t>(bits));
        if (std::isnan(f)) continue;
        ASSERT_EQ(float16::from_float(f), bits) << std::hex << bits;
    }
}

TEST(BFloat16, RoundsToNearestEven) {
    EXPECT_EQ(bfloat16(1.f).to_bits(), 0x3f80);
    // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even -> 1.
    EXPECT_EQ(bfloat16(1.f + std::ldexp(1.f, -8)).to_bits(), 0x3f80);
    EXPECT_EQ(bfloat16(1.f + 3 * std::ldexp(1.f, -8)).to_bits(), 0x3f82);
    EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(std::numeric_limits<float>::quiet_NaN()))));
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
        const float f = bfloat16::to_float(static_cast<uint16_t>(bits));
        if (std::isnan(f)) continue;
        ASSERT_EQ(bfloat16::from_float(f), bits);
    }
}
