// Implements float16 <-> float conversion (round to nearest, ties to even).
#include "vireo/float16.hpp"

namespace vireo {

uint16_t float16::from_float(float value) {
    uint32_t x;
    std::memcpy(&x, &value, sizeof x);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t abs = x & 0x7fffffffu;
    if (abs > 0x7f800000u)
        return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // NaN
    if (abs >= 0x477ff000u)
        return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
    if (abs < 0x38800000u) {
        // Result is subnormal or zero: value = m * 2^-24 with m < 1024.
        if (abs < 0x33000000u)
            return static_cast<uint16_t>(sign);  // below half the smallest subnormal
        const uint32_t exp = abs >> 23;
        const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift =
            126u - exp;  // 14 + (113 - exp) + ...: bits to drop from the 24-bit mantissa
        const uint32_t kept = mant >> shift;
        const uint32_t rest = mant & ((1u << shift) - 1u);
        const uint32_t half = 1u << (shift - 1u);
        uint32_t result = kept;
        if (rest > half || (rest == half && (kept & 1u))) ++result;
        return static_cast<uint16_t>(sign | result);
    }
    // Normal: rebias exponent from 127 to 15 and round the mantissa from 23 to 10 bits.
    uint32_t result = ((abs >> 23) - 112u) << 10 | ((abs >> 13) & 0x3ffu);
    const uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u)))
        ++result;  // may carry into the exponent: correct
    return static_cast<uint16_t>(sign | result);
}

float float16::to_float(uint16_t bits) {
    const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
    const uint32_t exp = (bits >> 10) & 0x1fu;
    uint32_t mant = bits & 0x3ffu;
    uint32_t out;
    if (exp == 0x1fu) {
        out = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
        out = sign | ((exp + 112u) << 23) | (mant << 13);
    } else if (mant == 0) {
        out = sign;
    } else {
        // Subnormal: normalise.
        uint32_t e = 113u;
        while (!(mant & 0x400u)) {
            mant <<= 1;
            --e;
        }
        out = sign | (e << 23) | ((mant & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &out, sizeof f);
    return f;
}

}  // namespace vireo
