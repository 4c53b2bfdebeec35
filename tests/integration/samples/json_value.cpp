// Implements the strict JSON parser of the sample tests (recursive descent over the RFC grammar).
#include "json_value.hpp"

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace vireo::sample_test {
namespace {

class Parser {
public:
    explicit Parser(const std::string& text) : m_text(text) {}

    JsonValue parse_document() {
        JsonValue v = parse_value(0);
        skip_space();
        if (m_pos != m_text.size()) fail("trailing characters");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("invalid JSON at offset " + std::to_string(m_pos) + ": " + what);
    }
    void skip_space() {
        while (m_pos < m_text.size() && std::strchr(" \t\r\n", m_text[m_pos]) && m_text[m_pos] != '\0') ++m_pos;
    }
    char peek() {
        skip_space();
        if (m_pos >= m_text.size()) fail("unexpected end");
        return m_text[m_pos];
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++m_pos;
    }
    void literal(const std::string& word) {
        if (m_text.compare(m_pos, word.size(), word) != 0) fail("expected " + word);
        m_pos += word.size();
    }

    JsonValue parse_value(int depth) {
        if (depth > 64) fail("nesting too deep");
        JsonValue v;
        const char c = peek();
        if (c == '{') {
            v.kind = JsonValue::Kind::Object;
            ++m_pos;
            if (peek() == '}') return ++m_pos, v;
            for (;;) {
                if (peek() != '"') fail("expected a key");
                std::string key = parse_string();
                expect(':');
                v.members[key] = parse_value(depth + 1);
                if (peek() == ',') { ++m_pos; continue; }
                expect('}');
                return v;
            }
        }
        if (c == '[') {
            v.kind = JsonValue::Kind::Array;
            ++m_pos;
            if (peek() == ']') return ++m_pos, v;
            for (;;) {
                v.items.push_back(parse_value(depth + 1));
                if (peek() == ',') { ++m_pos; continue; }
                expect(']');
                return v;
            }
        }
        if (c == '"') {
            v.kind = JsonValue::Kind::String;
            v.text = parse_string();
            return v;
        }
        if (c == 't' || c == 'f') {
            v.kind = JsonValue::Kind::Bool;
            v.boolean = c == 't';
            literal(v.boolean ? "true" : "false");
            return v;
        }
        if (c == 'n') {
            literal("null");
            return v;
        }
        v.kind = JsonValue::Kind::Number;
        v.number = parse_number();
        return v;
    }

    std::string parse_string() {
        ++m_pos;  // opening quote
        std::string out;
        while (m_pos < m_text.size() && m_text[m_pos] != '"') {
            const char c = m_text[m_pos++];
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
            if (c != '\\') { out += c; continue; }
            if (m_pos >= m_text.size()) fail("unterminated escape");
            const char e = m_text[m_pos++];
            if (e == 'u') {
                for (int i = 0; i < 4; ++i, ++m_pos)
                    if (m_pos >= m_text.size() || !std::isxdigit(static_cast<unsigned char>(m_text[m_pos])))
                        fail("bad \\u escape");
                out += '?';
            } else if (std::strchr("\"\\/bfnrt", e) && e != '\0') {
                out += e;
            } else {
                fail("bad escape");
            }
        }
        if (m_pos >= m_text.size()) fail("unterminated string");
        ++m_pos;
        return out;
    }

    double parse_number() {
        const size_t begin = m_pos;
        auto digits = [&] {
            const size_t start = m_pos;
            while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
            if (m_pos == start) fail("expected a digit");
        };
        if (m_text[m_pos] == '-') ++m_pos;
        if (m_pos < m_text.size() && m_text[m_pos] == '0') ++m_pos; else digits();
        if (m_pos < m_text.size() && m_text[m_pos] == '.') { ++m_pos; digits(); }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            ++m_pos;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) ++m_pos;
            digits();
        }
        return std::strtod(m_text.substr(begin, m_pos - begin).c_str(), nullptr);
    }

    const std::string& m_text;
    size_t m_pos = 0;
};

}  // namespace

JsonValue parse_json(const std::string& text) { return Parser(text).parse_document(); }

}  // namespace vireo::sample_test
