// Declares JsonValue, a small read-only JSON document model for the tokenizer's files
// (tokenizer.json, vocab.json, encoder.json) and the pipeline's configs, parsed by RapidJSON.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vireo::genai::detail {

/// One JSON value. Objects keep their members in file order (duplicates kept; find() returns the
/// first); numbers are kept as double. Immutable after parse(); safe to read from many threads.
class JsonValue {
  public:
    enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

    /// Parses a whole document. Throws vireo::InvalidArgument naming `what` (a file name) and the
    /// byte offset when the text is not JSON or has trailing content.
    static JsonValue parse(std::string_view text, std::string_view what);

    Type type() const { return m_type; }
    bool is_null() const { return m_type == Type::kNull; }
    bool is_string() const { return m_type == Type::kString; }
    bool is_array() const { return m_type == Type::kArray; }
    bool is_object() const { return m_type == Type::kObject; }
    bool is_number() const { return m_type == Type::kNumber; }
    bool is_bool() const { return m_type == Type::kBool; }

    /// Typed access; each throws vireo::InvalidArgument when the value has another type.
    const std::string& as_string() const;
    double as_number() const;
    int64_t as_int() const;
    bool as_bool() const;
    const std::vector<JsonValue>& as_array() const;
    const std::vector<std::pair<std::string, JsonValue>>& as_object() const;

    /// The member named `key` of an object, or nullptr (also when this is not an object).
    const JsonValue* find(std::string_view key) const;

  private:
    friend class JsonParser;
    Type m_type = Type::kNull;
    bool m_bool = false;
    double m_number = 0.0;
    std::string m_string;
    std::vector<JsonValue> m_array;
    std::vector<std::pair<std::string, JsonValue>> m_object;
};

}  // namespace vireo::genai::detail
