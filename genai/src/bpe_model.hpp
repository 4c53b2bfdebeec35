// Declares BpeModel: a BPE vocabulary (token <-> id) and its ranked merges, and the merge loop that
// turns a sequence of symbol ids into the model's tokens.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vireo/genai/tokenizer.hpp"

namespace vireo::genai::detail {

class BpeModel {
  public:
    /// Adds a vocabulary entry; a later entry with the same id replaces the earlier one.
    void add_token(std::string token, TokenId id);
    /// Adds the merge (left, right) with rank `rank` (lower merges first). Returns false, adding
    /// nothing, when left, right or left+right is not in the vocabulary (such a merge can never
    /// produce a token, and Hugging Face's loader rejects it).
    bool add_merge(std::string_view left, std::string_view right, int rank);

    /// Applies the merges to `symbols` in place: repeatedly the adjacent pair of lowest rank
    /// (leftmost among equals) becomes its merged token, until no adjacent pair has a merge.
    /// O(n log n) in the number of symbols.
    void merge(std::vector<TokenId>& symbols) const;

    std::optional<TokenId> find(std::string_view token) const;
    /// The entry of `id`, or an empty string for an id the vocabulary skips.
    const std::string& token(TokenId id) const;
    /// One past the largest id.
    size_t size() const { return m_tokens.size(); }
    size_t merge_count() const { return m_merges.size(); }

  private:
    struct Merge {
        int rank;
        TokenId result;
    };
    static uint64_t key(TokenId left, TokenId right) {
        return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
               static_cast<uint32_t>(right);
    }

    std::unordered_map<std::string, TokenId> m_ids;
    std::vector<std::string> m_tokens;
    std::unordered_map<uint64_t, Merge> m_merges;
};

}  // namespace vireo::genai::detail
