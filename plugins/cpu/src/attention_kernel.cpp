// Implements attention_kernel: ScaledDotProductAttention as a flash-style loop per (batch index,
// block of query rows) over blocks of keys, with the scores of one block in a small buffer, a
// running max and sum per row, and the output rows rescaled as the max grows.
#include "attention_kernel.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "cpu_isa.hpp"
#include "fallback_kernel.hpp"
#include "vireo/reference/dispatch.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::cpu_plugin {
namespace {

constexpr size_t kQueryBlock = 32;  // rows of Q per work item
constexpr size_t kKeyBlock = 64;    // keys per step: four 16-float vectors of scores per row
constexpr float kInf = std::numeric_limits<float>::infinity();
// A float mask value at or below this hides its key (exporters use the type's lowest value).
constexpr float kHiddenMask = -1e30f;

// What one work item needs: pointers to its batch index's rows and the mask's element strides.
struct Item {
    const float* q;  // [L, E]
    const float* k;  // [S, E]
    const float* v;  // [S, Ev]
    float* out;      // [L, Ev]
    const float* fmask = nullptr;
    const uint8_t* bmask = nullptr;
    size_t mask_row = 0, mask_col = 0;  // element strides of the mask along L and S (0: broadcast)
};

struct Dims {
    size_t l, s, e, ev;
    float scale;
    bool causal;
};

// Per-thread buffers of one work item.
struct Scratch {
    std::vector<float> q;       // [rows, e] scaled queries
    std::vector<float> kt;      // [e, kKeyBlock] one key block transposed (AVX-512 path)
    std::vector<float> scores;  // [rows, kKeyBlock] scores, then probabilities
    std::vector<float> acc;     // [rows, ev] unnormalised output rows
    std::vector<float> peak;    // [rows] running max
    std::vector<float> sum;     // [rows] running sum of exponentials
};

// ---- AVX-512 pieces ----

// GCC 12 reports the _mm*_undefined_* operands inside its own reduction intrinsics as used
// uninitialized (a false positive of the header); nothing here reads them.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

__attribute__((target("avx512f"))) inline __mmask16 tail_mask(size_t n) {
    return n >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
}

// e^x for x <= 0 (larger x is not needed here): 2^n · p(r) with x = n·ln2 + r, |r| <= ln2/2,
// p of degree 6 (relative error about 2e-7); x below -104 (and -inf) gives 0 or a denormal.
__attribute__((target("avx512f,fma"))) inline __m512 exp_avx512(__m512 x) {
    x = _mm512_max_ps(x, _mm512_set1_ps(-104.f));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145752f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.42860677e-6f), r);
    __m512 p = _mm512_set1_ps(1.f / 720);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f / 120));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f / 24));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f / 6));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f));
    return _mm512_scalef_ps(p, n);
}

// scores[r][j] = q[r] · k[j] for R rows and n <= kKeyBlock keys, K transposed into kt first
// (the prompt: many rows share each packed block).
template <int R>
__attribute__((target("avx512f,fma"))) void qk_packed(const float* q, size_t e, const float* kt,
                                                      float* scores) {
    __m512 acc[R][4];
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < 4; ++t) acc[r][t] = _mm512_setzero_ps();
    for (size_t c = 0; c < e; ++c) {
        const float* row = kt + c * kKeyBlock;
        const __m512 k0 = _mm512_loadu_ps(row), k1 = _mm512_loadu_ps(row + 16),
                     k2 = _mm512_loadu_ps(row + 32), k3 = _mm512_loadu_ps(row + 48);
        for (int r = 0; r < R; ++r) {
            const __m512 b = _mm512_set1_ps(q[r * e + c]);
            acc[r][0] = _mm512_fmadd_ps(b, k0, acc[r][0]);
            acc[r][1] = _mm512_fmadd_ps(b, k1, acc[r][1]);
            acc[r][2] = _mm512_fmadd_ps(b, k2, acc[r][2]);
            acc[r][3] = _mm512_fmadd_ps(b, k3, acc[r][3]);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < 4; ++t) _mm512_storeu_ps(scores + r * kKeyBlock + 16 * t, acc[r][t]);
}

// The same product with K read as it lies, one dot product per key (a few rows: decoding).
template <int R>
__attribute__((target("avx512f,fma"))) void qk_direct(const float* q, size_t e, const float* k,
                                                      size_t n, float* scores) {
    for (size_t j = 0; j < n; ++j) {
        const float* kj = k + j * e;
        __m512 acc[R];
        for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_ps();
        for (size_t c = 0; c < e; c += 16) {
            const __mmask16 m = tail_mask(e - c);
            const __m512 kv = _mm512_maskz_loadu_ps(m, kj + c);
            for (int r = 0; r < R; ++r)
                acc[r] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, q + r * e + c), kv, acc[r]);
        }
        for (int r = 0; r < R; ++r) scores[r * kKeyBlock + j] = _mm512_reduce_add_ps(acc[r]);
    }
}

// acc[r][0..ev) += Σ_j p[r][j] · v[j][0..ev) for R rows, 64 output columns at a time.
template <int R>
__attribute__((target("avx512f,fma"))) void pv_avx512(const float* p, const float* v, size_t n,
                                                      size_t ev, float* acc) {
    for (size_t c0 = 0; c0 < ev; c0 += 64) {
        const size_t width = std::min<size_t>(64, ev - c0);
        const int chunks = static_cast<int>((width + 15) / 16);
        __mmask16 m[4];
        for (int t = 0; t < 4; ++t)
            m[t] = 16 * static_cast<size_t>(t) < width ? tail_mask(width - 16 * t) : 0;
        __m512 a[R][4];
        for (int r = 0; r < R; ++r)
            for (int t = 0; t < 4; ++t)
                a[r][t] = t < chunks ? _mm512_maskz_loadu_ps(m[t], acc + r * ev + c0 + 16 * t)
                                     : _mm512_setzero_ps();
        for (size_t j = 0; j < n; ++j) {
            const float* vj = v + j * ev + c0;
            __m512 vv[4];
            for (int t = 0; t < 4; ++t)
                vv[t] = t < chunks ? _mm512_maskz_loadu_ps(m[t], vj + 16 * t) : _mm512_setzero_ps();
            for (int r = 0; r < R; ++r) {
                const __m512 b = _mm512_set1_ps(p[r * kKeyBlock + j]);
                for (int t = 0; t < 4; ++t) a[r][t] = _mm512_fmadd_ps(b, vv[t], a[r][t]);
            }
        }
        for (int r = 0; r < R; ++r)
            for (int t = 0; t < chunks; ++t)
                _mm512_mask_storeu_ps(acc + r * ev + c0 + 16 * t, m[t], a[r][t]);
    }
}

// p[j] = e^(x[j] - peak) for n values (n <= kKeyBlock), returning their sum.
__attribute__((target("avx512f,fma"))) float exp_row_avx512(float* x, size_t n, float peak) {
    __m512 total = _mm512_setzero_ps();
    const __m512 shift = _mm512_set1_ps(peak);
    for (size_t j = 0; j < n; j += 16) {
        const __mmask16 m = tail_mask(n - j);
        const __m512 e = exp_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + j), shift));
        _mm512_mask_storeu_ps(x + j, m, e);
        total = _mm512_add_ps(total, _mm512_maskz_mov_ps(m, e));
    }
    return _mm512_reduce_add_ps(total);
}

#pragma GCC diagnostic pop

// Calls f(std::integral_constant<int, R>) for R = rows in 1..4.
template <typename F>
void with_rows(size_t rows, F&& f) {
    switch (rows) {
        case 1:
            f(std::integral_constant<int, 1>{});
            break;
        case 2:
            f(std::integral_constant<int, 2>{});
            break;
        case 3:
            f(std::integral_constant<int, 3>{});
            break;
        default:
            f(std::integral_constant<int, 4>{});
            break;
    }
}

// ---- the loop over key blocks ----

// Whether every key of [j0, j0 + n) is hidden from every row of [i0, i0 + rows) by the mask or
// the causal rule, and every row has already seen a visible key (so skipping changes nothing).
bool block_hidden(const Item& it, const Dims& d, const Scratch& s, size_t i0, size_t rows,
                  size_t j0, size_t n) {
    if (d.causal) return j0 > i0 + rows - 1;
    if (!it.fmask && !it.bmask) return false;
    for (size_t r = 0; r < rows; ++r)
        if (!(s.peak[r] > -1e29f)) return false;
    for (size_t r = 0; r < rows; ++r) {
        const size_t base = (i0 + r) * it.mask_row;
        for (size_t j = 0; j < n; ++j) {
            const size_t at = base + (j0 + j) * it.mask_col;
            if (it.bmask ? it.bmask[at] != 0 : it.fmask[at] > kHiddenMask) return false;
        }
    }
    return true;
}

template <bool Avx512>
void run_item(const Item& it, const Dims& d, size_t i0, Scratch& s) {
    const size_t rows = std::min(kQueryBlock, d.l - i0);
    const size_t e = d.e, ev = d.ev;
    s.q.resize(rows * e);
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < e; ++c) s.q[r * e + c] = it.q[(i0 + r) * e + c] * d.scale;
    s.scores.assign(rows * kKeyBlock, 0.f);
    s.acc.assign(rows * ev, 0.f);
    s.peak.assign(rows, -kInf);
    s.sum.assign(rows, 0.f);
    const bool packed = Avx512 && rows >= 4;
    if (packed) s.kt.assign(e * kKeyBlock, 0.f);
    for (size_t j0 = 0; j0 < d.s; j0 += kKeyBlock) {
        const size_t n = std::min(kKeyBlock, d.s - j0);
        if (block_hidden(it, d, s, i0, rows, j0, n)) {
            if (d.causal) break;  // later blocks are hidden too
            continue;
        }
        const float* kb = it.k + j0 * e;
        // Scores of the block.
        if constexpr (Avx512) {
            if (packed) {
                for (size_t j = 0; j < n; ++j)
                    for (size_t c = 0; c < e; ++c) s.kt[c * kKeyBlock + j] = kb[j * e + c];
                for (size_t j = n; j < kKeyBlock; ++j)
                    for (size_t c = 0; c < e; ++c) s.kt[c * kKeyBlock + j] = 0.f;
                for (size_t r = 0; r < rows; r += 4)
                    with_rows(rows - r, [&](auto rr) {
                        qk_packed<decltype(rr)::value>(s.q.data() + r * e, e, s.kt.data(),
                                                       s.scores.data() + r * kKeyBlock);
                    });
            } else {
                with_rows(rows, [&](auto rr) {
                    qk_direct<decltype(rr)::value>(s.q.data(), e, kb, n, s.scores.data());
                });
            }
        } else {
            for (size_t r = 0; r < rows; ++r)
                for (size_t j = 0; j < n; ++j) {
                    float dot = 0.f;
                    const float* qr = s.q.data() + r * e;
                    const float* kj = kb + j * e;
                    for (size_t c = 0; c < e; ++c) dot += qr[c] * kj[c];
                    s.scores[r * kKeyBlock + j] = dot;
                }
        }
        // Mask, running max and sum, rescaled output rows, probabilities in place of scores.
        for (size_t r = 0; r < rows; ++r) {
            float* x = s.scores.data() + r * kKeyBlock;
            const size_t i = i0 + r;
            if (d.causal) {
                for (size_t j = 0; j < n; ++j)
                    if (j0 + j > i) x[j] = -kInf;
            } else if (it.fmask) {
                const float* m = it.fmask + i * it.mask_row + j0 * it.mask_col;
                for (size_t j = 0; j < n; ++j) x[j] += m[j * it.mask_col];
            } else if (it.bmask) {
                const uint8_t* m = it.bmask + i * it.mask_row + j0 * it.mask_col;
                for (size_t j = 0; j < n; ++j)
                    if (!m[j * it.mask_col]) x[j] = -kInf;
            }
            float block_max = -kInf;
            for (size_t j = 0; j < n; ++j) block_max = std::max(block_max, x[j]);
            const float peak = std::max(s.peak[r], block_max);
            if (peak == -kInf) {  // nothing visible yet: no contribution
                std::fill(x, x + kKeyBlock, 0.f);
                continue;
            }
            const float correction = std::exp(s.peak[r] - peak);
            s.peak[r] = peak;
            float total = 0.f;
            if constexpr (Avx512) {
                total = exp_row_avx512(x, n, peak);
            } else {
                for (size_t j = 0; j < n; ++j) {
                    x[j] = std::exp(x[j] - peak);
                    total += x[j];
                }
            }
            std::fill(x + n, x + kKeyBlock, 0.f);
            s.sum[r] = s.sum[r] * correction + total;
            if (correction != 1.f)
                for (size_t c = 0; c < ev; ++c) s.acc[r * ev + c] *= correction;
        }
        // Probabilities times the block's values.
        const float* vb = it.v + j0 * ev;
        if constexpr (Avx512) {
            for (size_t r = 0; r < rows; r += 4)
                with_rows(rows - r, [&](auto rr) {
                    pv_avx512<decltype(rr)::value>(s.scores.data() + r * kKeyBlock, vb, n, ev,
                                                   s.acc.data() + r * ev);
                });
        } else {
            for (size_t r = 0; r < rows; ++r) {
                const float* p = s.scores.data() + r * kKeyBlock;
                float* a = s.acc.data() + r * ev;
                for (size_t j = 0; j < n; ++j)
                    for (size_t c = 0; c < ev; ++c) a[c] += p[j] * vb[j * ev + c];
            }
        }
    }
    // A row that saw no visible key has sum 0 and gives NaN, as the reference's softmax does.
    for (size_t r = 0; r < rows; ++r) {
        const float inv = 1.f / s.sum[r];
        float* o = it.out + (i0 + r) * ev;
        for (size_t c = 0; c < ev; ++c) o[c] = s.acc[r * ev + c] * inv;
    }
}

bool plain_f32(const Tensor& t) {
    return t.get_element_type() == element::f32 && t.is_continuous() && !t.is_remote();
}

// f32 host memory whose last two dimensions are row-major without gaps, whatever the strides of
// the others: a KV cache appended in place is [B, H, S, E] rows inside a buffer with room for
// more rows per head.
bool rows_dense_f32(const Tensor& t) {
    if (t.get_element_type() != element::f32 || t.is_remote() || !t.data()) return false;
    if (t.is_continuous()) return true;
    const Shape& sh = t.get_shape();
    const Strides& st = t.get_strides();
    const size_t r = sh.size();
    return r >= 2 && (sh[r - 1] == 1 || st[r - 1] == sizeof(float)) &&
           (sh[r - 2] == 1 || st[r - 2] == sh[r - 1] * sizeof(float));
}

// Element strides of t's dimensions from its byte strides, 0 where the size is 1 (broadcast).
std::vector<size_t> element_strides(const Tensor& t) {
    const Shape& sh = t.get_shape();
    const Strides& st = t.get_strides();
    std::vector<size_t> out(sh.size(), 0);
    for (size_t a = 0; a < sh.size(); ++a)
        if (sh[a] != 1) out[a] = st[a] / sizeof(float);
    return out;
}

class AttentionKernel final : public FallbackKernel {
  public:
    AttentionKernel(std::unique_ptr<reference::Kernel> fallback, bool causal, bool openmp)
        : FallbackKernel(std::move(fallback)), m_causal(causal), m_openmp(openmp) {}

  private:
    bool run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        if (inputs.size() < 3 || outputs.size() != 1) return false;
        for (size_t i = 0; i < 3; ++i)
            if (!rows_dense_f32(inputs[i])) return false;
        Tensor& out = outputs[0];
        if (!plain_f32(out)) return false;
        const Shape& os = out.get_shape();
        const size_t rank = os.size();
        if (rank < 3) return false;
        for (size_t i = 0; i < 3; ++i) {
            const Shape& sh = inputs[i].get_shape();
            if (sh.size() != rank) return false;
            for (size_t a = 0; a + 2 < rank; ++a)
                if (sh[a] != os[a] && sh[a] != 1) return false;
        }
        const Shape& qs = inputs[0].get_shape();
        const Shape& ks = inputs[1].get_shape();
        const Shape& vs = inputs[2].get_shape();
        Dims d{qs[rank - 2], ks[rank - 2], qs[rank - 1], vs[rank - 1], 0.f, m_causal};
        if (ks[rank - 1] != d.e || vs[rank - 2] != d.s || os[rank - 2] != d.l ||
            os[rank - 1] != d.ev)
            return false;
        d.scale = 1.f / std::sqrt(static_cast<float>(d.e));
        if (inputs.size() > 4) {
            if (!plain_f32(inputs[4]) || inputs[4].get_size() != 1) return false;
            d.scale = *static_cast<const float*>(inputs[4].data());
        }
        const bool has_mask = inputs.size() > 3 && !m_causal;
        std::vector<size_t> ms;
        if (has_mask) {
            const Tensor& m = inputs[3];
            if (!(m.get_element_type() == element::f32 ||
                  m.get_element_type() == element::boolean) ||
                !m.is_continuous() || m.is_remote() || m.get_shape().size() > rank)
                return false;
            ms = reference::broadcast_strides(m.get_shape(), rank);
        }
        if (out.get_size() == 0) return true;
        if (d.s == 0) {  // no keys: a sum over nothing
            std::fill_n(static_cast<float*>(out.data()), out.get_size(), 0.f);
            return true;
        }
        const auto qst = element_strides(inputs[0]), kst = element_strides(inputs[1]),
                   vst = element_strides(inputs[2]);
        size_t batches = 1;
        for (size_t a = 0; a + 2 < rank; ++a) batches *= os[a];
        const size_t blocks = (d.l + kQueryBlock - 1) / kQueryBlock;
        const auto* q = static_cast<const float*>(inputs[0].data());
        const auto* k = static_cast<const float*>(inputs[1].data());
        const auto* v = static_cast<const float*>(inputs[2].data());
        auto* o = static_cast<float*>(out.data());
        const float* fmask = nullptr;
        const uint8_t* bmask = nullptr;
        if (has_mask) {
            if (inputs[3].get_element_type() == element::f32)
                fmask = static_cast<const float*>(inputs[3].data());
            else
                bmask = static_cast<const uint8_t*>(inputs[3].data());
        }
        const bool avx512 = has_avx512();
        // Items in batch-major order: with the batch x heads a multiple of the thread count, each
        // thread gets whole heads and the same causal work.
        const auto body = [&](size_t first, size_t last) {
            Scratch scratch;
            for (size_t w = first; w < last; ++w) {
                const size_t b = w / blocks, block = w % blocks;
                Item it{q, k, v, o + b * d.l * d.ev};
                size_t mo = 0;
                for (size_t a = rank - 2, rest = b; a-- > 0;) {
                    const size_t idx = rest % os[a];
                    rest /= os[a];
                    it.q += idx * qst[a];
                    it.k += idx * kst[a];
                    it.v += idx * vst[a];
                    if (has_mask) mo += idx * ms[a];
                }
                if (fmask) it.fmask = fmask + mo;
                if (bmask) it.bmask = bmask + mo;
                if (has_mask) {
                    it.mask_row = ms[rank - 2];
                    it.mask_col = ms[rank - 1];
                }
                if (avx512)
                    run_item<true>(it, d, block * kQueryBlock, scratch);
                else
                    run_item<false>(it, d, block * kQueryBlock, scratch);
            }
        };
        // A decode step's attention over a short cache is tens of microseconds of work, less than
        // waking other threads costs (on the stream's helpers while the OpenMP team of the
        // MatMuls around it still spun, two threads made it 4x slower: Llama-style, 128 tokens,
        // 0.40 -> 1.49 ms per token). It runs on the calling thread below ~150 us of estimated
        // work: the keys and values read at ~16 GB/s (one core's memory bandwidth) or the
        // products at ~10 G multiply-adds per second, whichever is longer.
        const double kv_bytes = static_cast<double>(batches) * static_cast<double>(d.s) *
                                static_cast<double>(d.e + d.ev) * sizeof(float);
        const double macs = static_cast<double>(batches) * static_cast<double>(d.l) *
                            static_cast<double>(d.s) * static_cast<double>(d.e + d.ev);
        const size_t n = batches * blocks;
        if (std::max(kv_bytes / 16e9, macs / 1e10) < 150e-6) {
            body(0, n);
            return true;
        }
        // The threads of the graph's MatMuls (attention_kernel's `openmp`): a second pool would
        // wake on cores the first one's threads still spin on.
        if (!m_openmp) {
            sdk::CPUStreamsExecutor::parallel_for(n, body);
            return true;
        }
        std::exception_ptr failed;
#pragma omp parallel
        {
            const auto t = static_cast<size_t>(omp_get_thread_num());
            const auto count = static_cast<size_t>(omp_get_num_threads());
            try {
                body(t * n / count, (t + 1) * n / count);
            } catch (...) {
#pragma omp critical
                if (!failed) failed = std::current_exception();
            }
        }
        if (failed) std::rethrow_exception(failed);
        return true;
    }

    bool m_causal;
    bool m_openmp;
};

}  // namespace

std::shared_ptr<const reference::Kernel> attention_kernel(
    const Node& node, std::unique_ptr<reference::Kernel> fallback, bool openmp) {
    return std::make_shared<AttentionKernel>(std::move(fallback),
                                             node.get_attribute<bool>("causal"), openmp);
}

}  // namespace vireo::cpu_plugin
