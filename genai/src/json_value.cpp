// Implements JsonValue's recursive-descent parser (UTF-8 in, \u escapes and surrogate pairs out
// as UTF-8) and its typed accessors.
#include "json_value.hpp"

#include <cmath>
#include <cstdlib>
#include <vireo/exception.hpp>

#include "unicode.hpp"

namespace vireo::genai::detail {

class JsonParser {
  public:
    JsonParser(std::string_view text, std::string_view what) : m_text(text), m_what(what) {}

    JsonValue document() {
        JsonValue v = value(0);
        skip_space();
        if (m_pos != m_text.size()) fail("trailing content after the document");
        return v;
    }

  private:
    // Deep enough for any tokenizer file, shallow enough that a hostile file cannot overflow the
    // stack.
    static constexpr int kMaxDepth = 256;

    [[noreturn]] void fail(std::string_view message) const {
        throw_error<InvalidArgument>(m_what, ": JSON error at byte ", m_pos, ": ", message);
    }

    void skip_space() {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' ||
                                         m_text[m_pos] == '\r' || m_text[m_pos] == '\t'))
            ++m_pos;
    }

    bool consume(std::string_view word) {
        if (m_text.substr(m_pos, word.size()) != word) return false;
        m_pos += word.size();
        return true;
    }

    JsonValue value(int depth) {
        if (depth > kMaxDepth) fail("nesting deeper than 256 levels");
        skip_space();
        if (m_pos >= m_text.size()) fail("unexpected end of text");
        JsonValue v;
        const char c = m_text[m_pos];
        if (c == '{') {
            v.m_type = JsonValue::Type::kObject;
            ++m_pos;
            skip_space();
            if (consume("}")) return v;
            while (true) {
                skip_space();
                if (m_pos >= m_text.size() || m_text[m_pos] != '"') fail("expected a member name");
                std::string key = string();
                skip_space();
                if (!consume(":")) fail("expected ':' after a member name");
                v.m_object.emplace_back(std::move(key), value(depth + 1));
                skip_space();
                if (consume(",")) continue;
                if (consume("}")) break;
                fail("expected ',' or '}' in an object");
            }
        } else if (c == '[') {
            v.m_type = JsonValue::Type::kArray;
            ++m_pos;
            skip_space();
            if (consume("]")) return v;
            while (true) {
                v.m_array.push_back(value(depth + 1));
                skip_space();
                if (consume(",")) continue;
                if (consume("]")) break;
                fail("expected ',' or ']' in an array");
            }
        } else if (c == '"') {
            v.m_type = JsonValue::Type::kString;
            v.m_string = string();
        } else if (consume("true")) {
            v.m_type = JsonValue::Type::kBool;
            v.m_bool = true;
        } else if (consume("false")) {
            v.m_type = JsonValue::Type::kBool;
        } else if (consume("null")) {
            v.m_type = JsonValue::Type::kNull;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            v.m_type = JsonValue::Type::kNumber;
            v.m_number = number();
        } else {
            fail("unexpected character");
        }
        return v;
    }

    double number() {
        const size_t start = m_pos;
        if (m_text[m_pos] == '-') ++m_pos;
        auto digits = [&] {
            const size_t from = m_pos;
            while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') ++m_pos;
            if (m_pos == from) fail("malformed number");
        };
        digits();
        if (m_pos < m_text.size() && m_text[m_pos] == '.') {
            ++m_pos;
            digits();
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            ++m_pos;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) ++m_pos;
            digits();
        }
        // strtod needs a terminated string; numbers are short.
        const std::string literal(m_text.substr(start, m_pos - start));
        return std::strtod(literal.c_str(), nullptr);
    }

    uint32_t hex4() {
        if (m_pos + 4 > m_text.size()) fail("truncated \\u escape");
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = m_text[m_pos++];
            v <<= 4;
            if (h >= '0' && h <= '9')
                v |= static_cast<uint32_t>(h - '0');
            else if (h >= 'a' && h <= 'f')
                v |= static_cast<uint32_t>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                v |= static_cast<uint32_t>(h - 'A' + 10);
            else
                fail("bad hex digit in a \\u escape");
        }
        return v;
    }

    std::string string() {
        ++m_pos;  // the opening quote
        std::string out;
        while (true) {
            if (m_pos >= m_text.size()) fail("unterminated string");
            const char c = m_text[m_pos++];
            if (c == '"') break;
            if (static_cast<unsigned char>(c) < 0x20) fail("control character inside a string");
            if (c != '\\') {
                out.push_back(c);
                continue;
            }
            if (m_pos >= m_text.size()) fail("unterminated escape");
            const char e = m_text[m_pos++];
            switch (e) {
                case '"':
                    out.push_back('"');
                    break;
                case '\\':
                    out.push_back('\\');
                    break;
                case '/':
                    out.push_back('/');
                    break;
                case 'b':
                    out.push_back('\b');
                    break;
                case 'f':
                    out.push_back('\f');
                    break;
                case 'n':
                    out.push_back('\n');
                    break;
                case 'r':
                    out.push_back('\r');
                    break;
                case 't':
                    out.push_back('\t');
                    break;
                case 'u': {
                    uint32_t cp = hex4();
                    // A high surrogate followed by an escaped low one is one code point; a lone
                    // surrogate becomes U+FFFD, as JSON parsers that produce UTF-8 do.
                    if (cp >= 0xD800 && cp <= 0xDBFF && m_text.substr(m_pos, 2) == "\\u") {
                        const size_t save = m_pos;
                        m_pos += 2;
                        const uint32_t low = hex4();
                        if (low >= 0xDC00 && low <= 0xDFFF)
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        else
                            m_pos = save;
                    }
                    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
                    append_utf8(out, cp);
                    break;
                }
                default:
                    fail("unknown escape");
            }
        }
        return out;
    }

    std::string_view m_text;
    std::string_view m_what;
    size_t m_pos = 0;
};

JsonValue JsonValue::parse(std::string_view text, std::string_view what) {
    return JsonParser(text, what).document();
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
