// Implements the samples' strict JSON reader (recursive descent over the RFC grammar) and quoting.
#include "json.hpp"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vireo::samples {
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
        while (m_pos < m_text.size() && std::strchr(" \t\r\n", m_text[m_pos]) &&
               m_text[m_pos] != '\0')
            ++m_pos;
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
                if (peek() == ',') {
                    ++m_pos;
                    continue;
                }
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
                if (peek() == ',') {
                    ++m_pos;
                    continue;
                }
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
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_pos >= m_text.size()) fail("unterminated escape");
            const char e = m_text[m_pos++];
            if (e == 'u') {
                uint32_t code = hex4();
                if (code >= 0xD800 && code < 0xDC00) {  // a high surrogate: its low half follows
                    if (m_text.compare(m_pos, 2, "\\u") != 0) fail("unpaired surrogate");
                    m_pos += 2;
                    const uint32_t low = hex4();
                    if (low < 0xDC00 || low >= 0xE000) fail("unpaired surrogate");
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                } else if (code >= 0xDC00 && code < 0xE000) {
                    fail("unpaired surrogate");
                }
                append_utf8(out, code);
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

    uint32_t hex4() {
        uint32_t code = 0;
        for (int i = 0; i < 4; ++i, ++m_pos) {
            if (m_pos >= m_text.size() || !std::isxdigit(static_cast<unsigned char>(m_text[m_pos])))
                fail("bad \\u escape");
            const char c = m_text[m_pos];
            code = code * 16 + static_cast<uint32_t>(
                                   std::isdigit(static_cast<unsigned char>(c))
                                       ? c - '0'
                                       : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
        }
        return code;
    }

    static void append_utf8(std::string& out, uint32_t code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    double parse_number() {
        const size_t begin = m_pos;
        auto digits = [&] {
            const size_t start = m_pos;
            while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos])))
                ++m_pos;
            if (m_pos == start) fail("expected a digit");
        };
        if (m_text[m_pos] == '-') ++m_pos;
        if (m_pos < m_text.size() && m_text[m_pos] == '0')
            ++m_pos;
        else
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
        return std::strtod(m_text.substr(begin, m_pos - begin).c_str(), nullptr);
    }

    const std::string& m_text;
    size_t m_pos = 0;
};

}  // namespace

JsonValue parse_json(const std::string& text) {
    return Parser(text).parse_document();
}

std::string json_quote(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

}  // namespace vireo::samples
