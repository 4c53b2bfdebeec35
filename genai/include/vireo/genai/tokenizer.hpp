// Declares vireo::genai::Tokenizer: text <-> token ids for decoder language models, GPT-2's
// byte-level BPE and SentencePiece-style BPE (with byte fallback), loaded from the files model
// folders ship. Plain C++20; needs no part of libvireo but its header-only exception types.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vireo::genai {

using TokenId = int32_t;

/// How text becomes symbols before the BPE merges run.
enum class TokenizerKind {
    /// GPT-2 (and GPT-J, GPT-NeoX, RoBERTa...): text split by GPT-2's pattern, each piece's UTF-8
    /// bytes mapped to printable characters, merges applied per piece. Every byte string encodes
    /// and decodes back exactly, including bytes that are not valid UTF-8.
    kByteLevelBpe,
    /// SentencePiece BPE as Llama and Mistral use it: spaces become U+2581 "▁", one "▁" is
    /// prepended, merges run over code points, and a character missing from the vocabulary falls
    /// back to its UTF-8 bytes as <0xNN> tokens (or to the unknown token when the model has no
    /// byte fallback).
    kSentencePieceBpe,
};

struct EncodeOptions {
    /// Recognise the added/special tokens of tokenizer.json (such as "<|endoftext|>" or "</s>")
    /// when their text appears in the input, as Hugging Face tokenizers do. When false, such
    /// text is encoded as ordinary characters.
    bool parse_special_tokens = true;
};

struct DecodeOptions {
    /// Leave out tokens marked special (BOS, EOS, padding...).
    bool skip_special_tokens = false;
};

/// An immutable tokenizer. Copies share the loaded vocabulary (cheap to copy); every method is
/// const and may be called from many threads at once.
///
/// Errors: loading throws vireo::NotFound when a file is missing, vireo::InvalidArgument when a
/// file is malformed (the message names the file and what is wrong), vireo::NotImplemented for a
/// tokenizer.json this library does not handle (a model type other than BPE, a pre-tokenizer
/// pattern other than GPT-2's). encode() never throws for any byte string once loaded, except
/// vireo::InvalidArgument when a SentencePiece model has neither byte fallback nor an unknown
/// token and meets a character it cannot represent. decode() throws vireo::InvalidArgument
/// for an id outside [0, vocab_size()).
///
/// Neither encode() nor decode() adds or strips BOS/EOS: the generation pipeline does, from its
/// configuration.
///
/// Example:
///   auto tok = vireo::genai::Tokenizer::from_folder("models/gpt2");
///   std::vector<vireo::genai::TokenId> ids = tok.encode("Hello world");  // {15496, 995}
///   std::string text = tok.decode(ids);                                   // "Hello world"
class Tokenizer {
  public:
    /// GPT-2's file pair: `vocab` is vocab.json / encoder.json (token -> id), `merges` is
    /// merges.txt / vocab.bpe (one "left right" pair per line, rank = line order; a first line
    /// starting with "#version" is skipped).
    static Tokenizer from_gpt2_files(const std::filesystem::path& vocab,
                                     const std::filesystem::path& merges);

    /// A Hugging Face tokenizer.json with model type "BPE": byte-level when its pre-tokenizer is
    /// ByteLevel (GPT-2's pattern), SentencePiece-style when it uses Metaspace or the
    /// Prepend/Replace("▁") normalizers or byte_fallback. Merges may be "a b" strings or
    /// ["a", "b"] pairs; added_tokens are honoured.
    static Tokenizer from_tokenizer_json(const std::filesystem::path& path);
    /// The same, from the file's text; `name` appears in error messages.
    static Tokenizer from_tokenizer_json_text(std::string_view json, std::string_view name);

    /// A model folder: tokenizer.json if present, else vocab.json + merges.txt, else
    /// encoder.json + vocab.bpe. Throws vireo::NotFound naming the folder when none is there.
    static Tokenizer from_folder(const std::filesystem::path& folder);

    std::vector<TokenId> encode(std::string_view text, const EncodeOptions& options = {}) const;

    /// The text of `ids`. Byte-level and byte-fallback tokens can end in the middle of a UTF-8
    /// character, so a prefix of a sequence may decode to bytes that are not valid UTF-8; the
    /// bytes are returned as they are (a streaming caller holds back an incomplete tail).
    /// SentencePiece: "▁" becomes a space and the space the encoder prepended is removed from the
    /// start of the output.
    std::string decode(std::span<const TokenId> ids, const DecodeOptions& options = {}) const;

    /// The vocabulary entry of `id` as stored (byte-level symbols, "▁", "<0x0A>"...); throws
    /// vireo::InvalidArgument when out of range.
    const std::string& id_to_token(TokenId id) const;
    /// The id of a vocabulary entry or added token, if any.
    std::optional<TokenId> token_to_id(std::string_view token) const;
    /// One past the largest id (added tokens included).
    size_t vocab_size() const;
    TokenizerKind kind() const;

    class Impl;

  private:
    explicit Tokenizer(std::shared_ptr<const Impl> impl);
    std::shared_ptr<const Impl> m_impl;
};

}  // namespace vireo::genai
