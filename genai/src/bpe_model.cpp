// Implements BpeModel: the vocabulary maps and the heap-driven merge loop over a linked list of
// symbols (stale heap entries are recognised by the ids at their position having changed).
#include "bpe_model.hpp"

#include <queue>

namespace vireo::genai::detail {

void BpeModel::add_token(std::string token, TokenId id) {
    if (id < 0) return;
    if (static_cast<size_t>(id) >= m_tokens.size()) m_tokens.resize(static_cast<size_t>(id) + 1);
    m_tokens[static_cast<size_t>(id)] = token;
    m_ids[std::move(token)] = id;
}

bool BpeModel::add_merge(std::string_view left, std::string_view right, int rank) {
    const auto l = find(left);
    const auto r = find(right);
    std::string joined(left);
    joined += right;
    const auto m = find(joined);
    if (!l || !r || !m) return false;
    // The first occurrence of a pair wins, as in a merges file read top to bottom.
    m_merges.try_emplace(key(*l, *r), Merge{rank, *m});
    return true;
}

std::optional<TokenId> BpeModel::find(std::string_view token) const {
    const auto it = m_ids.find(std::string(token));
    if (it == m_ids.end()) return std::nullopt;
    return it->second;
}

const std::string& BpeModel::token(TokenId id) const {
    static const std::string empty;
    if (id < 0 || static_cast<size_t>(id) >= m_tokens.size()) return empty;
    return m_tokens[static_cast<size_t>(id)];
}

void BpeModel::merge(std::vector<TokenId>& symbols) const {
    const int n = static_cast<int>(symbols.size());
    if (n < 2 || m_merges.empty()) return;
    std::vector<int> prev(n), next(n);
    std::vector<char> alive(n, 1);
    for (int i = 0; i < n; ++i) {
        prev[i] = i - 1;
        next[i] = i + 1 < n ? i + 1 : -1;
    }
    struct Candidate {
        int rank;
        int left;
        TokenId left_id;
        TokenId right_id;
        TokenId result;
        bool operator>(const Candidate& o) const {
            return rank != o.rank ? rank > o.rank : left > o.left;
        }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
    auto offer = [&](int left) {
        if (left < 0 || next[left] < 0) return;
        const TokenId a = symbols[left];
        const TokenId b = symbols[next[left]];
        const auto it = m_merges.find(key(a, b));
        if (it != m_merges.end()) heap.push({it->second.rank, left, a, b, it->second.result});
    };
    for (int i = 0; i + 1 < n; ++i) offer(i);

    while (!heap.empty()) {
        const Candidate c = heap.top();
        heap.pop();
        // A position's right neighbour only changes when that position merges, which changes its
        // id, so equal ids at both ends mean the candidate is still current.
        if (!alive[c.left] || symbols[c.left] != c.left_id) continue;
        const int right = next[c.left];
        if (right < 0 || symbols[right] != c.right_id) continue;
        symbols[c.left] = c.result;
        alive[right] = 0;
        next[c.left] = next[right];
        if (next[right] >= 0) prev[next[right]] = c.left;
        offer(prev[c.left]);
        offer(c.left);
    }
    int out = 0;
    for (int i = 0; i < n; ++i)
        if (alive[i]) symbols[out++] = symbols[i];
    symbols.resize(out);
}

}  // namespace vireo::genai::detail
