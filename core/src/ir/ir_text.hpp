// Declares the text codecs of the IR format: numbers, comma lists, attribute values and
// escaped tensor-name lists (internal to the IR reader and writer).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "vireo/op_registry.hpp"

namespace vireo::ir {

std::string_view trim(std::string_view text);

/// Whole-text decimal parses (surrounding spaces allowed); false on junk, emptiness or overflow.
bool parse_int64(std::string_view text, int64_t& out);
bool parse_uint64(std::string_view text, uint64_t& out);
bool parse_double(std::string_view text, double& out);

/// Comma-separated items with surrounding spaces trimmed; "" (or only spaces) is an empty list.
std::vector<std::string> split_list(std::string_view text);

/// Parses `<data>` attribute text into a value of `type`: bool "true"/"false" (any case),
/// integers, numbers, comma lists (possibly empty), element type names, partial shapes.
/// Throws InvalidArgument saying what was expected and quoting the text; the caller adds the
/// layer and attribute.
AttrValue parse_attribute(AttrType type, const std::string& text);

/// A port's `names`: comma-separated tensor names, "\," standing for a comma inside a name;
/// names are trimmed and empty ones dropped.
std::set<std::string> parse_tensor_names(std::string_view text);
/// The inverse: sorted names joined with ",", commas inside names escaped as "\,".
std::string format_tensor_names(const std::set<std::string>& names);

}  // namespace vireo::ir
