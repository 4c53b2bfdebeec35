// Tests Tokenizer on the small vocabularies of tests/data against ids computed by
// make_small_vocab.py's Python encoders, and the loaders' handling of files and their errors.
#include <gtest/gtest.h>

#include <vireo/exception.hpp>

#include "test_support.hpp"
#include "vireo/genai/tokenizer.hpp"

namespace vireo::genai {
namespace {

using test::data_dir;

Tokenizer small_bytelevel() {
    return Tokenizer::from_gpt2_files(data_dir() / "small_bytelevel_vocab.json",
                                      data_dir() / "small_bytelevel_merges.txt");
}
Tokenizer small_sentencepiece() {
    return Tokenizer::from_tokenizer_json(data_dir() / "small_sentencepiece_tokenizer.json");
}

TEST(SmallByteLevel, EncodesAsThePythonReference) {
    const auto cases = test::read_expected(data_dir() / "small_expected.json", "bytelevel");
    ASSERT_EQ(cases.size(), 7u);
    const Tokenizer pair = small_bytelevel();
    const Tokenizer json =
        Tokenizer::from_tokenizer_json(data_dir() / "small_bytelevel_tokenizer.json");
    EXPECT_EQ(pair.kind(), TokenizerKind::kByteLevelBpe);
    EXPECT_EQ(json.kind(), TokenizerKind::kByteLevelBpe);
    EXPECT_EQ(pair.vocab_size(), 557u);
    EXPECT_EQ(json.vocab_size(), 557u);
    for (const auto& c : cases) {
        EXPECT_EQ(pair.encode(c.text), c.ids) << c.text;
        EXPECT_EQ(json.encode(c.text), c.ids) << c.text;
        EXPECT_EQ(pair.decode(c.ids), c.text);
    }
}

TEST(SmallByteLevel, SpecialTokenParsedOnlyWhenAsked) {
    const Tokenizer tok = small_bytelevel();
    const TokenId eot = tok.token_to_id("<|endoftext|>").value();
    EXPECT_EQ(eot, 556);
    const auto ids = tok.encode("a<|endoftext|>b");
    ASSERT_EQ(ids.size(), 3u);
    EXPECT_EQ(ids[1], eot);
    EXPECT_EQ(tok.decode(ids), "a<|endoftext|>b");
    EXPECT_EQ(tok.decode(ids, {.skip_special_tokens = true}), "ab");
    const auto plain = tok.encode("a<|endoftext|>b", {.parse_special_tokens = false});
    EXPECT_EQ(std::count(plain.begin(), plain.end(), eot), 0);
    EXPECT_GT(plain.size(), 3u);
    EXPECT_EQ(tok.decode(plain), "a<|endoftext|>b");
}

TEST(SmallByteLevel, IdsAndTokens) {
    const Tokenizer tok = small_bytelevel();
    // make_small_vocab.py lists the 256 byte symbols by byte value first: 0 -> U+0100, '!' -> 33.
    EXPECT_EQ(tok.id_to_token(0), "\xC4\x80");
    EXPECT_EQ(tok.id_to_token(33), "!");
    EXPECT_EQ(tok.token_to_id("\xC4\xA0").value(), tok.encode(" ").at(0));
    EXPECT_FALSE(tok.token_to_id("no such token").has_value());
    EXPECT_THROW(tok.id_to_token(557), InvalidArgument);
    const std::vector<TokenId> bad{0, 557};
    EXPECT_THROW(tok.decode(bad), InvalidArgument);
    const std::vector<TokenId> negative{-1};
    EXPECT_THROW(tok.decode(negative), InvalidArgument);
    EXPECT_TRUE(tok.encode("").empty());
}

TEST(SmallSentencePiece, EncodesAsThePythonReference) {
    const auto cases = test::read_expected(data_dir() / "small_expected.json", "sentencepiece");
    ASSERT_EQ(cases.size(), 7u);
    const Tokenizer tok = small_sentencepiece();
    EXPECT_EQ(tok.kind(), TokenizerKind::kSentencePieceBpe);
    EXPECT_EQ(tok.vocab_size(), 514u);
    for (const auto& c : cases) {
        EXPECT_EQ(tok.encode(c.text), c.ids) << c.text;
        EXPECT_EQ(tok.decode(c.ids), c.text);
    }
}

TEST(SmallSentencePiece, ByteFallbackAndMetaspace) {
    const Tokenizer tok = small_sentencepiece();
    const TokenId meta = tok.token_to_id("\xE2\x96\x81").value();
    // U+20AC is not in the vocabulary: its three UTF-8 bytes E2 82 AC come back as <0xNN>, ids
    // 3 + byte (the vocabulary lists <unk>, <s>, </s>, then <0x00>..<0xFF>).
    EXPECT_EQ(tok.encode("\xE2\x82\xAC"),
              (std::vector<TokenId>{meta, 3 + 0xE2, 3 + 0x82, 3 + 0xAC}));
    EXPECT_EQ(tok.id_to_token(3 + 0x0A), "<0x0A>");
    // Invalid UTF-8 takes the byte fallback too, so it comes back exactly.
    const std::string invalid = "a\xFF";
    const auto ids = tok.encode(invalid);
    EXPECT_EQ(ids.back(), 3 + 0xFF);
    EXPECT_EQ(tok.decode(ids), invalid);
    // The prepended "▁" is removed on decode, one leading space of the text is kept.
    EXPECT_EQ(tok.decode(tok.encode(" x")), " x");
    EXPECT_EQ(tok.encode(" x").at(0), meta);
}

TEST(SmallSentencePiece, SpecialTokens) {
    const Tokenizer tok = small_sentencepiece();
    EXPECT_EQ(tok.token_to_id("<s>").value(), 1);
    EXPECT_EQ(tok.token_to_id("</s>").value(), 2);
    const auto ids = tok.encode("<s>the");
    ASSERT_GE(ids.size(), 2u);
    EXPECT_EQ(ids[0], 1);
    // As Hugging Face's Prepend normalizer does, the segment after a special token gets its own
    // "▁"; decoding keeps it because the first piece was the special token.
    EXPECT_EQ(tok.decode(ids), "<s> the");
    EXPECT_EQ(tok.decode(ids, {.skip_special_tokens = true}), "the");
}

TEST(TokenizerLoading, ErrorsNameTheFileAndTheProblem) {
    EXPECT_THROW(Tokenizer::from_folder(data_dir() / "no_such_folder"), NotFound);
    EXPECT_THROW(
        Tokenizer::from_gpt2_files(data_dir() / "missing.json", data_dir() / "missing.txt"),
        NotFound);
    EXPECT_THROW(Tokenizer::from_tokenizer_json_text(
                     "{\"model\": {\"type\": \"WordPiece\", \"vocab\": {}}}", "wp.json"),
                 NotImplemented);
    EXPECT_THROW(Tokenizer::from_tokenizer_json_text("{\"model\": 3}", "m.json"), InvalidArgument);
    EXPECT_THROW(Tokenizer::from_tokenizer_json_text(
                     R"({"pre_tokenizer": {"type": "ByteLevel"},
                         "model": {"type": "BPE", "vocab": {"a": -1}, "merges": []}})",
                     "negative.json"),
                 InvalidArgument);
    EXPECT_THROW(Tokenizer::from_tokenizer_json_text(
                     R"({"added_tokens": [{"id": 4000000000, "content": "x"}],
                         "pre_tokenizer": {"type": "ByteLevel"},
                         "model": {"type": "BPE", "vocab": {}, "merges": []}})",
                     "huge.json"),
                 InvalidArgument);
    try {
        Tokenizer::from_tokenizer_json_text(
            R"({"pre_tokenizer": {"type": "ByteLevel"},
                "model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}})",
            "merge.json");
        FAIL() << "expected a throw";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("merge.json"), std::string::npos) << e.what();
    }
    EXPECT_THROW(Tokenizer::from_tokenizer_json_text(
                     R"({"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "x"}},
                         "model": {"type": "BPE", "vocab": {}, "merges": []}})",
                     "split.json"),
                 NotImplemented);
}

TEST(TokenizerLoading, FolderPrefersTokenizerJson) {
    const auto dir = std::filesystem::temp_directory_path() / "vireo_genai_folder_test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(data_dir() / "small_bytelevel_vocab.json", dir / "encoder.json");
    std::filesystem::copy_file(data_dir() / "small_bytelevel_merges.txt", dir / "vocab.bpe");
    EXPECT_EQ(Tokenizer::from_folder(dir).kind(), TokenizerKind::kByteLevelBpe);
    std::filesystem::copy_file(data_dir() / "small_sentencepiece_tokenizer.json",
                               dir / "tokenizer.json");
    EXPECT_EQ(Tokenizer::from_folder(dir).kind(), TokenizerKind::kSentencePieceBpe);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vireo::genai
