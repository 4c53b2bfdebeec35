// Declares GPT-2's byte-level scheme: the pre-tokenization pattern (implemented by hand over
// Unicode classes) and the map between bytes and the printable characters its vocabulary uses.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vireo::genai::detail {

/// Splits `text` as GPT-2's pattern does:
///   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
/// with \p{L}, \p{N} and \s from unicode.hpp. Bytes that are not well-formed UTF-8 count as
/// "other" (neither letter, number nor space), so every byte string splits and the pieces
/// concatenate to `text`. The views point into `text`.
std::vector<std::string_view> split_gpt2_pattern(std::string_view text);

/// GPT-2's bytes_to_unicode: byte b -> the UTF-8 text of the character standing for it
/// (printable Latin-1 bytes stand for themselves, the other 68 map to U+0100.. in order).
const std::array<std::string, 256>& byte_to_symbol();

/// The inverse map: code point -> byte, or -1 for code points that stand for no byte.
int symbol_to_byte(uint32_t code_point);

}  // namespace vireo::genai::detail
