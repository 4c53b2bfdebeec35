// Declares float16 and bfloat16: 16-bit floating-point storage types with exact conversions.
#pragma once

#include <cstdint>
#include <cstring>
#include <ostream>

namespace vireo {

/// IEEE 754 binary16. Conversion from float rounds to nearest, ties to even, with overflow to
/// infinity, gradual underflow to subnormals and NaN preserved (quiet). Conversion to float is
/// exact.
class float16 {
  public:
    float16() = default;
    float16(float value) : m_bits(from_float(value)) {}  // NOLINT: implicit like a built-in float
    operator float() const { return to_float(m_bits); }  // NOLINT

    static float16 from_bits(uint16_t bits) {
        float16 v;
        v.m_bits = bits;
        return v;
    }
    uint16_t to_bits() const { return m_bits; }

    static uint16_t from_float(float value);
    static float to_float(uint16_t bits);

  private:
    uint16_t m_bits = 0;
};

/// bfloat16: the top 16 bits of a binary32. Conversion from float rounds to nearest, ties to
/// even; NaN stays NaN (quiet). Conversion to float is exact.
class bfloat16 {
  public:
    bfloat16() = default;
    bfloat16(float value) : m_bits(from_float(value)) {}  // NOLINT
    operator float() const { return to_float(m_bits); }   // NOLINT

    static bfloat16 from_bits(uint16_t bits) {
        bfloat16 v;
        v.m_bits = bits;
        return v;
    }
    uint16_t to_bits() const { return m_bits; }

    static uint16_t from_float(float value) {
        uint32_t u;
        std::memcpy(&u, &value, sizeof u);
        if ((u & 0x7fffffffu) > 0x7f800000u)
            return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
        const uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
        return static_cast<uint16_t>((u + rounding) >> 16);
    }
    static float to_float(uint16_t bits) {
        const uint32_t u = static_cast<uint32_t>(bits) << 16;
        float f;
        std::memcpy(&f, &u, sizeof f);
        return f;
    }

  private:
    uint16_t m_bits = 0;
};

inline std::ostream& operator<<(std::ostream& out, float16 v) {
    return out << static_cast<float>(v);
}
inline std::ostream& operator<<(std::ostream& out, bfloat16 v) {
    return out << static_cast<float>(v);
}

}  // namespace vireo
