// Round trips decode(encode(s)) == s over random text: arbitrary code points (ASCII, Latin,
// combining marks, CJK, Hangul, emoji, astral planes), and for byte-level BPE arbitrary bytes,
// valid UTF-8 or not, on the small vocabularies of tests/data.
#include <gtest/gtest.h>

#include <random>

#include "test_support.hpp"
#include "unicode.hpp"
#include "vireo/genai/tokenizer.hpp"

namespace vireo::genai {
namespace {

// A random code point drawn from a mix of ranges that stress different paths; never a surrogate.
// `avoid_metaspace` leaves out U+2581, which SentencePiece-style models cannot tell from a space.
uint32_t random_code_point(std::mt19937& rng, bool avoid_metaspace) {
    static const std::pair<uint32_t, uint32_t> kRanges[] = {
        {0x20, 0x7E},     {0x09, 0x0D},       {0xA0, 0x24F},    {0x300, 0x36F},  // combining
        {0x370, 0x52F},   {0x590, 0x6FF},     {0x3040, 0x30FF}, {0x4E00, 0x9FFF},
        {0xAC00, 0xD7A3}, {0x1F300, 0x1FAFF}, {0x2000, 0x206F}, {0x10000, 0x10FFFF},
        {0xE000, 0xFFFF}, {0x0, 0x10FFFF}};
    while (true) {
        const auto& r = kRanges[rng() % std::size(kRanges)];
        const uint32_t cp = r.first + rng() % (r.second - r.first + 1);
        if (cp >= 0xD800 && cp <= 0xDFFF) continue;
        if (avoid_metaspace && cp == 0x2581) continue;
        return cp;
    }
}

std::string random_text(std::mt19937& rng, bool avoid_metaspace) {
    std::string s;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) detail::append_utf8(s, random_code_point(rng, avoid_metaspace));
    return s;
}

std::string hex(const std::string& s) {
    std::string out;
    char b[4];
    for (unsigned char c : s) {
        std::snprintf(b, sizeof(b), "%02X ", c);
        out += b;
    }
    return out;
}

void expect_ids_in_range(const Tokenizer& tok, const std::vector<TokenId>& ids) {
    for (TokenId id : ids) ASSERT_TRUE(id >= 0 && static_cast<size_t>(id) < tok.vocab_size()) << id;
}

TEST(RoundTrip, ByteLevelRandomUnicode) {
    const Tokenizer tok =
        Tokenizer::from_gpt2_files(test::data_dir() / "small_bytelevel_vocab.json",
                                   test::data_dir() / "small_bytelevel_merges.txt");
    std::mt19937 rng(1234);
    size_t tokens = 0;
    for (int i = 0; i < 3000; ++i) {
        const std::string s = random_text(rng, false);
        const auto ids = tok.encode(s);
        expect_ids_in_range(tok, ids);
        ASSERT_EQ(tok.decode(ids), s) << hex(s);
        tokens += ids.size();
    }
    EXPECT_GT(tokens, 3000u);
}

TEST(RoundTrip, ByteLevelArbitraryBytes) {
    const Tokenizer tok =
        Tokenizer::from_gpt2_files(test::data_dir() / "small_bytelevel_vocab.json",
                                   test::data_dir() / "small_bytelevel_merges.txt");
    std::mt19937 rng(99);
    for (int i = 0; i < 3000; ++i) {
        std::string s(rng() % 48, '\0');
        for (char& c : s) c = static_cast<char>(rng() % 256);
        const auto ids = tok.encode(s);
        expect_ids_in_range(tok, ids);
        ASSERT_EQ(tok.decode(ids), s) << hex(s);
    }
}

TEST(RoundTrip, SentencePieceRandomUnicodeAndBytes) {
    const Tokenizer tok =
        Tokenizer::from_tokenizer_json(test::data_dir() / "small_sentencepiece_tokenizer.json");
    std::mt19937 rng(4321);
    for (int i = 0; i < 3000; ++i) {
        std::string s = random_text(rng, true);
        if (i % 3 == 0) s.insert(rng() % (s.size() + 1), 1, static_cast<char>(0x80 + rng() % 128));
        const auto ids = tok.encode(s);
        expect_ids_in_range(tok, ids);
        ASSERT_EQ(tok.decode(ids), s) << hex(s);
    }
}

TEST(RoundTrip, ByteLevelTokensEndMidCharacter) {
    // Decoding a prefix of the ids can stop inside a UTF-8 character: the bytes come back as they
    // are and the whole sequence decodes to the text again.
    const Tokenizer tok =
        Tokenizer::from_gpt2_files(test::data_dir() / "small_bytelevel_vocab.json",
                                   test::data_dir() / "small_bytelevel_merges.txt");
    // U+1F40D is not in the small vocabulary's corpus: at most its first bytes merge (other emoji
    // share them), so it takes several tokens.
    const std::string s = "\xF0\x9F\x90\x8D";
    const auto ids = tok.encode(s);
    ASSERT_GE(ids.size(), 2u);
    std::string streamed;
    for (TokenId id : ids) streamed += tok.decode(std::vector<TokenId>{id});
    EXPECT_EQ(streamed, s);
    const std::string head = tok.decode(std::vector<TokenId>{ids.front()});
    EXPECT_LT(head.size(), s.size());
    EXPECT_EQ(head, s.substr(0, head.size()));
}

}  // namespace
}  // namespace vireo::genai
