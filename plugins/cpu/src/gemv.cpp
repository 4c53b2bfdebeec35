// Implements gemv_f32 (gemv.hpp). A decoder's step multiplies one row (or a few) by each weight:
// every weight byte is read once and used for one multiply-add per row, so the product runs at
// the speed the weights stream from memory. For a Llama-style decoder's weights on the 2-vCPU AMD
// EPYC VM, oneDNN's sgemm read B [k, n] at 25-30 GB/s on one thread and 33-40 GB/s on two, where
// a plain read of the same bytes reaches 40 and 40-47 GB/s; these loops read eight rows of B at
// a time front to back, each thread its own block of rows, and reach 32-35 and 43-56 GB/s
// (docs/llm.md). B [n, k] (transposed) stays on sgemm, which reads it as fast; so do three or
// more rows of a, where the multiply-adds, not the reads, set the pace.
#include "gemv.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cpu_isa.hpp"

namespace vireo::cpu_plugin {
namespace {

// Below this size of B one thread streams it in a few microseconds, about what waking the other
// threads of the team costs.
constexpr size_t kParallelBytes = 128 * 1024;

// GCC 12 reports the _mm*_undefined_* operands inside its own reduction intrinsics as used
// uninitialized (a false positive of the header); nothing here reads them.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

// y[r][j0..j0+16) += Σ_i a[r][c + i] · B[c + i][j0..) for KR rows of B [k, n] (xs: the KR
// broadcast values of each row of a), the 16 columns selected by `mask`. Two sums per row so
// that the multiply-adds do not wait on one another.
template <int M, int KR>
__attribute__((target("avx512f,fma"))) inline void kn_columns(const __m512 (&xs)[M][KR],
                                                              const float* w, size_t n, size_t j0,
                                                              __mmask16 mask, float* y) {
    __m512 wv[KR];
#pragma GCC unroll 8
    for (int i = 0; i < KR; ++i) wv[i] = _mm512_maskz_loadu_ps(mask, w + i * n + j0);
#pragma GCC unroll 4
    for (int r = 0; r < M; ++r) {
        __m512 even = _mm512_maskz_loadu_ps(mask, y + r * n + j0);
        __m512 odd = _mm512_setzero_ps();
#pragma GCC unroll 8
        for (int i = 0; i < KR; i += 2) even = _mm512_fmadd_ps(xs[r][i], wv[i], even);
#pragma GCC unroll 8
        for (int i = 1; i < KR; i += 2) odd = _mm512_fmadd_ps(xs[r][i], wv[i], odd);
        _mm512_mask_storeu_ps(y + r * n + j0, mask, _mm512_add_ps(even, odd));
    }
}

// y[M][n] += a[M][c0..c1) · B[c0..c1)[n], B [k, n] row-major, KR rows of B per pass over y.
template <int M, int KR>
__attribute__((target("avx512f,fma"))) void kn_rows(const float* a, size_t lda, const float* b,
                                                    size_t n, size_t c0, size_t c1, float* y) {
    for (size_t c = c0; c + KR <= c1; c += KR) {
        __m512 xs[M][KR];
#pragma GCC unroll 4
        for (int r = 0; r < M; ++r)
#pragma GCC unroll 8
            for (int i = 0; i < KR; ++i) xs[r][i] = _mm512_set1_ps(a[r * lda + c + i]);
        const float* w = b + c * n;
        // Columns up to the first cache-line boundary of this row of B first, so that the
        // full-width loads after them do not straddle two lines (in every row of B when n is a
        // multiple of 16). On the VM, B at an address 4 bytes off a line read 20 % slower on two
        // threads in the standalone test, with or without this; it costs a masked load per row.
        const auto misaligned = reinterpret_cast<uintptr_t>(w) % 64;
        size_t j = misaligned % sizeof(float) == 0 ? std::min(n, (64 - misaligned) % 64 / 4) : 0;
        if (j > 0) kn_columns<M, KR>(xs, w, n, 0, static_cast<__mmask16>((1u << j) - 1), y);
        for (; j + 16 <= n; j += 16) kn_columns<M, KR>(xs, w, n, j, 0xFFFF, y);
        if (j < n) kn_columns<M, KR>(xs, w, n, j, static_cast<__mmask16>((1u << (n - j)) - 1), y);
    }
    const size_t rest = (c1 - c0) % KR;
    if (rest != 0 && KR > 1) kn_rows<M, 1>(a, lda, b, n, c1 - rest, c1, y);
}

#pragma GCC diagnostic pop

// Rows of B per pass over y.
constexpr int kRowsPerPass = 8;

template <int M>
void kn_part(const float* a, size_t lda, const float* b, size_t k, size_t n, size_t part,
             size_t parts, float* y) {
    // Parts of whole passes, so that only the last part has a remainder.
    constexpr size_t kr = kRowsPerPass;
    const size_t passes = (k + kr - 1) / kr;
    const size_t c0 = std::min(k, passes * part / parts * kr);
    const size_t c1 = std::min(k, passes * (part + 1) / parts * kr);
    std::fill_n(y, M * n, 0.f);
    if (c0 < c1) kn_rows<M, kRowsPerPass>(a, lda, b, n, c0, c1, y);
}

template <int M>
void run_rows(const float* a, size_t lda, const float* b, size_t k, size_t n, float* y) {
    const size_t bytes = k * n * sizeof(float);
    const int wanted = bytes < kParallelBytes ? 1 : std::max(1, omp_get_max_threads());
    if (wanted == 1) {
        kn_part<M>(a, lda, b, k, n, 0, 1, y);
        return;
    }
    // Each thread but the first sums its rows of B into a partial result of its own, added to
    // y after the team joins (the team may have fewer threads than asked: `used`).
    thread_local std::vector<float> partials;
    partials.resize(static_cast<size_t>(wanted - 1) * M * n);
    float* scratch = partials.data();
    int used = 1;
#pragma omp parallel num_threads(wanted)
    {
        const int t = omp_get_thread_num();
        const int count = omp_get_num_threads();
        if (t == 0) used = count;
        kn_part<M>(a, lda, b, k, n, static_cast<size_t>(t), static_cast<size_t>(count),
                   t == 0 ? y : scratch + static_cast<size_t>(t - 1) * M * n);
    }
    for (int t = 1; t < used; ++t) {
        const float* part = scratch + static_cast<size_t>(t - 1) * M * n;
        for (size_t i = 0; i < M * n; ++i) y[i] += part[i];
    }
}

}  // namespace

bool gemv_f32_takes(size_t m, size_t k, size_t n) {
    // One thread reads the weights no faster than sgemm does inside a model (Llama-style f32,
    // MatMuls of a token at 1 thread: 14.3-14.5 ms against 13.8-14.0 on sgemm, although the
    // standalone test ran 10-20 % faster): the GEMV is for a team of two or more.
    return m >= 1 && m <= kGemvMaxRows && k != 0 && n != 0 && has_avx512() &&
           omp_get_max_threads() > 1;
}

void gemv_f32(const float* a, size_t lda, size_t m, const float* b, size_t k, size_t n, float* y) {
    if (m == 1)
        run_rows<1>(a, lda, b, k, n, y);
    else
        run_rows<2>(a, lda, b, k, n, y);
}

}  // namespace vireo::cpu_plugin
