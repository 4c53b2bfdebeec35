// Declares vireo::element::Type, the element types a tensor or an IR port may have.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace vireo {
class float16;
class bfloat16;

namespace element {

/// Every element type an OpenVINO IR may name. `dynamic` is "not known yet" (a port whose
/// type is decided later); `undefined` is the type of an empty tensor.
enum class TypeId : uint8_t {
    undefined,
    dynamic,
    boolean,
    u1,
    u4,
    i4,
    u8,
    i8,
    u16,
    i16,
    u32,
    i32,
    u64,
    i64,
    f16,
    bf16,
    f32,
    f64
};

/// A value type: cheap to copy, comparable, usable as a map key.
///
///     element::Type t = element::Type::from_name("f32");   // or element::f32
///     t.size();          // 4 (bytes; sub-byte types round up to 1)
///     t.precision();     // "FP32", the spelling of IR port precisions
class Type {
  public:
    constexpr Type() = default;
    constexpr Type(TypeId id) : m_id(id) {}  // NOLINT: implicit by design, like an enum

    constexpr TypeId id() const { return m_id; }
    /// Bits per element (1 for u1, 4 for u4/i4, 8 for boolean/u8, ...); 0 for undefined/dynamic.
    size_t bitwidth() const;
    /// Bytes per element rounded up (u1/u4/i4 give 1). Use bytes_for() for buffer sizes.
    size_t size() const;
    /// Bytes needed for `count` elements (sub-byte types packed). Throws InvalidArgument on
    /// overflow.
    size_t bytes_for(size_t count) const;
    /// Lower-case name as IR `element_type` writes it: "f32", "u8", "boolean".
    std::string_view name() const;
    /// IR port precision spelling: "FP32", "U8", "BOOL".
    std::string_view precision() const;
    bool is_static() const { return m_id != TypeId::dynamic && m_id != TypeId::undefined; }
    bool is_dynamic() const { return m_id == TypeId::dynamic; }
    bool is_real() const;
    bool is_integral() const;         // integers and boolean
    bool is_integral_number() const;  // integers, not boolean
    bool is_signed() const;
    /// True for u1/u4/i4, whose elements are packed several to a byte.
    bool is_sub_byte() const { return bitwidth() > 0 && bitwidth() < 8; }

    /// Parses a name ("f32") or a precision ("FP32"); case-insensitive. Throws InvalidArgument
    /// naming the text and listing the known names.
    static Type from_name(std::string_view text);
    /// Every static type, in TypeId order.
    static const std::vector<Type>& all_static();

    constexpr bool operator==(const Type& other) const { return m_id == other.m_id; }
    constexpr bool operator!=(const Type& other) const { return m_id != other.m_id; }
    constexpr bool operator<(const Type& other) const { return m_id < other.m_id; }

    /// Merges two types as shape inference does: dynamic merges with anything; otherwise both
    /// must be equal. Returns false when they conflict.
    static bool merge(Type& dst, const Type& a, const Type& b);

  private:
    TypeId m_id = TypeId::undefined;
};

std::ostream& operator<<(std::ostream& out, const Type& type);
/// Reads a type by name (Type::from_name); an unknown name sets failbit (so Any reports it).
std::istream& operator>>(std::istream& in, Type& type);

inline constexpr Type undefined{TypeId::undefined};
inline constexpr Type dynamic{TypeId::dynamic};
inline constexpr Type boolean{TypeId::boolean};
inline constexpr Type u1{TypeId::u1};
inline constexpr Type u4{TypeId::u4};
inline constexpr Type i4{TypeId::i4};
inline constexpr Type u8{TypeId::u8};
inline constexpr Type i8{TypeId::i8};
inline constexpr Type u16{TypeId::u16};
inline constexpr Type i16{TypeId::i16};
inline constexpr Type u32{TypeId::u32};
inline constexpr Type i32{TypeId::i32};
inline constexpr Type u64{TypeId::u64};
inline constexpr Type i64{TypeId::i64};
inline constexpr Type f16{TypeId::f16};
inline constexpr Type bf16{TypeId::bf16};
inline constexpr Type f32{TypeId::f32};
inline constexpr Type f64{TypeId::f64};

/// The element type of a C++ type: from<float>() == f32. bool maps to boolean (stored as one byte).
template <typename T>
constexpr Type from();
template <>
constexpr Type from<bool>() {
    return boolean;
}
template <>
constexpr Type from<uint8_t>() {
    return u8;
}
template <>
constexpr Type from<int8_t>() {
    return i8;
}
template <>
constexpr Type from<uint16_t>() {
    return u16;
}
template <>
constexpr Type from<int16_t>() {
    return i16;
}
template <>
constexpr Type from<uint32_t>() {
    return u32;
}
template <>
constexpr Type from<int32_t>() {
    return i32;
}
template <>
constexpr Type from<uint64_t>() {
    return u64;
}
template <>
constexpr Type from<int64_t>() {
    return i64;
}
template <>
constexpr Type from<float16>() {
    return f16;
}
template <>
constexpr Type from<bfloat16>() {
    return bf16;
}
template <>
constexpr Type from<float>() {
    return f32;
}
template <>
constexpr Type from<double>() {
    return f64;
}

/// Real (float or double) -> integer as Convert does it: NaN gives 0, otherwise truncation toward
/// zero, saturated at the target's range (a plain cast of an out-of-range real is undefined).
template <typename To, typename From>
To saturate_real(From d) {
    static_assert(std::is_floating_point_v<From> && std::is_integral_v<To>);
    if (d != d) return To{0};
    if (d <= static_cast<From>(std::numeric_limits<To>::lowest()))
        return std::numeric_limits<To>::lowest();
    // max() = 2^N - 1 is either exact in From or rounds up to 2^N, so ">=" catches every overflow
    // and everything below converts in range.
    if (d >= static_cast<From>(std::numeric_limits<To>::max()))
        return std::numeric_limits<To>::max();
    return static_cast<To>(d);
}

}  // namespace element
}  // namespace vireo
