// KServe datatype names <-> Vireo element types.
#include "datatype.hpp"

#include <limits>

namespace vireo::server {

namespace {

struct Entry {
    std::string_view name;
    element::Type type;
};

constexpr Entry kTable[] = {
    {"BOOL", element::boolean}, {"UINT8", element::u8},   {"UINT16", element::u16},
    {"UINT32", element::u32},   {"UINT64", element::u64}, {"INT8", element::i8},
    {"INT16", element::i16},    {"INT32", element::i32},  {"INT64", element::i64},
    {"FP16", element::f16},     {"BF16", element::bf16},  {"FP32", element::f32},
    {"FP64", element::f64},
};

}  // namespace

std::optional<element::Type> element_type_of(std::string_view datatype) {
    for (const auto& e : kTable) {
        if (e.name == datatype) return e.type;
    }
    return std::nullopt;
}

std::string datatype_of(element::Type type) {
    for (const auto& e : kTable) {
        if (e.type == type) return std::string(e.name);
    }
    return {};
}

std::optional<uint64_t> element_count(const std::vector<int64_t>& shape, size_t element_size) {
    uint64_t count = 1;
    constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
    for (int64_t d : shape) {
        if (d < 0) return std::nullopt;
        if (d != 0 && count > kMax / static_cast<uint64_t>(d)) return std::nullopt;
        count *= static_cast<uint64_t>(d);
    }
    if (element_size != 0 && count > kMax / element_size) return std::nullopt;
    return count;
}

}  // namespace vireo::server
