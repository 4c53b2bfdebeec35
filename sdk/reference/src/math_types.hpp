// Declares the math kernels' element-type helpers (internal): compute types (f16/bf16 compute in
// float), inline exact f16 <-> f32 conversion for hot loops, and element load/store.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "vireo/float16.hpp"

namespace vireo::reference::math {

template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;
template <typename T>
inline constexpr bool is_real_v = std::is_floating_point_v<T> || is_half_v<T>;

/// The type arithmetic on T is done in: f16/bf16 compute in float and are rounded once on store.
template <typename T>
struct compute_type {
    using type = T;
};
template <>
struct compute_type<float16> {
    using type = float;
};
template <>
struct compute_type<bfloat16> {
    using type = float;
};
template <typename T>
using compute_t = typename compute_type<T>::type;

// Inline f16 <-> f32 conversions for hot loops (float16's own are out of line). Both are exact
// (round to nearest even, overflow to inf, subnormals); NaN becomes the quiet NaN 0x7e00 | sign.
inline float half_bits_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t em = h & 0x7fffu;
    uint32_t bits;
    if (em >= 0x7c00u) {
        bits = (em << 13) | 0x7f800000u;  // inf / NaN
    } else {
        // Scaling by 2^112 rebiases the exponent and normalises subnormals exactly.
        float f;
        const uint32_t shifted = em << 13;
        std::memcpy(&f, &shifted, sizeof f);
        f *= 0x1p112f;
        std::memcpy(&bits, &f, sizeof bits);
    }
    bits |= sign;
    float out;
    std::memcpy(&out, &bits, sizeof out);
    return out;
}

inline uint16_t float_to_half_bits(float value) {
    uint32_t f;
    std::memcpy(&f, &value, sizeof f);
    const uint32_t sign = (f >> 16) & 0x8000u;
    f &= 0x7fffffffu;
    uint32_t out;
    if (f >= 0x47800000u) {  // >= 65536, inf or NaN
        out = f > 0x7f800000u ? 0x7e00u : 0x7c00u;
    } else if (f <
               0x38800000u) {  // below the smallest normal half: let the FPU round the subnormal
        constexpr uint32_t kDenormMagic = ((127 - 15) + (23 - 10) + 1) << 23;
        float a, m;
        std::memcpy(&a, &f, sizeof a);
        std::memcpy(&m, &kDenormMagic, sizeof m);
        a += m;
        std::memcpy(&out, &a, sizeof out);
        out -= kDenormMagic;
    } else {
        const uint32_t odd = (f >> 13) & 1u;
        f += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu +
             odd;       // rebias and round half to even
        out = f >> 13;  // a carry may give inf: correct
    }
    return static_cast<uint16_t>(out | sign);
}

/// Reads an element into its compute type (inline for f16).
template <typename T>
inline compute_t<T> to_compute(T x) {
    if constexpr (std::is_same_v<T, float16>)
        return half_bits_to_float(x.to_bits());
    else
        return static_cast<compute_t<T>>(x);
}

/// Stores a compute-type value as element type T (inline for f16; bf16 rounds in its own inline
/// code).
template <typename T, typename V>
inline T from_compute(V v) {
    if constexpr (std::is_same_v<T, float16>)
        return float16::from_bits(float_to_half_bits(static_cast<float>(v)));
    else
        return static_cast<T>(v);
}

}  // namespace vireo::reference::math
