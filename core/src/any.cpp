// Implements Any's comparisons and printing, and the text codecs of bool and AnyMap.
#include "vireo/any.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

namespace vireo {

std::string detail::readable_type_name(const std::type_info& type) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> name(
        abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
    // Failing that (it does not for a type_info), the kind of value rather than ABI text.
    return status == 0 && name ? std::string(name.get()) : std::string("a value of another type");
}

bool TextCodec<bool>::from_text(const std::string& t) {
    std::string v(t);
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::toupper(c); });
    if (v == "YES" || v == "TRUE" || v == "1" || v == "ON") return true;
    if (v == "NO" || v == "FALSE" || v == "0" || v == "OFF") return false;
    throw_error<InvalidArgument>("cannot read '", t,
                                 "' as bool (expected YES/NO, true/false or 1/0)");
}

namespace {

std::string trimmed(const std::string& s, size_t begin, size_t end) {
    while (begin < end && std::isspace(static_cast<unsigned char>(s[begin]))) ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
    return s.substr(begin, end - begin);
}

// Maps nest this deep at most (a device's settings inside a meta-device's are depth 2): text
// from a configuration file must not be able to recurse the stack away.
constexpr int kMaxMapDepth = 16;

// Reads "{K:V,...}" starting at text[pos] == '{'; leaves pos after the closing brace.
AnyMap read_map(const std::string& text, size_t& pos, int depth = 1) {
    auto fail = [&](const char* what) {
        throw_error<InvalidArgument>("cannot read '", text, "' as a map ({KEY:VALUE,...}): ", what,
                                     " at offset ", pos);
    };
    if (depth > kMaxMapDepth) fail("maps nested deeper than 16");
    AnyMap map;
    ++pos;  // '{'
    while (true) {
        while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
        if (pos >= text.size()) fail("missing '}'");
        if (text[pos] == '}') {
            ++pos;
            return map;
        }
        const size_t colon = text.find(':', pos);
        if (colon == std::string::npos) fail("a key without ':'");
        const std::string key = trimmed(text, pos, colon);
        if (key.empty() || key.find_first_of(",{}") != std::string::npos) fail("a bad key");
        pos = colon + 1;
        while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
        if (pos < text.size() && text[pos] == '{') {
            map[key] = read_map(text, pos, depth + 1);
        } else {
            const size_t end = text.find_first_of(",}", pos);
            if (end == std::string::npos) fail("missing '}'");
            map[key] = trimmed(text, pos, end);
            pos = end;
        }
        while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
        if (pos < text.size() && text[pos] == ',')
            ++pos;
        else if (pos >= text.size() || text[pos] != '}')
            fail("expected ',' or '}'");
    }
}

}  // namespace

std::string TextCodec<AnyMap>::to_text(const AnyMap& map) {
    std::string out = "{";
    for (const auto& [key, value] : map) {
        if (out.size() > 1) out += ',';
        out += key + ':' + value.to_string();
    }
    return out + '}';
}

AnyMap TextCodec<AnyMap>::from_text(const std::string& text) {
    size_t pos = 0;
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos >= text.size()) return {};
    if (text[pos] != '{')
        throw_error<InvalidArgument>("cannot read '", text,
                                     "' as a map: expected '{KEY:VALUE,...}'");
    AnyMap map = read_map(text, pos);
    if (!trimmed(text, pos, text.size()).empty())
        throw_error<InvalidArgument>("cannot read '", text,
                                     "' as a map: text after the closing '}'");
    return map;
}

bool Any::operator==(const Any& other) const {
    if (empty() || other.empty()) return empty() == other.empty();
    return to_string() == other.to_string();
}

}  // namespace vireo
