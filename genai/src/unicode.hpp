// Declares the UTF-8 and Unicode-class helpers of the tokenizers: lenient UTF-8 decoding (invalid
// bytes kept as one-byte units), UTF-8 encoding, and the letter / number / white-space classes the
// GPT-2 pre-tokenizer needs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vireo::genai::detail {

/// One unit of a decoded UTF-8 string: a code point, or (valid == false) a single byte that does
/// not start a well-formed sequence (stray continuation bytes, truncated or overlong sequences,
/// encoded surrogates, values above U+10FFFF). Invalid bytes carry the byte value in `code_point`.
struct Utf8Unit {
    uint32_t code_point;
    uint32_t offset;  // byte offset in the input
    uint8_t length;   // bytes: 1..4, always 1 when !valid
    bool valid;
};

/// Decodes `text` into units; never throws. Concatenating the units' bytes gives `text` back.
std::vector<Utf8Unit> decode_utf8(std::string_view text);

/// Appends the UTF-8 encoding of `cp` (must be <= 0x10FFFF and not a surrogate).
void append_utf8(std::string& out, uint32_t cp);

/// Unicode general category L* (Lu, Ll, Lt, Lm, Lo), from the table of unicode_tables.inc.
bool is_letter(uint32_t cp);
/// Unicode general category N* (Nd, Nl, No).
bool is_number(uint32_t cp);
/// The Unicode White_Space property (25 code points; `\s` of the regular expressions that
/// GPT-2's pattern was written for).
bool is_whitespace(uint32_t cp);

}  // namespace vireo::genai::detail
