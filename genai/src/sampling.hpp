// Logit processing and token choice for LLMPipeline: repetition penalty, greedy, temperature /
// top-k / top-p sampling, log-softmax and the candidates of one beam-search step.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "vireo/genai/tokenizer.hpp"

namespace vireo::genai::detail {

/// CTRL's repetition penalty on every distinct id of `seen` (ids outside the logits are ignored):
/// positive logits are divided by `penalty`, negative ones multiplied.
void apply_repetition_penalty(std::span<float> logits, std::span<const TokenId> seen,
                              float penalty);

/// The index of the largest logit (the lowest index among equal ones).
TokenId argmax(std::span<const float> logits);

/// log(sum(exp(logits))), computed stably.
double log_sum_exp(std::span<const float> logits);

/// Samples one id: logits / temperature, the top_k largest kept (0: all), then the smallest set
/// whose probabilities reach top_p, renormalised. `logprob` receives the chosen id's
/// log-probability in that final distribution.
TokenId sample(std::span<const float> logits, float temperature, size_t top_k, float top_p,
               std::mt19937_64& rng, double* logprob);

struct BeamCandidate {
    double score;  // the parent beam's score + the token's log-probability
    size_t beam;   // index of the parent beam
    TokenId token;
};

/// The `count` best (beam, token) continuations, best first: rows of `logits` (one per beam, each
/// `vocab` long) turned into log-probabilities and added to `beam_scores`.
std::vector<BeamCandidate> top_beam_candidates(std::span<const float> logits, size_t vocab,
                                               std::span<const double> beam_scores, size_t count);

}  // namespace vireo::genai::detail
