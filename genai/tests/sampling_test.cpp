// The logit processors and samplers of LLMPipeline (genai/src/sampling.hpp).
#include "sampling.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "vireo/exception.hpp"

namespace {

using namespace vireo::genai;
using namespace vireo::genai::detail;

TEST(Sampling, RepetitionPenaltyDividesPositiveMultipliesNegative) {
    std::vector<float> l{2.f, -2.f, 1.f, 4.f};
    const std::vector<TokenId> seen{0, 1, 1, 7};  // 7 is outside: ignored; 1 counted once
    apply_repetition_penalty(l, seen, 2.f);
    EXPECT_EQ(l, (std::vector<float>{1.f, -4.f, 1.f, 4.f}));
    EXPECT_THROW(apply_repetition_penalty(l, seen, 0.f), vireo::InvalidArgument);
}

TEST(Sampling, ArgmaxTakesLowestIndexOnTies) {
    EXPECT_EQ(argmax(std::vector<float>{1.f, 3.f, 3.f, 2.f}), 1);
}

TEST(Sampling, SameSeedSameTokensOtherSeedOtherTokens) {
    std::vector<float> logits(50);
    for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(static_cast<float>(i));
    auto draw = [&](uint64_t seed) {
        std::mt19937_64 rng(seed);
        std::vector<TokenId> out;
        for (int i = 0; i < 40; ++i) out.push_back(sample(logits, 1.f, 0, 1.f, rng, nullptr));
        return out;
    };
    EXPECT_EQ(draw(42), draw(42));
    EXPECT_NE(draw(42), draw(43));
}

TEST(Sampling, TopKOneAndTinyTopPAreGreedy) {
    const std::vector<float> logits{0.5f, 2.f, 1.9f, -1.f};
    std::mt19937_64 rng(1);
    for (int i = 0; i < 20; ++i) {
        EXPECT_EQ(sample(logits, 1.f, 1, 1.f, rng, nullptr), 1);
        EXPECT_EQ(sample(logits, 1.f, 0, 1e-6f, rng, nullptr), 1);
    }
}

TEST(Sampling, TopKKeepsOnlyTheKLargestAndFrequenciesFollowProbabilities) {
    const std::vector<float> logits{std::log(1.f), std::log(3.f), std::log(6.f), 5.f};
    std::mt19937_64 rng(7);
    std::map<TokenId, int> count;
    const int n = 20000;
    // top_k 3 keeps ids 3, 2, 1.
    for (int i = 0; i < n; ++i) ++count[sample(logits, 1.f, 3, 1.f, rng, nullptr)];
    EXPECT_EQ(count.count(0), 0u);
    const double e5 = std::exp(5.0), z = e5 + 6 + 3;
    EXPECT_NEAR(count[3] / double(n), e5 / z, 0.02);
    EXPECT_NEAR(count[2] / double(n), 6 / z, 0.01);
    // Temperature 1000 flattens the three kept ones to about a third each.
    count.clear();
    for (int i = 0; i < n; ++i) ++count[sample(logits, 1000.f, 3, 1.f, rng, nullptr)];
    EXPECT_NEAR(count[1] / double(n), 1.0 / 3, 0.02);
    // top_p 0.8 over probabilities {0.6, 0.3, 0.1}: keeps the first two.
    const std::vector<float> p{std::log(0.6f), std::log(0.3f), std::log(0.1f)};
    count.clear();
    double lp = 0;
    for (int i = 0; i < n; ++i) ++count[sample(p, 1.f, 0, 0.8f, rng, &lp)];
    EXPECT_EQ(count.count(2), 0u);
    EXPECT_NEAR(count[0] / double(n), 2.0 / 3, 0.02);
    EXPECT_THROW(sample(p, 0.f, 0, 1.f, rng, nullptr), vireo::InvalidArgument);
    EXPECT_THROW(sample(p, 1.f, 0, 1.5f, rng, nullptr), vireo::InvalidArgument);
}

TEST(Sampling, BeamCandidatesAreTheBestSumsOverAllBeams) {
    // Two beams over a vocabulary of 3.
    const std::vector<float> logits{0.f, 1.f, 2.f, 3.f, 0.f, 0.f};
    const std::vector<double> scores{0.0, -2.0};
    auto c = top_beam_candidates(logits, 3, scores, 3);
    ASSERT_EQ(c.size(), 3u);
    const double lse0 = std::log(1 + std::exp(1.0) + std::exp(2.0));
    const double lse1 = std::log(std::exp(3.0) + 2);
    EXPECT_EQ(c[0].beam, 0u);
    EXPECT_EQ(c[0].token, 2);
    EXPECT_NEAR(c[0].score, 2 - lse0, 1e-9);
    EXPECT_EQ(c[1].beam, 0u);
    EXPECT_EQ(c[1].token, 1);
    EXPECT_EQ(c[2].beam, 1u);
    EXPECT_EQ(c[2].token, 0);
    EXPECT_NEAR(c[2].score, -2 + 3 - lse1, 1e-9);
}

}  // namespace
