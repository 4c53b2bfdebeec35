// Logit processing and token choice for LLMPipeline (see sampling.hpp).
#include "sampling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "vireo/exception.hpp"

namespace vireo::genai::detail {

void apply_repetition_penalty(std::span<float> logits, std::span<const TokenId> seen,
                              float penalty) {
    if (penalty == 1.0f) return;
    if (!(penalty > 0.0f))
        throw_error<InvalidArgument>("generation config: repetition_penalty must be > 0, not ",
                                     penalty);
    std::vector<bool> done(logits.size(), false);
    for (TokenId id : seen) {
        if (id < 0 || static_cast<size_t>(id) >= logits.size() || done[id]) continue;
        done[id] = true;
        float& l = logits[id];
        l = l > 0.0f ? l / penalty : l * penalty;
    }
}

TokenId argmax(std::span<const float> logits) {
    return static_cast<TokenId>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

double log_sum_exp(std::span<const float> logits) {
    const double m = *std::max_element(logits.begin(), logits.end());
    double s = 0.0;
    for (float l : logits) s += std::exp(static_cast<double>(l) - m);
    return m + std::log(s);
}

TokenId sample(std::span<const float> logits, float temperature, size_t top_k, float top_p,
               std::mt19937_64& rng, double* logprob) {
    if (!(temperature > 0.0f))
        throw_error<InvalidArgument>(
            "generation config: temperature must be > 0 when sampling, "
            "not ",
            temperature);
    if (!(top_p > 0.0f && top_p <= 1.0f))
        throw_error<InvalidArgument>("generation config: top_p must be in (0, 1], not ", top_p);
    const size_t n = logits.size();
    std::vector<TokenId> order(n);
    std::iota(order.begin(), order.end(), 0);
    const size_t k = top_k == 0 ? n : std::min(top_k, n);
    auto by_logit = [&](TokenId a, TokenId b) {
        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
    };
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      by_logit);
    order.resize(k);
    // Probabilities of the kept ids at this temperature.
    std::vector<double> p(k);
    const double m = logits[order[0]] / static_cast<double>(temperature);
    double total = 0.0;
    for (size_t i = 0; i < k; ++i) {
        p[i] = std::exp(logits[order[i]] / static_cast<double>(temperature) - m);
        total += p[i];
    }
    size_t keep = k;
    if (top_p < 1.0f) {
        double cum = 0.0;
        for (size_t i = 0; i < k; ++i) {
            cum += p[i] / total;
            if (cum >= top_p) {
                keep = i + 1;
                break;
            }
        }
    }
    double kept_total = 0.0;
    for (size_t i = 0; i < keep; ++i) kept_total += p[i];
    // One uniform draw from the generator (its output is the same on every platform; the
    // standard distributions are not), then the inverse of the cumulative distribution.
    const double u = static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0) * kept_total;
    double cum = 0.0;
    size_t chosen = keep - 1;
    for (size_t i = 0; i < keep; ++i) {
        cum += p[i];
        if (u < cum) {
            chosen = i;
            break;
        }
    }
    if (logprob) *logprob = std::log(p[chosen] / kept_total);
    return order[chosen];
}

std::vector<BeamCandidate> top_beam_candidates(std::span<const float> logits, size_t vocab,
                                               std::span<const double> beam_scores, size_t count) {
    std::vector<BeamCandidate> all;
    const size_t per_beam = std::min(count, vocab);
    auto better = [](const BeamCandidate& a, const BeamCandidate& b) {
        if (a.score != b.score) return a.score > b.score;
        if (a.beam != b.beam) return a.beam < b.beam;
        return a.token < b.token;
    };
    for (size_t b = 0; b < beam_scores.size(); ++b) {
        std::span<const float> row = logits.subspan(b * vocab, vocab);
        const double lse = log_sum_exp(row);
        std::vector<BeamCandidate> c(vocab);
        for (size_t t = 0; t < vocab; ++t)
            c[t] = {beam_scores[b] + (static_cast<double>(row[t]) - lse), b,
                    static_cast<TokenId>(t)};
        std::partial_sort(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(per_beam), c.end(),
                          better);
        all.insert(all.end(), c.begin(), c.begin() + static_cast<std::ptrdiff_t>(per_beam));
    }
    std::sort(all.begin(), all.end(), better);
    if (all.size() > count) all.resize(count);
    return all;
}

}  // namespace vireo::genai::detail
