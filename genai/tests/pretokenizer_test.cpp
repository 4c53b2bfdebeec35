// Tests the Unicode classes, lenient UTF-8 decoding and GPT-2's pre-tokenization pattern against
// splits worked out by hand from the pattern.
#include <gtest/gtest.h>

#include "byte_level.hpp"
#include "unicode.hpp"

namespace vireo::genai::detail {
namespace {

std::vector<std::string> split(std::string_view s) {
    std::vector<std::string> out;
    for (auto p : split_gpt2_pattern(s)) out.emplace_back(p);
    return out;
}

using Pieces = std::vector<std::string>;

TEST(UnicodeClasses, LettersNumbersSpaces) {
    for (uint32_t cp : {0x41u, 0x7Au, 0xE9u, 0x3B1u, 0x416u, 0x5D0u, 0x627u, 0x65E5u, 0xD55Cu,
                        0x30C6u, 0x1D400u, 0x20000u})
        EXPECT_TRUE(is_letter(cp)) << std::hex << cp;
    for (uint32_t cp : {0x30u, 0x20u, 0x2Eu, 0x301u, 0x1F642u, 0x2581u, 0x10FFFFu, 0x5Fu})
        EXPECT_FALSE(is_letter(cp)) << std::hex << cp;
    for (uint32_t cp : {0x30u, 0x39u, 0x663u, 0xB2u, 0x2167u, 0xFF11u, 0x1D7CEu})  // Nd, No, Nl
        EXPECT_TRUE(is_number(cp)) << std::hex << cp;
    for (uint32_t cp : {0x41u, 0x2Bu, 0x4E00u}) EXPECT_FALSE(is_number(cp)) << std::hex << cp;
    for (uint32_t cp : {0x20u, 0x09u, 0x0Au, 0x85u, 0xA0u, 0x2003u, 0x3000u, 0x2029u})
        EXPECT_TRUE(is_whitespace(cp)) << std::hex << cp;
    for (uint32_t cp : {0x200Bu, 0xFEFFu, 0x41u, 0x1Cu})
        EXPECT_FALSE(is_whitespace(cp)) << std::hex << cp;
}

TEST(Utf8, DecodesValidAndKeepsInvalidBytes) {
    // 'a', U+00E9, U+65E5, U+1F642, a stray continuation byte, an overlong '/', an encoded
    // surrogate (3 invalid bytes), a truncated 3-byte sequence at the end.
    const std::string s = "a\xC3\xA9\xE6\x97\xA5\xF0\x9F\x99\x82\x80\xC0\xAF\xED\xA0\x80\xE6\x97";
    const auto u = decode_utf8(s);
    ASSERT_EQ(u.size(), 4u + 1 + 2 + 3 + 2);
    EXPECT_EQ(u[1].code_point, 0xE9u);
    EXPECT_EQ(u[2].code_point, 0x65E5u);
    EXPECT_EQ(u[3].code_point, 0x1F642u);
    EXPECT_EQ(u[3].length, 4);
    for (size_t i = 4; i < u.size(); ++i) {
        EXPECT_FALSE(u[i].valid) << i;
        EXPECT_EQ(u[i].length, 1);
    }
    EXPECT_EQ(u[4].code_point, 0x80u);
    EXPECT_EQ(u.back().offset, s.size() - 1);
    std::string re;
    for (uint32_t cp : {0x41u, 0x7FFu, 0x800u, 0xFFFFu, 0x10000u, 0x10FFFFu}) append_utf8(re, cp);
    const auto back = decode_utf8(re);
    ASSERT_EQ(back.size(), 6u);
    EXPECT_EQ(back[5].code_point, 0x10FFFFu);
}

TEST(Gpt2Pattern, WordsContractionsNumbersPunctuation) {
    EXPECT_EQ(split("Hello world"), (Pieces{"Hello", " world"}));
    EXPECT_EQ(split("I'm here's you'll they've we'd it'S"),
              (Pieces{"I", "'m", " here", "'s", " you", "'ll", " they", "'ve", " we", "'d", " it",
                      "'", "S"}));
    EXPECT_EQ(split("3.14 and 2026!"), (Pieces{"3", ".", "14", " and", " 2026", "!"}));
    EXPECT_EQ(split("!!!? !! 'x"), (Pieces{"!!!?", " !!", " '", "x"}));
    EXPECT_EQ(split("abc123def"), (Pieces{"abc", "123", "def"}));
}

TEST(Gpt2Pattern, WhitespaceRuns) {
    EXPECT_EQ(split("a   b"), (Pieces{"a", "  ", " b"}));
    EXPECT_EQ(split("a\n\nb"), (Pieces{"a", "\n", "\n", "b"}));
    EXPECT_EQ(split("a \n b"), (Pieces{"a", " \n", " b"}));
    EXPECT_EQ(split("x  "), (Pieces{"x", "  "}));
    EXPECT_EQ(split("  "), (Pieces{"  "}));
    EXPECT_EQ(split("\t\tx"), (Pieces{"\t", "\t", "x"}));
    // U+3000 is white space but not the optional ASCII space of " ?\p{L}+".
    EXPECT_EQ(split("\xE3\x80\x80x"), (Pieces{"\xE3\x80\x80", "x"}));
}

TEST(Gpt2Pattern, UnicodeClassesDecideTheRuns) {
    EXPECT_EQ(split("na\xC3\xAFve caf\xC3\xA9"), (Pieces{"na\xC3\xAFve", " caf\xC3\xA9"}));
    // CJK and kana are letters (Lo): one run.
    EXPECT_EQ(split("\xE6\x97\xA5\xE6\x9C\xAC\xE3\x83\x86"),
              (Pieces{"\xE6\x97\xA5\xE6\x9C\xAC\xE3\x83\x86"}));
    // Arabic-Indic digits are numbers.
    EXPECT_EQ(split("x \xD9\xA3\xD9\xA4"), (Pieces{"x", " \xD9\xA3\xD9\xA4"}));
    // Emoji are neither letters nor numbers.
    EXPECT_EQ(split("ok \xF0\x9F\x99\x82\xF0\x9F\x9A\x80"),
              (Pieces{"ok", " \xF0\x9F\x99\x82\xF0\x9F\x9A\x80"}));
    // A combining mark (Mn) after a letter ends the letter run.
    EXPECT_EQ(split("e\xCC\x81t"), (Pieces{"e", "\xCC\x81", "t"}));
}

TEST(Gpt2Pattern, InvalidBytesAreOtherCharacters) {
    EXPECT_EQ(split("a\xFF\xFE b\x80"), (Pieces{"a", "\xFF\xFE", " b", "\x80"}));
    const std::string junk = "\xC3 \xE6\x97 z";
    std::string joined;
    for (auto p : split_gpt2_pattern(junk)) joined += p;
    EXPECT_EQ(joined, junk);
}

TEST(ByteLevel, MapIsGpt2s) {
    const auto& t = byte_to_symbol();
    EXPECT_EQ(t['A'], "A");
    EXPECT_EQ(t[' '], "\xC4\xA0");   // U+0120 'Ġ'
    EXPECT_EQ(t['\n'], "\xC4\x8A");  // U+010A 'Ċ'
    EXPECT_EQ(t[0], "\xC4\x80");     // U+0100
    EXPECT_EQ(t[0xAD], "\xC5\x83");  // soft hyphen -> U+0143, the last of the 68 remapped bytes
    for (int b = 0; b < 256; ++b) {
        const auto u = decode_utf8(t[b]);
        ASSERT_EQ(u.size(), 1u);
        EXPECT_EQ(symbol_to_byte(u[0].code_point), b);
    }
    EXPECT_EQ(symbol_to_byte(0x20), -1);  // the space byte is not its own symbol
    EXPECT_EQ(symbol_to_byte(0x2581), -1);
}

}  // namespace
}  // namespace vireo::genai::detail
