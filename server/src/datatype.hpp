// Declares the mapping between KServe v2 datatype names ("FP32", "UINT8", ...) and Vireo element
// types, and the checked byte size of a tensor of a given shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vireo/element_type.hpp"

namespace vireo::server {

/// The Vireo element type of a KServe datatype name, or nullopt for a name Vireo has no type
/// for (BYTES, or anything unknown). Names are case-sensitive, as in the protocol.
std::optional<element::Type> element_type_of(std::string_view datatype);

/// The KServe datatype name of a Vireo element type; empty for types KServe cannot express
/// (u1, u4, i4, dynamic).
std::string datatype_of(element::Type type);

/// Element count of `shape`, or nullopt if a dimension is negative or the count (or its byte
/// size for `element_size`) overflows 64 bits.
std::optional<uint64_t> element_count(const std::vector<int64_t>& shape, size_t element_size = 1);

}  // namespace vireo::server
