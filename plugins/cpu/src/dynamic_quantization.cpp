// Implements the CPU plugin's dynamic quantization helpers: per-column s8 weights made at compile
// time and the kernel that quantizes a MatMul's activation to u8 at every inference.
#include "dynamic_quantization.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "oneapi/dnnl/dnnl.hpp"

namespace vireo::cpu_plugin {
namespace {

// Below this many elements one thread quantizes faster than a team wakes up.
constexpr size_t kParallelElements = size_t{1} << 16;

// What one pass over a part of x found: min(0, min x), max(0, max x), and whether an element
// is NaN or infinite.
struct Range {
    float lo = 0.f;
    float hi = 0.f;
    bool finite = true;
};

void range_portable(const float* x, size_t n, Range* r) {
    for (size_t i = 0; i < n; ++i) {
        const float v = x[i];
        if (!std::isfinite(v)) r->finite = false;
        r->lo = std::min(r->lo, v);
        r->hi = std::max(r->hi, v);
    }
}

void quantize_portable(const float* x, size_t n, float scale, float zp, uint8_t* q) {
    for (size_t i = 0; i < n; ++i) {
        // round(x / scale) + zp, saturated; |x / scale| <= 255 by construction, the clamp keeps
        // nearbyint's argument small whatever the float arithmetic did.
        const float t = std::nearbyint(std::clamp(x[i] / scale, -512.f, 512.f)) + zp;
        q[i] = static_cast<uint8_t>(std::clamp(t, 0.f, 255.f));
    }
}

// The same on 8 floats at a time (every CPU the plugin quantizes on has AVX2: VNNI came later).
__attribute__((target("avx2"))) void range_avx2(const float* x, size_t n, Range* r) {
    __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps(), bad = _mm256_setzero_ps();
    const __m256 zero = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        lo = _mm256_min_ps(lo, v);
        hi = _mm256_max_ps(hi, v);
        // v * 0 is NaN exactly when v is NaN or infinite.
        bad = _mm256_or_ps(bad, _mm256_cmp_ps(_mm256_mul_ps(v, zero), zero, _CMP_NEQ_UQ));
    }
    alignas(32) float l[8], h[8];
    _mm256_store_ps(l, lo);
    _mm256_store_ps(h, hi);
    for (int j = 0; j < 8; ++j) r->lo = std::min(r->lo, l[j]), r->hi = std::max(r->hi, h[j]);
    if (_mm256_movemask_ps(bad) != 0) r->finite = false;
    range_portable(x + i, n - i, r);
}

__attribute__((target("avx2"))) void quantize_avx2(const float* x, size_t n, float scale, float zp,
                                                   uint8_t* q) {
    const __m256 s = _mm256_set1_ps(scale), z = _mm256_set1_ps(zp);
    const __m256 lim_lo = _mm256_set1_ps(-512.f), lim_hi = _mm256_set1_ps(512.f);
    const __m256 u8_lo = _mm256_setzero_ps(), u8_hi = _mm256_set1_ps(255.f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 t = _mm256_div_ps(_mm256_loadu_ps(x + i), s);
        t = _mm256_min_ps(_mm256_max_ps(t, lim_lo), lim_hi);
        t = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);  // ties to even
        t = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(t, z), u8_lo), u8_hi);
        const __m256i v = _mm256_cvtps_epi32(t);
        const __m128i words =
            _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(q + i), _mm_packus_epi16(words, words));
    }
    quantize_portable(x + i, n - i, scale, zp, q + i);
}

bool has_avx2() {
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;
    }();
    return yes;
}

// Runs f(begin, end, part) over [0, n) in one part, or in one part per thread of the calling
// thread's OpenMP team when n is large; returns the number of parts.
template <typename F>
int split(size_t n, int parts, F&& f) {
    if (n < kParallelElements || parts <= 1) {
        f(size_t{0}, n, 0);
        return 1;
    }
    // Chunks of whole 8-element vectors, so only the last part has a tail.
    const size_t vectors = (n + 7) / 8;
#pragma omp parallel num_threads(parts)
    {
        const int p = omp_get_thread_num(), count = omp_get_num_threads();
        const size_t b = std::min(n, vectors * static_cast<size_t>(p) / count * 8);
        const size_t e = std::min(n, vectors * static_cast<size_t>(p + 1) / count * 8);
        f(b, e, p);
    }
    return parts;
}

class DynamicQuantizeKernel final : public reference::Kernel {
  public:
    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        const Tensor& x = inputs.at(0);
        const auto* in = static_cast<const float*>(x.data());
        auto* q = static_cast<uint8_t*>(outputs.at(0).data());
        auto* zero_point = static_cast<int32_t*>(outputs.at(1).data());
        auto* x_scale = static_cast<float*>(outputs.at(2).data());
        const size_t n = x.get_size();
        const bool avx2 = has_avx2();
        const int threads = std::max(1, omp_get_max_threads());
        std::vector<Range> ranges(static_cast<size_t>(threads));
        const int parts = split(n, threads, [&](size_t b, size_t e, int p) {
            Range* r = &ranges[static_cast<size_t>(p)];
            avx2 ? range_avx2(in + b, e - b, r) : range_portable(in + b, e - b, r);
        });
        Range all;
        for (int p = 0; p < parts; ++p) {
            all.lo = std::min(all.lo, ranges[static_cast<size_t>(p)].lo);
            all.hi = std::max(all.hi, ranges[static_cast<size_t>(p)].hi);
            all.finite = all.finite && ranges[static_cast<size_t>(p)].finite;
        }
        const float scale = (all.hi - all.lo) / 255.f;
        if (!all.finite || !std::isfinite(scale)) {
            std::fill(q, q + n, uint8_t{0});
            *zero_point = 0;
            *x_scale = std::numeric_limits<float>::quiet_NaN();
            return;
        }
        if (!(scale > 0.f)) {  // x is all zeros (or too small to tell from them)
            std::fill(q, q + n, uint8_t{0});
            *zero_point = 0;
            *x_scale = 0.f;
            return;
        }
        const float zp = std::nearbyint(std::clamp(-all.lo / scale, 0.f, 255.f));
        split(n, threads, [&](size_t b, size_t e, int) {
            avx2 ? quantize_avx2(in + b, e - b, scale, zp, q + b)
                 : quantize_portable(in + b, e - b, scale, zp, q + b);
        });
        *zero_point = static_cast<int32_t>(zp);
        *x_scale = scale;
    }

    double flops(const std::vector<Tensor>& inputs, const std::vector<Tensor>&) const override {
        return 4.0 * static_cast<double>(inputs.at(0).get_size());
    }
};

}  // namespace

QuantizedColumns quantize_columns(const float* w, size_t k, size_t n, bool transposed) {
    const size_t total = k * n;
    // Column of flat index i: [N, K] storage has it in i / K, [K, N] in i % N.
    const auto column = [&](size_t i) { return transposed ? i / k : i % n; };
    std::vector<float> amax(n, 0.f);
    for (size_t i = 0; i < total; ++i) {
        if (!std::isfinite(w[i])) return {};
        amax[column(i)] = std::max(amax[column(i)], std::fabs(w[i]));
    }
    QuantizedColumns r;
    r.scales.resize(n);
    for (size_t c = 0; c < n; ++c) r.scales[c] = amax[c] > 0.f ? amax[c] / 127.f : 1.f;
    r.q.resize(total);
    for (size_t i = 0; i < total; ++i) {
        const float v = std::nearbyint(w[i] / r.scales[column(i)]);
        r.q[i] = static_cast<int8_t>(std::clamp(v, -127.f, 127.f));
    }
    return r;
}

bool int8_dot_product_supported() {
    static const bool supported = [] {
        const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
        const auto has = [isa](dnnl::cpu_isa feature) {
            const auto bits = static_cast<unsigned>(feature);
            return (isa & bits) == bits;
        };
        return has(dnnl::cpu_isa::avx512_core_vnni) || has(dnnl::cpu_isa::avx2_vnni);
    }();
    return supported;
}

std::shared_ptr<const reference::Kernel> dynamic_quantize_kernel() {
    return std::make_shared<DynamicQuantizeKernel>();
}

}  // namespace vireo::cpu_plugin
