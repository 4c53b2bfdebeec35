// Implements Any's comparisons and printing, and the text codec of bool.
#include "vireo/any.hpp"

#include <algorithm>
#include <cctype>

namespace vireo {

bool TextCodec<bool>::from_text(const std::string& t) {
    std::string v(t);
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::toupper(c); });
    if (v == "YES" || v == "TRUE" || v == "1" || v == "ON") return true;
    if (v == "NO" || v == "FALSE" || v == "0" || v == "OFF") return false;
    throw_error<InvalidArgument>("cannot read '", t, "' as bool (expected YES/NO, true/false or 1/0)");
}

bool Any::operator==(const Any& other) const {
    if (empty() || other.empty()) return empty() == other.empty();
    return to_string() == other.to_string();
}

}  // namespace vireo
