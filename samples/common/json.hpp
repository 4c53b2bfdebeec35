// Strict JSON reading (RapidJSON underneath) and string quoting for the samples (benchmark_app's
// -load_config) and their tests (checking that reports and traces are valid JSON, RFC 8259).
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace vireo::samples {

struct JsonValue {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string text;
    std::vector<JsonValue> items;
    std::map<std::string, JsonValue> members;

    bool has(const std::string& key) const {
        return kind == Kind::Object && members.count(key) != 0;
    }
    const JsonValue& operator[](const std::string& key) const {
        auto it = members.find(key);
        if (kind != Kind::Object || it == members.end())
            throw std::runtime_error("no key '" + key + "'");
        return it->second;
    }
};

/// Parses `text` as one JSON value; throws std::runtime_error with the offset of the first fault.
/// Nesting deeper than 64 is refused; \uXXXX escapes (surrogate pairs included) become UTF-8.
JsonValue parse_json(const std::string& text);

/// `text` as a JSON string literal, quotes included (", \ and control characters escaped).
std::string json_quote(const std::string& text);

}  // namespace vireo::samples
