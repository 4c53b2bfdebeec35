// Implements JsonValue::parse on RapidJSON's SAX reader (iterative, so nesting depth costs no
// stack; UTF-8 validated) and JsonValue's typed accessors. Numbers come as their text and are
// converted by std::from_chars (correctly rounded): RapidJSON 1.1.0's own full-precision
// conversion computes __builtin_clzll(0) and then shifts by a garbage exponent for a number whose
// digits are all zero after trimming (undefined behaviour the tokenizer fuzz target found; its
// reproducer is tests/fuzz/corpus/tokenizer/rapidjson_zero_significand).
#include "json_value.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <charconv>
#include <cmath>
#include <vireo/exception.hpp>

namespace vireo::genai::detail {

/// RapidJSON SAX handler that builds the JsonValue tree. Open arrays and objects are on a stack of
/// pointers into their parents; a parent takes no new member while a child is open, so the
/// pointers stay valid.
class JsonParser {
  public:
    // Deep enough for any tokenizer or configuration file; the tree's destructor recurses.
    static constexpr size_t kMaxDepth = 256;

    JsonValue root;
    bool too_deep = false;
    std::string bad_number;  // a number std::from_chars cannot take (out of double's range)

    bool Null() { return add(JsonValue::Type::kNull) != nullptr; }
    bool Bool(bool b) {
        JsonValue* v = add(JsonValue::Type::kBool);
        v->m_bool = b;
        return true;
    }
    // Every number arrives here (kParseNumbersAsStringsFlag), as the JSON grammar spells it.
    bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
        double d = 0;
        const auto [end, error] = std::from_chars(s, s + n, d);
        if (error == std::errc::result_out_of_range && end == s + n) {
            // Too small for a double is zero (as a parser that rounds would give); too large is
            // an error, as RapidJSON's own conversion made it.
            const std::string_view text(s, n);
            const size_t e = text.find_first_of("eE");
            if (e != std::string_view::npos && e + 1 < n && text[e + 1] == '-')
                return number(text[0] == '-' ? -0.0 : 0.0);
        }
        if (error != std::errc() || end != s + n) {
            bad_number.assign(s, std::min<size_t>(n, 40));
            return false;
        }
        return number(d);
    }
    // Not called with kParseNumbersAsStringsFlag; RapidJSON's handler concept needs them.
    bool Int(int i) { return number(i); }
    bool Uint(unsigned u) { return number(u); }
    bool Int64(int64_t i) { return number(static_cast<double>(i)); }
    bool Uint64(uint64_t u) { return number(static_cast<double>(u)); }
    bool Double(double d) { return number(d); }
    bool String(const char* s, rapidjson::SizeType n, bool) {
        add(JsonValue::Type::kString)->m_string.assign(s, n);
        return true;
    }
    bool StartObject() { return open(JsonValue::Type::kObject); }
    bool Key(const char* s, rapidjson::SizeType n, bool) {
        m_key.assign(s, n);
        return true;
    }
    bool EndObject(rapidjson::SizeType) { return close(); }
    bool StartArray() { return open(JsonValue::Type::kArray); }
    bool EndArray(rapidjson::SizeType) { return close(); }

  private:
    bool number(double d) {
        add(JsonValue::Type::kNumber)->m_number = d;
        return true;
    }
    // The new value: the root, the next element of the open array, or the open object's member
    // named by the last key.
    JsonValue* add(JsonValue::Type type) {
        JsonValue* v = &root;
        if (!m_open.empty()) {
            JsonValue& parent = *m_open.back();
            if (parent.m_type == JsonValue::Type::kArray) {
                v = &parent.m_array.emplace_back();
            } else {
                v = &parent.m_object.emplace_back(std::move(m_key), JsonValue{}).second;
                m_key.clear();
            }
        }
        v->m_type = type;
        return v;
    }
    bool open(JsonValue::Type type) {
        if (m_open.size() >= kMaxDepth) {
            too_deep = true;
            return false;
        }
        m_open.push_back(add(type));
        return true;
    }
    bool close() {
        m_open.pop_back();
        return true;
    }

    std::vector<JsonValue*> m_open;
    std::string m_key;
};

JsonValue JsonValue::parse(std::string_view text, std::string_view what) {
    JsonParser builder;
    rapidjson::Reader reader;
    rapidjson::MemoryStream stream(text.data(), text.size());
    constexpr unsigned kFlags = rapidjson::kParseIterativeFlag |
                                rapidjson::kParseValidateEncodingFlag |
                                rapidjson::kParseNumbersAsStringsFlag;
    const rapidjson::ParseResult result = reader.Parse<kFlags>(stream, builder);
    if (result.IsError()) {
        if (!builder.bad_number.empty())
            throw_error<InvalidArgument>(what, ": JSON error at byte ", result.Offset(),
                                         ": the number '", builder.bad_number,
                                         "' is out of range of a double");
        throw_error<InvalidArgument>(what, ": JSON error at byte ", result.Offset(), ": ",
                                     builder.too_deep ? "nesting deeper than 256 levels"
                                                      : rapidjson::GetParseError_En(result.Code()));
    }
    return std::move(builder.root);
}

namespace {
[[noreturn]] void wrong_type(const char* expected) {
    throw_error<InvalidArgument>("JSON value: expected ", expected);
}
}  // namespace

const std::string& JsonValue::as_string() const {
    if (m_type != Type::kString) wrong_type("a string");
    return m_string;
}
double JsonValue::as_number() const {
    if (m_type != Type::kNumber) wrong_type("a number");
    return m_number;
}
int64_t JsonValue::as_int() const {
    const double d = as_number();
    if (d != std::floor(d) || std::fabs(d) > 9.0e15) wrong_type("an integer");
    return static_cast<int64_t>(d);
}
bool JsonValue::as_bool() const {
    if (m_type != Type::kBool) wrong_type("true or false");
    return m_bool;
}
const std::vector<JsonValue>& JsonValue::as_array() const {
    if (m_type != Type::kArray) wrong_type("an array");
    return m_array;
}
const std::vector<std::pair<std::string, JsonValue>>& JsonValue::as_object() const {
    if (m_type != Type::kObject) wrong_type("an object");
    return m_object;
}
const JsonValue* JsonValue::find(std::string_view key) const {
    if (m_type != Type::kObject) return nullptr;
    for (const auto& [k, v] : m_object)
        if (k == key) return &v;
    return nullptr;
}

}  // namespace vireo::genai::detail
