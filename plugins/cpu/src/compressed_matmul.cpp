// Implements the CPU plugin's MatMul over compressed weights: the pattern, its protection from
// constant folding and the kernel (a register-converting GEMV for token steps, dequantized blocks
// and oneDNN sgemm for more rows).
#include "compressed_matmul.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "cpu_isa.hpp"
#include "oneapi/dnnl/dnnl.hpp"
#include "vireo/exception.hpp"
#include "vireo/reference/constant_folding.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::cpu_plugin {
namespace {

std::optional<std::vector<float>> floats_of(const Tensor& t) {
    std::vector<float> out(t.get_size());
    const auto type = t.get_element_type();
    for (size_t i = 0; i < out.size(); ++i) {
        if (type == element::f32)
            out[i] = static_cast<const float*>(t.data())[i];
        else if (type == element::u8)
            out[i] = static_cast<const uint8_t*>(t.data())[i];
        else if (type == element::i8)
            out[i] = static_cast<const int8_t*>(t.data())[i];
        else if (type == element::i32)
            out[i] = static_cast<float>(static_cast<const int32_t*>(t.data())[i]);
        else if (type == element::u4 || type == element::i4) {
            const int nibble = (static_cast<const uint8_t*>(t.data())[i / 2] >> (4 * (i % 2))) & 15;
            out[i] = static_cast<float>(type == element::i4 ? (nibble ^ 8) - 8 : nibble);
        } else
            return std::nullopt;
    }
    return out;
}

// A Constant, or Convert(Constant), as floats; the Convert (if any) goes to `chain`.
std::optional<std::vector<float>> constant_floats(const Output& port, std::vector<NodePtr>* chain) {
    const Node* node = port.get_node();
    if (node->get_type_name() == "Convert" &&
        node->input_value(0).get_node()->get_type_name() == "Constant") {
        chain->push_back(port.get_node_shared_ptr());
        return floats_of(node->input_value(0).get_node()->get_constant_value());
    }
    if (node->get_type_name() == "Constant") return floats_of(node->get_constant_value());
    return std::nullopt;
}

// True when `s` is [n, 1] (groups == 1) or [n, groups, 1].
bool per_group_shape(const Shape& s, size_t n, size_t groups) {
    if (groups == 1) return s == Shape{n, 1};
    return s == Shape{n, groups, 1};
}

// ---- the kernel ----

// How the integers are stored. i4 is read as u4 with bit 3 of every nibble flipped (n ^ 8 maps
// -8..7 to 0..15) and 8 added to its zero points, so one unpacking serves both.
enum Kind : int { kI8, kU8, kU4, kI4 };

// Element idx of row-major storage, as float.
template <int K>
inline float element_at(const uint8_t* base, size_t idx) {
    if constexpr (K == kI8) return static_cast<float>(static_cast<int8_t>(base[idx]));
    if constexpr (K == kU8) return static_cast<float>(base[idx]);
    const uint8_t nibble = (base[idx / 2] >> (4 * (idx % 2))) & 0x0F;
    return static_cast<float>(K == kI4 ? nibble ^ 8 : nibble);
}

// GCC 12 reports the _mm512_undefined_* operand inside its own conversion intrinsics as
// "may be used uninitialized" (a false positive of the header); nothing here reads it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// Elements idx..idx+15 as floats (idx even for the 4-bit kinds).
template <int K>
__attribute__((target("avx512f"))) inline __m512 load16(const uint8_t* base, size_t idx) {
    if constexpr (K == kI8 || K == kU8) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + idx));
        return _mm512_cvtepi32_ps(K == kI8 ? _mm512_cvtepi8_epi32(bytes)
                                           : _mm512_cvtepu8_epi32(bytes));
    } else {
        __m128i packed = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(base + idx / 2));
        if constexpr (K == kI4) packed = _mm_xor_si128(packed, _mm_set1_epi8(0x88 - 256));
        const __m128i low = _mm_and_si128(packed, _mm_set1_epi8(0x0F));
        const __m128i high = _mm_and_si128(_mm_srli_epi16(packed, 4), _mm_set1_epi8(0x0F));
        return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_unpacklo_epi8(low, high)));
    }
}

// 32 elements idx..idx+31 of a 4-bit kind (idx even), as the 16 at even offsets and the 16 at
// odd offsets: one byte per 32-bit lane holds a pair, so no shuffle is needed; the activations
// are permuted to match (permute_pairs).
template <int K>
__attribute__((target("avx512f"))) inline void load32_pairs(const uint8_t* base, size_t idx,
                                                            __m512& even, __m512& odd) {
    __m512i v =
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(base + idx / 2)));
    if constexpr (K == kI4) v = _mm512_xor_si512(v, _mm512_set1_epi32(0x88));
    even = _mm512_cvtepi32_ps(_mm512_and_si512(v, _mm512_set1_epi32(0x0F)));
    odd = _mm512_cvtepi32_ps(_mm512_srli_epi32(v, 4));
}

// Bytes of storage per element, times two (so 4-bit kinds need no fractions).
template <int K>
constexpr size_t kHalfBytes = K == kI8 || K == kU8 ? 2 : 1;
// Elements per step of the vector loop.
template <int K>
constexpr size_t kStep = K == kI8 || K == kU8 ? 16 : 32;

// y[r][n] for rows r < R and channels [n0, n1): per group, the dot products of the rows with the
// channel's integers, then scale * (dot - zero_point * sum of the row over the group). Four
// channels at a time (16 independent accumulators for R = 4) keep the FMA units busy while the
// integers stream in. `ap` is `a` with each 32-element block of every group permuted as
// permute_pairs does (4-bit kinds; `a` itself otherwise): the vector loop reads it, the scalar
// tails read `a`. With one or two rows the group's scale multiplies the vector accumulators (one
// horizontal sum per channel); with more, registers are short and each group is summed.
template <int K, int R>
__attribute__((target("avx512f,fma"))) void gemv_avx512(const float* a, const float* ap, size_t lda,
                                                        const CompressedWeights& w,
                                                        const float* row_sums, float* y, size_t ldy,
                                                        size_t n0, size_t n1) {
    const auto* q = static_cast<const uint8_t*>(w.q.data());
    const size_t k_len = w.k_len, group = w.group, groups = k_len / group;
    constexpr size_t kS = kStep<K>;
    constexpr bool kPairs = kS == 32;
    constexpr bool kVectorScale = R <= 2;
    const size_t vec_end = group / kS * kS;
    constexpr int kN = 4;
    // The tail of a group (after the vector loop), scalar.
    auto tail = [&](size_t channel, int r, size_t k0) {
        float dot = 0.f;
        for (size_t k = vec_end; k < group; ++k)
            dot += a[r * lda + k0 + k] * element_at<K>(q, channel * k_len + k0 + k);
        return dot;
    };
    auto zero_part = [&](size_t channel, int r, size_t g) {
        const size_t slot = channel * groups + g;
        return w.zero_points.empty()
                   ? 0.f
                   : w.scales[slot] * w.zero_points[slot] * row_sums[r * groups + g];
    };
    size_t n = n0;
    for (; n + kN <= n1; n += kN) {
        float acc[R][kN] = {};
        __m512 total[R][kN];
        if constexpr (kVectorScale)
            for (int r = 0; r < R; ++r)
                for (int j = 0; j < kN; ++j) total[r][j] = _mm512_setzero_ps();
        for (size_t g = 0; g < groups; ++g) {
            const size_t k0 = g * group;
            __m512 v[R][kN];
            for (int r = 0; r < R; ++r)
                for (int j = 0; j < kN; ++j) v[r][j] = _mm512_setzero_ps();
            // The next block of channels (contiguous after this one) comes in at the pace this
            // one is read: four interleaved short rows defeat the hardware prefetcher.
            const uint8_t* ahead = q + ((n + kN) * k_len + kN * k0) * kHalfBytes<K> / 2;
            for (size_t k = 0; k < vec_end; k += kS) {
                _mm_prefetch(reinterpret_cast<const char*>(ahead + kN * k * kHalfBytes<K> / 2),
                             _MM_HINT_T0);
                if constexpr (kPairs) {
                    _mm_prefetch(reinterpret_cast<const char*>(ahead + kN * k / 2 + 64),
                                 _MM_HINT_T0);
                    __m512 xe[R], xo[R];
                    for (int r = 0; r < R; ++r) {
                        xe[r] = _mm512_loadu_ps(ap + r * lda + k0 + k);
                        xo[r] = _mm512_loadu_ps(ap + r * lda + k0 + k + 16);
                    }
                    for (int j = 0; j < kN; ++j) {
                        __m512 even, odd;
                        load32_pairs<K>(q, (n + j) * k_len + k0 + k, even, odd);
                        for (int r = 0; r < R; ++r) {
                            v[r][j] = _mm512_fmadd_ps(xe[r], even, v[r][j]);
                            v[r][j] = _mm512_fmadd_ps(xo[r], odd, v[r][j]);
                        }
                    }
                } else {
                    __m512 x[R];
                    for (int r = 0; r < R; ++r) x[r] = _mm512_loadu_ps(ap + r * lda + k0 + k);
                    for (int j = 0; j < kN; ++j) {
                        const __m512 wv = load16<K>(q, (n + j) * k_len + k0 + k);
                        for (int r = 0; r < R; ++r) v[r][j] = _mm512_fmadd_ps(x[r], wv, v[r][j]);
                    }
                }
            }
            for (int j = 0; j < kN; ++j) {
                const size_t slot = (n + j) * groups + g;
                for (int r = 0; r < R; ++r) {
                    const float t = tail(n + j, r, k0);
                    if constexpr (kVectorScale) {
                        total[r][j] =
                            _mm512_fmadd_ps(_mm512_set1_ps(w.scales[slot]), v[r][j], total[r][j]);
                        acc[r][j] += w.scales[slot] * t;
                    } else {
                        acc[r][j] += w.scales[slot] * (_mm512_reduce_add_ps(v[r][j]) + t);
                    }
                    acc[r][j] -= zero_part(n + j, r, g);
                }
            }
        }
        for (int r = 0; r < R; ++r)
            for (int j = 0; j < kN; ++j) {
                float sum = acc[r][j];
                if constexpr (kVectorScale) sum += _mm512_reduce_add_ps(total[r][j]);
                y[r * ldy + n + j] = sum;
            }
    }
    for (; n < n1; ++n) {
        float acc[R] = {};
        for (size_t g = 0; g < groups; ++g) {
            const size_t k0 = g * group;
            const size_t slot = n * groups + g;
            __m512 v[R];
            for (int r = 0; r < R; ++r) v[r] = _mm512_setzero_ps();
            for (size_t k = 0; k < vec_end; k += kS) {
                if constexpr (kPairs) {
                    __m512 even, odd;
                    load32_pairs<K>(q, n * k_len + k0 + k, even, odd);
                    for (int r = 0; r < R; ++r) {
                        v[r] = _mm512_fmadd_ps(_mm512_loadu_ps(ap + r * lda + k0 + k), even, v[r]);
                        v[r] =
                            _mm512_fmadd_ps(_mm512_loadu_ps(ap + r * lda + k0 + k + 16), odd, v[r]);
                    }
                } else {
                    const __m512 wv = load16<K>(q, n * k_len + k0 + k);
                    for (int r = 0; r < R; ++r)
                        v[r] = _mm512_fmadd_ps(_mm512_loadu_ps(ap + r * lda + k0 + k), wv, v[r]);
                }
            }
            for (int r = 0; r < R; ++r)
                acc[r] += w.scales[slot] * (_mm512_reduce_add_ps(v[r]) + tail(n, r, k0)) -
                          zero_part(n, r, g);
        }
        for (int r = 0; r < R; ++r) y[r * ldy + n] = acc[r];
    }
}

// out[k] = (element first + k - zp) * scale for k < count, 16 at a time (first even for 4-bit
// kinds); returns how many it wrote (a multiple of 16).
template <int K>
__attribute__((target("avx512f,fma"))) size_t dequantize_avx512(const uint8_t* q, size_t first,
                                                                size_t count, float zp, float scale,
                                                                float* out) {
    const __m512 s = _mm512_set1_ps(scale);
    const __m512 shift = _mm512_set1_ps(-zp * scale);
    size_t k = 0;
    for (; k + 16 <= count; k += 16)
        _mm512_storeu_ps(out + k, _mm512_fmadd_ps(load16<K>(q, first + k), s, shift));
    return k;
}

#pragma GCC diagnostic pop

// For the 4-bit vector loop: within each group, each whole block of 32 activations becomes its 16
// even-offset elements then its 16 odd-offset ones (load32_pairs' order); the rest is copied.
void permute_pairs(const float* a, size_t rows, size_t k_len, size_t group, float* out) {
    for (size_t r = 0; r < rows; ++r)
        for (size_t k0 = 0; k0 < k_len; k0 += group) {
            const float* src = a + r * k_len + k0;
            float* dst = out + r * k_len + k0;
            const size_t whole = group / 32 * 32;
            for (size_t b = 0; b < whole; b += 32)
                for (size_t i = 0; i < 16; ++i) {
                    dst[b + i] = src[b + 2 * i];
                    dst[b + 16 + i] = src[b + 2 * i + 1];
                }
            for (size_t k = whole; k < group; ++k) dst[k] = src[k];
        }
}

// The same product without vector intrinsics (CPUs without AVX-512; the compiler vectorises what
// it can).
template <int K>
void gemv_portable(const float* a, size_t lda, size_t rows, const CompressedWeights& w,
                   const float* row_sums, float* y, size_t ldy, size_t n0, size_t n1) {
    const auto* q = static_cast<const uint8_t*>(w.q.data());
    const size_t k_len = w.k_len, group = w.group, groups = k_len / group;
    for (size_t n = n0; n < n1; ++n)
        for (size_t r = 0; r < rows; ++r) {
            float acc = 0.f;
            for (size_t g = 0; g < groups; ++g) {
                float dot = 0.f;
                for (size_t k = g * group; k < (g + 1) * group; ++k)
                    dot += a[r * lda + k] * element_at<K>(q, n * k_len + k);
                const size_t slot = n * groups + g;
                const float zp = w.zero_points.empty() ? 0.f : w.zero_points[slot];
                acc += w.scales[slot] * (dot - zp * row_sums[r * groups + g]);
            }
            y[r * ldy + n] = acc;
        }
}

// Calls f(std::integral_constant<int, kind>{}).
template <typename F>
void with_kind(Kind kind, F&& f) {
    switch (kind) {
        case kI8:
            f(std::integral_constant<int, kI8>{});
            break;
        case kU8:
            f(std::integral_constant<int, kU8>{});
            break;
        case kU4:
            f(std::integral_constant<int, kU4>{});
            break;
        case kI4:
            f(std::integral_constant<int, kI4>{});
            break;
    }
}

class CompressedMatMulKernel final : public reference::Kernel {
  public:
    explicit CompressedMatMulKernel(CompressedWeights w) : m_w(std::move(w)) {
        m_w.chain.clear();  // the kernel needs only the numbers
        const auto type = m_w.q.get_element_type();
        m_kind = type == element::i8   ? kI8
                 : type == element::u8 ? kU8
                 : type == element::u4 ? kU4
                                       : kI4;
        if (m_kind == kI4) {  // read as u4 with the sign bit flipped: zero points move by 8
            if (m_w.zero_points.empty()) m_w.zero_points.assign(m_w.scales.size(), 0.f);
            for (float& zp : m_w.zero_points) zp += 8.f;
        }
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        const Tensor& a = inputs.at(0);
        Tensor& y = outputs.at(0);
        const size_t k_len = m_w.k_len;
        const auto* x = static_cast<const float*>(a.data());
        auto* out = static_cast<float*>(y.data());
        if (y.get_size() == 0) return;
        if (k_len == 0) {  // an empty sum
            std::fill(out, out + y.get_size(), 0.f);
            return;
        }
        const size_t rows = a.get_size() / k_len;
        if (rows <= kGemvRows) {
            gemv(x, rows, out);
        } else {
            blocked(x, rows, out);
        }
    }

    double flops(const std::vector<Tensor>& inputs, const std::vector<Tensor>&) const override {
        return 2.0 * static_cast<double>(inputs.at(0).get_size()) * static_cast<double>(m_w.n);
    }

  private:
    static constexpr size_t kGemvRows = 4;
    static constexpr size_t kBlockChannels = 256;

    void gemv(const float* x, size_t rows, float* out) const {
        const size_t groups = m_w.k_len / m_w.group;
        std::vector<float> sums(rows * groups, 0.f);
        if (!m_w.zero_points.empty())
            for (size_t r = 0; r < rows; ++r)
                for (size_t k = 0; k < m_w.k_len; ++k)
                    sums[r * groups + k / m_w.group] += x[r * m_w.k_len + k];
        const float* xp = x;
        std::vector<float> permuted;
        if ((m_kind == kU4 || m_kind == kI4) && has_avx512()) {
            permuted.resize(rows * m_w.k_len);
            permute_pairs(x, rows, m_w.k_len, m_w.group, permuted.data());
            xp = permuted.data();
        }
        // Chunks of whole 4-channel blocks, at least 64 channels each (a smaller split costs
        // more in waking threads than it saves).
        const size_t blocks = (m_w.n + 63) / 64;
        sdk::CPUStreamsExecutor::parallel_for(blocks, [&](size_t b, size_t e) {
            const size_t n0 = b * 64, n1 = std::min(m_w.n, e * 64);
            run_rows(x, xp, rows, sums.data(), out, n0, n1);
        });
    }

    void run_rows(const float* x, const float* xp, size_t rows, const float* sums, float* out,
                  size_t n0, size_t n1) const {
        const size_t lda = m_w.k_len, ldy = m_w.n;
        with_kind(m_kind, [&](auto kind) {
            constexpr int K = decltype(kind)::value;
            if (!has_avx512()) {
                gemv_portable<K>(x, lda, rows, m_w, sums, out, ldy, n0, n1);
                return;
            }
            switch (rows) {
                case 1:
                    gemv_avx512<K, 1>(x, xp, lda, m_w, sums, out, ldy, n0, n1);
                    break;
                case 2:
                    gemv_avx512<K, 2>(x, xp, lda, m_w, sums, out, ldy, n0, n1);
                    break;
                case 3:
                    gemv_avx512<K, 3>(x, xp, lda, m_w, sums, out, ldy, n0, n1);
                    break;
                default:
                    gemv_avx512<K, 4>(x, xp, lda, m_w, sums, out, ldy, n0, n1);
                    break;
            }
        });
    }

    // Blocks of channels dequantized to f32 [channels, K] (threads split the channels), then
    // oneDNN's sgemm over the block with its OpenMP threads.
    void blocked(const float* x, size_t rows, float* out) const {
        const size_t k_len = m_w.k_len;
        std::vector<float> block(std::min(kBlockChannels, m_w.n) * k_len);
        for (size_t c0 = 0; c0 < m_w.n; c0 += kBlockChannels) {
            const size_t count = std::min(kBlockChannels, m_w.n - c0);
            sdk::CPUStreamsExecutor::parallel_for(count, [&](size_t b, size_t e) {
                with_kind(m_kind, [&](auto kind) {
                    for (size_t c = b; c < e; ++c)
                        dequantize_channel<decltype(kind)::value>(c0 + c, block.data() + c * k_len);
                });
            });
            const auto status =
                dnnl::sgemm('N', 'T', static_cast<dnnl_dim_t>(rows), static_cast<dnnl_dim_t>(count),
                            static_cast<dnnl_dim_t>(k_len), 1.f, x, static_cast<dnnl_dim_t>(k_len),
                            block.data(), static_cast<dnnl_dim_t>(k_len), 0.f, out + c0,
                            static_cast<dnnl_dim_t>(m_w.n));
            if (status != dnnl::status::success)
                throw_error<Exception>("CPU: oneDNN sgemm failed on a compressed MatMul (status ",
                                       static_cast<int>(status), ")");
        }
    }

    // dst[k] = (q[n][k] - zero point) * scale, group by group, 16 at a time with AVX-512.
    template <int K>
    void dequantize_channel(size_t n, float* dst) const {
        const auto* q = static_cast<const uint8_t*>(m_w.q.data());
        const size_t groups = m_w.k_len / m_w.group;
        for (size_t g = 0; g < groups; ++g) {
            const size_t slot = n * groups + g;
            const float scale = m_w.scales[slot];
            const float zp = m_w.zero_points.empty() ? 0.f : m_w.zero_points[slot];
            const size_t first = n * m_w.k_len + g * m_w.group;
            float* out = dst + g * m_w.group;
            size_t done = 0;
            if (has_avx512()) done = dequantize_avx512<K>(q, first, m_w.group, zp, scale, out);
            for (size_t k = done; k < m_w.group; ++k)
                out[k] = (element_at<K>(q, first + k) - zp) * scale;
        }
    }

    CompressedWeights m_w;
    Kind m_kind = kI8;
};

}  // namespace

std::optional<CompressedWeights> match_compressed_weights(const Node& matmul) {
    if (matmul.get_type_name() != "MatMul" || matmul.get_input_size() != 2 ||
        matmul.get_attribute<bool>("transpose_a") || !matmul.get_attribute<bool>("transpose_b") ||
        matmul.input_value(0).get_element_type() != element::f32)
        return std::nullopt;
    CompressedWeights w;
    Output value = matmul.input_value(1);
    const PartialShape& wps = value.get_partial_shape();
    if (!wps.is_static() || wps.size() != 2 || value.get_element_type() != element::f32)
        return std::nullopt;
    w.n = wps.to_shape()[0];
    w.k_len = wps.to_shape()[1];
    if (value.get_node()->get_type_name() == "Reshape") {
        w.chain.push_back(value.get_node_shared_ptr());
        value = value.get_node()->input_value(0);
    }
    const Node* mul = value.get_node();
    if (mul->get_type_name() != "Multiply") return std::nullopt;
    w.chain.push_back(value.get_node_shared_ptr());
    for (size_t side = 0; side < 2; ++side) {
        std::vector<NodePtr> chain = w.chain;
        Output data = mul->input_value(side);
        const Output scale_port = mul->input_value(1 - side);
        if (scale_port.get_node()->get_type_name() != "Constant") continue;
        const Tensor scale = scale_port.get_node()->get_constant_value();
        std::optional<std::vector<float>> zero_points;
        Shape zp_shape;
        if (data.get_node()->get_type_name() == "Subtract") {
            chain.push_back(data.get_node_shared_ptr());
            const Output zp_port = data.get_node()->input_value(1);
            zero_points = constant_floats(zp_port, &chain);
            if (!zero_points || !zp_port.get_partial_shape().is_static()) continue;
            zp_shape = zp_port.get_partial_shape().to_shape();
            data = data.get_node()->input_value(0);
        }
        if (data.get_node()->get_type_name() != "Convert") continue;
        chain.push_back(data.get_node_shared_ptr());
        const Output q_port = data.get_node()->input_value(0);
        if (q_port.get_node()->get_type_name() != "Constant") continue;
        const Tensor q = q_port.get_node()->get_constant_value();
        const auto q_type = q.get_element_type();
        if (q_type != element::i8 && q_type != element::u8 && q_type != element::i4 &&
            q_type != element::u4)
            continue;
        const Shape& qs = q.get_shape();
        size_t groups = 0;
        if (qs == Shape{w.n, w.k_len} && (w.chain.size() == 1)) {
            groups = 1;
        } else if (qs.size() == 3 && qs[0] == w.n && qs[1] != 0 && qs[1] * qs[2] == w.k_len &&
                   w.chain.size() == 2) {
            groups = qs[1];
        } else {
            continue;
        }
        if (scale.get_element_type() != element::f32 ||
            !per_group_shape(scale.get_shape(), w.n, groups))
            continue;
        if (zero_points && zp_shape != scale.get_shape() && shape_size(zp_shape) != 1) continue;
        w.q = q;
        w.group = w.k_len / groups;
        // 4-bit rows and groups must start on a byte (the kernel loads whole bytes).
        if (q_type.is_sub_byte() && (w.k_len % 2 != 0 || w.group % 2 != 0)) continue;
        const auto* s = static_cast<const float*>(scale.data());
        w.scales.assign(s, s + scale.get_size());
        if (zero_points) {
            bool any = false;
            for (float z : *zero_points) any |= z != 0.f;
            if (any)
                w.zero_points = zero_points->size() == 1
                                    ? std::vector<float>(w.scales.size(), (*zero_points)[0])
                                    : *zero_points;
        }
        w.chain = std::move(chain);
        return w;
    }
    return std::nullopt;
}

size_t protect_compressed_weights(Model& model) {
    const NodeVector nodes = model.get_ordered_ops();
    std::map<const Node*, std::set<const Node*>> consumers;
    for (const auto& node : nodes)
        for (const auto& in : node->input_values()) consumers[in.get_node()].insert(node.get());
    size_t marked = 0;
    for (const auto& node : nodes) {
        if (node->get_type_name() != "MatMul") continue;
        auto w = match_compressed_weights(*node);
        if (!w) continue;
        // The decompression must feed only itself and MatMuls that read it the same way: another
        // consumer would run it at every inference once folding is off.
        std::set<const Node*> chain;
        for (const auto& c : w->chain) chain.insert(c.get());
        bool private_chain = true;
        for (const auto& c : w->chain)
            for (const Node* user : consumers[c.get()])
                if (!chain.count(user) && !(user->get_type_name() == "MatMul" &&
                                            user->input_value(1).get_node() == c.get() &&
                                            match_compressed_weights(*user)))
                    private_chain = false;
        if (!private_chain) continue;
        for (const auto& c : w->chain) c->get_rt_info()[reference::kDisableConstantFolding] = true;
        node->get_rt_info()[kCompressedMatMulKey] = true;
        ++marked;
    }
    return marked;
}

std::shared_ptr<const reference::Kernel> compressed_matmul_kernel(CompressedWeights weights) {
    return std::make_shared<CompressedMatMulKernel>(std::move(weights));
}

Shape compressed_matmul_shape(const Shape& a, const CompressedWeights& weights) {
    if (a.empty() || a.back() != weights.k_len)
        throw_error<InvalidArgument>("CPU: a MatMul over compressed weights [", weights.n, ", ",
                                     weights.k_len, "] got an input of shape ", a,
                                     "; its last dimension must be ", weights.k_len);
    Shape out = a;
    out.back() = weights.n;
    return out;
}

}  // namespace vireo::cpu_plugin
