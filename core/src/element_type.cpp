// Implements element::Type: sizes, names and IR precision spellings.
#include "vireo/element_type.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "vireo/exception.hpp"

namespace vireo::element {
namespace {

struct TypeInfo {
    TypeId id;
    size_t bits;
    const char* name;
    const char* precision;
    bool real;
    bool integral;
    bool is_signed;
};

constexpr std::array<TypeInfo, 18> kTypes{{
    {TypeId::undefined, 0, "undefined", "UNSPECIFIED", false, false, false},
    {TypeId::dynamic, 0, "dynamic", "DYNAMIC", false, false, false},
    {TypeId::boolean, 8, "boolean", "BOOL", false, true, false},
    {TypeId::u1, 1, "u1", "BIN", false, true, false},
    {TypeId::u4, 4, "u4", "U4", false, true, false},
    {TypeId::i4, 4, "i4", "I4", false, true, true},
    {TypeId::u8, 8, "u8", "U8", false, true, false},
    {TypeId::i8, 8, "i8", "I8", false, true, true},
    {TypeId::u16, 16, "u16", "U16", false, true, false},
    {TypeId::i16, 16, "i16", "I16", false, true, true},
    {TypeId::u32, 32, "u32", "U32", false, true, false},
    {TypeId::i32, 32, "i32", "I32", false, true, true},
    {TypeId::u64, 64, "u64", "U64", false, true, false},
    {TypeId::i64, 64, "i64", "I64", false, true, true},
    {TypeId::f16, 16, "f16", "FP16", true, false, true},
    {TypeId::bf16, 16, "bf16", "BF16", true, false, true},
    {TypeId::f32, 32, "f32", "FP32", true, false, true},
    {TypeId::f64, 64, "f64", "FP64", true, false, true},
}};

const TypeInfo& info(TypeId id) {
    return kTypes[static_cast<size_t>(id)];
}

std::string upper(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return std::toupper(c); });
    return out;
}

}  // namespace

size_t Type::bitwidth() const {
    return info(m_id).bits;
}
size_t Type::size() const {
    return (bitwidth() + 7) / 8;
}

size_t Type::bytes_for(size_t count) const {
    const size_t bits = bitwidth();
    if (bits == 0) throw_error<InvalidArgument>("element type ", name(), " has no size");
    if (bits >= 8) {
        const size_t bytes = bits / 8;
        if (count > SIZE_MAX / bytes)
            throw_error<InvalidArgument>(count, " elements of ", name(),
                                         " overflow the addressable size");
        return count * bytes;
    }
    const size_t per_byte = 8 / bits;
    return count / per_byte + (count % per_byte ? 1 : 0);
}

std::string_view Type::name() const {
    return info(m_id).name;
}
std::string_view Type::precision() const {
    return info(m_id).precision;
}
bool Type::is_real() const {
    return info(m_id).real;
}
bool Type::is_integral() const {
    return info(m_id).integral;
}
bool Type::is_integral_number() const {
    return info(m_id).integral && m_id != TypeId::boolean;
}
bool Type::is_signed() const {
    return info(m_id).is_signed;
}

Type Type::from_name(std::string_view text) {
    const std::string key = upper(text);
    for (const auto& t : kTypes) {
        if (key == upper(t.name) || key == t.precision) return Type(t.id);
    }
    // Other spellings seen in IR files.
    if (key == "FP64" || key == "F64") return f64;
    if (key == "BOOLEAN" || key == "BOOL") return boolean;
    if (key == "U1") return u1;
    std::string known;
    for (const auto& t : kTypes) {
        if (t.bits == 0) continue;
        if (!known.empty()) known += ", ";
        known += t.name;
    }
    throw_error<InvalidArgument>("unknown element type '", text, "' (known: ", known, ")");
}

const std::vector<Type>& Type::all_static() {
    static const std::vector<Type> all = [] {
        std::vector<Type> v;
        for (const auto& t : kTypes)
            if (t.bits != 0) v.emplace_back(t.id);
        return v;
    }();
    return all;
}

bool Type::merge(Type& dst, const Type& a, const Type& b) {
    if (a.is_dynamic()) {
        dst = b;
        return true;
    }
    if (b.is_dynamic() || a == b) {
        dst = a;
        return true;
    }
    return false;
}

std::ostream& operator<<(std::ostream& out, const Type& type) {
    return out << type.name();
}

std::istream& operator>>(std::istream& in, Type& type) {
    std::string name;
    if (!(in >> name)) return in;
    try {
        type = Type::from_name(name);
    } catch (const Exception&) {
        in.setstate(std::ios::failbit);
    }
    return in;
}

}  // namespace vireo::element
