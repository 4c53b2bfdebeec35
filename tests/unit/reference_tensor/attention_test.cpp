// Tests the ScaledDotProductAttention reference kernel: a case worked out by hand, then random
// data against a plain loop written here (scores, mask, softmax, weighted sum), with float and
// boolean masks, causal, broadcast batches, the default scale, S = 0, and f16.
#include <cmath>
#include <limits>

#include "tensor_test_utils.hpp"

namespace vireo::test {
// A named namespace: the unity build puts this file next to others with their own helpers.
namespace attention_test {
namespace {

Tensor f32(const Shape& shape, const std::vector<double>& values) {
    return make_tensor(element::f32, shape, values);
}

void expect_close(const Tensor& actual, const std::vector<double>& expected, double tol) {
    expect_near(values_of(actual), expected, tol);
}

std::vector<Tensor> attend(const std::vector<Tensor>& inputs, bool causal = false) {
    OutputVector ins;
    for (const auto& t : inputs) ins.push_back(param(t.get_element_type(), t.get_shape()));
    auto node =
        op::scaled_dot_product_attention(ins[0], ins[1], ins[2], ins.size() > 3 ? ins[3] : Output(),
                                         ins.size() > 4 ? ins[4] : Output(), causal);
    return run(node, inputs);
}

TEST(AttentionKernel, HandWorkedCase) {
    // Row 0: scores [0, ln 3] give weights 1/4 and 3/4, so 1/4·(4, 1) + 3/4·(8, 2) = (7, 1.75).
    // Row 1: q = 0, so the scores are the mask [ln 3, 0]: 3/4·(4, 1) + 1/4·(8, 2) = (5, 1.25).
    const double ln3 = std::log(3.0);
    const auto q = f32({1, 2, 1}, {1, 0});
    const auto k = f32({1, 2, 1}, {0, ln3});
    const auto v = f32({1, 2, 2}, {4, 1, 8, 2});
    const auto mask = f32({2, 2}, {0, 0, ln3, 0});  // row 1: scores [0, 0] + [ln 3, 0]
    const auto scale = f32({}, {1});
    auto out = attend({q, k, v, mask, scale});
    expect_close(out[0], {7, 1.75, 5, 1.25}, 1e-6);
    // Causal: row 0 sees key 0 only; row 1 sees both (the mask is ignored).
    auto causal = attend({q, k, v, mask, scale}, true);
    expect_close(causal[0], {4, 1, 6, 1.5}, 1e-6);
}

// softmax(q·kᵀ·scale + mask)·v over [B, H, L, E] in the plainest form, K and V broadcast over
// heads, the mask [B, 1, L, S] (float added, or boolean where false hides the key).
std::vector<double> naive(const std::vector<double>& q, const std::vector<double>& k,
                          const std::vector<double>& v, const std::vector<double>* mask,
                          bool boolean_mask, bool causal, double scale, size_t b_n, size_t h_n,
                          size_t l, size_t s, size_t e, size_t ev) {
    std::vector<double> out(b_n * h_n * l * ev, 0.0);
    for (size_t b = 0; b < b_n; ++b)
        for (size_t h = 0; h < h_n; ++h)
            for (size_t i = 0; i < l; ++i) {
                std::vector<double> w(s);
                for (size_t j = 0; j < s; ++j) {
                    double dot = 0;
                    for (size_t c = 0; c < e; ++c)
                        dot += q[((b * h_n + h) * l + i) * e + c] * k[(b * s + j) * e + c];
                    w[j] = dot * scale;
                    if (mask) {
                        const double m = (*mask)[(b * l + i) * s + j];
                        if (boolean_mask)
                            w[j] = m != 0 ? w[j] : -INFINITY;
                        else
                            w[j] += m;
                    }
                    if (causal && j > i) w[j] = -INFINITY;
                }
                double top = -INFINITY, total = 0;
                for (double x : w) top = std::max(top, x);
                for (double& x : w) total += (x = std::exp(x - top));
                for (size_t j = 0; j < s; ++j)
                    for (size_t c = 0; c < ev; ++c)
                        out[((b * h_n + h) * l + i) * ev + c] +=
                            w[j] / total * v[(b * s + j) * ev + c];
            }
    return out;
}

TEST(AttentionKernel, RandomDataMatchesAPlainLoop) {
    const size_t b = 2, h = 3, l = 5, s = 7, e = 4, ev = 3;
    const auto qv = random_values(b * h * l * e, 1);
    const auto kv = random_values(b * s * e, 2);
    const auto vv = random_values(b * s * ev, 3);
    auto mv = random_values(b * l * s, 4, -2.0, 2.0);
    const Tensor q = f32({b, h, l, e}, qv), k = f32({b, 1, s, e}, kv), v = f32({b, 1, s, ev}, vv);
    // Default scale 1/sqrt(E), no mask.
    expect_close(attend({q, k, v})[0],
                 naive(qv, kv, vv, nullptr, false, false, 0.5, b, h, l, s, e, ev), 1e-5);
    // Float mask and a scale.
    const Tensor mask = f32({b, 1, l, s}, mv);
    expect_close(attend({q, k, v, mask, f32({}, {0.3})})[0],
                 naive(qv, kv, vv, &mv, false, false, 0.3, b, h, l, s, e, ev), 1e-5);
    // Boolean mask (keeping key 0 visible so no row is empty).
    std::vector<double> keep(b * l * s);
    for (size_t i = 0; i < keep.size(); ++i) keep[i] = i % s == 0 || mv[i] > 0;
    const Tensor bmask = make_tensor(element::boolean, {b, 1, l, s}, keep);
    expect_close(attend({q, k, v, bmask})[0],
                 naive(qv, kv, vv, &keep, true, false, 0.5, b, h, l, s, e, ev), 1e-5);
    // Causal.
    expect_close(attend({q, k, v, mask}, true)[0],
                 naive(qv, kv, vv, nullptr, false, true, 0.5, b, h, l, s, e, ev), 1e-5);
}

TEST(AttentionKernel, EmptyKeysGiveZerosAndF16Works) {
    const auto none = attend({f32({1, 2, 4}, std::vector<double>(8, 1.0)),
                              Tensor(element::f32, {1, 0, 4}), Tensor(element::f32, {1, 0, 3})});
    expect_close(none[0], std::vector<double>(6, 0.0), 0);
    const auto q = make_tensor(element::f16, {1, 1, 2}, std::vector<double>{1, 0});
    const auto k = make_tensor(element::f16, {1, 2, 2}, std::vector<double>{0, 0, 2, 0});
    const auto v = make_tensor(element::f16, {1, 2, 1}, std::vector<double>{1, 3});
    const auto out = attend({q, k, v});
    // Scores [0, 2/sqrt 2]: weights 1 : e^sqrt2.
    const double w = std::exp(std::sqrt(2.0));
    EXPECT_EQ(out[0].get_element_type(), element::f16);
    expect_close(out[0], {(1 + 3 * w) / (1 + w)}, 2e-3);
}

}  // namespace
}  // namespace attention_test
}  // namespace vireo::test
