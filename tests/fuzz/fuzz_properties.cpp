// Fuzz target: property values parsed from text (as plugins.xml and command lines give them)
// either convert or throw vireo::Exception.
#include <cstdint>
#include <string>

#include "vireo/element_type.hpp"
#include "vireo/partial_shape.hpp"
#include "vireo/properties.hpp"

namespace {
template <typename T>
void try_as(const vireo::Any& any) {
    try {
        (void)any.as<T>();
    } catch (const vireo::Exception&) {
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const vireo::Any any(text);
    try_as<bool>(any);
    try_as<int32_t>(any);
    try_as<uint32_t>(any);
    try_as<int64_t>(any);
    try_as<double>(any);
    try_as<std::vector<std::string>>(any);
    try_as<std::vector<int>>(any);
    try_as<vireo::hint::PerformanceMode>(any);
    try_as<vireo::log::Level>(any);
    try {
        (void)vireo::PartialShape::parse(text);
    } catch (const vireo::Exception&) {
    }
    try {
        (void)vireo::element::Type::from_name(text);
    } catch (const vireo::Exception&) {
    }
    return 0;
}
