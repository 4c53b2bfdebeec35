// Fuzz target: a tokenizer.json from anywhere must load or be refused with vireo::Exception, and
// a loaded one must encode and decode any text without crashing. The input's first line is the
// text to encode; the rest is the tokenizer.json.
#include <cstdint>
#include <string_view>
#include <vireo/exception.hpp>
#include <vireo/genai/tokenizer.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const size_t newline = input.find('\n');
    if (newline == std::string_view::npos) return 0;
    const std::string_view text = input.substr(0, newline);
    try {
        const auto tokenizer = vireo::genai::Tokenizer::from_tokenizer_json_text(
            input.substr(newline + 1), "fuzz.json");
        const auto ids = tokenizer.encode(text);
        const std::string decoded = tokenizer.decode(ids);
        // Every id the encoder produced names a vocabulary entry.
        for (const auto id : ids) (void)tokenizer.id_to_token(id);
        // Decoding ids the encoder never produced (every id, and one past the end) is either
        // text or a named error.
        std::vector<vireo::genai::TokenId> all;
        for (size_t i = 0; i < tokenizer.vocab_size() && i < 4096; ++i)
            all.push_back(static_cast<vireo::genai::TokenId>(i));
        (void)tokenizer.decode(all);
        all.assign(1, static_cast<vireo::genai::TokenId>(tokenizer.vocab_size()));
        (void)tokenizer.decode(all);
    } catch (const vireo::Exception&) {
    }
    return 0;
}
