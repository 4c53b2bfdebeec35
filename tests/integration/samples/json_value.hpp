// A minimal, strict JSON parser for the sample tests: checks that benchmark_app's report and
// trace are valid JSON (RFC 8259 syntax) and lets the tests look values up. Not for production.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace vireo::sample_test {

struct JsonValue {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string text;
    std::vector<JsonValue> items;
    std::map<std::string, JsonValue> members;

    bool has(const std::string& key) const { return kind == Kind::Object && members.count(key) != 0; }
    const JsonValue& operator[](const std::string& key) const {
        auto it = members.find(key);
        if (kind != Kind::Object || it == members.end()) throw std::runtime_error("no key '" + key + "'");
        return it->second;
    }
};

/// Parses `text` as one JSON value; throws std::runtime_error with the offset of the first fault.
JsonValue parse_json(const std::string& text);

}  // namespace vireo::sample_test
