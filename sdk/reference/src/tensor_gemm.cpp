// Implements the f32 GEMM engine: packing, a cache-blocked driver, and register-tiled
// micro-kernels compiled for AVX-512, AVX2+FMA and SSE2 and chosen at run time.
#include "tensor_gemm.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::reference::gemm {
namespace {

// ---- Micro-kernels ---------------------------------------------------------------------------
// The tile is written with GCC/Clang vector types rather than plain scalar loops: tried first, the
// auto-vectoriser turned the scalar MR x NR tile inside out (vectorising across rows with
// broadcast B loads) and spilled accumulators, at a third of the speed. Vector types keep the
// accumulators in registers, one FMA per (row, vector) per k, and need no intrinsics headers.

template <int W>
struct VecOf {
    typedef float type __attribute__((vector_size(W * sizeof(float))));
};

using TileFn = void (*)(size_t kc, const float* a, const float* b, float* c, size_t ldc,
                        bool accumulate, size_t cols);

// One tile: ROWS (<= MR) rows of C times NV vectors of W floats. `a` advances MR floats per k
// (a packed sliver), `b` NV * W floats per k (a packed panel). `cols` < NV * W stores a partial
// tile (the last panel of B).
template <int ROWS, int MR, int NV, int W>
inline __attribute__((always_inline)) void tile_body(size_t kc, const float* __restrict a,
                                                     const float* __restrict b, float* __restrict c,
                                                     size_t ldc, bool accumulate, size_t cols) {
    using V = typename VecOf<W>::type;
    constexpr int NR = NV * W;
    // For one or two rows the FMA chains are too few to hide FMA latency: split k over two
    // accumulator sets (matters for matrix-vector products, where M is 1).
    constexpr int KS = ROWS * NV < 8 ? 2 : 1;
    V acc[KS][ROWS][NV];
    for (int s = 0; s < KS; ++s)
        for (int i = 0; i < ROWS; ++i)
            for (int j = 0; j < NV; ++j) acc[s][i][j] = V{};
    size_t k = 0;
    for (; k + KS <= kc; k += KS) {
        // One row (a matrix-vector product) is bound by reading B: ask for B a few KB ahead.
        if constexpr (ROWS == 1)
            for (int line = 0; line < KS * NR; line += 16)
                __builtin_prefetch(b + (k + 32) * NR + line);
        for (int s = 0; s < KS; ++s) {
            const float* ak = a + (k + s) * MR;
            const float* bk = b + (k + s) * NR;
            V bv[NV];
            for (int j = 0; j < NV; ++j) std::memcpy(&bv[j], bk + j * W, sizeof(V));
            for (int i = 0; i < ROWS; ++i) {
                const float x = ak[i];
                for (int j = 0; j < NV; ++j) acc[s][i][j] += x * bv[j];
            }
        }
    }
    for (; k < kc; ++k) {
        const float* ak = a + k * MR;
        const float* bk = b + k * NR;
        V bv[NV];
        for (int j = 0; j < NV; ++j) std::memcpy(&bv[j], bk + j * W, sizeof(V));
        for (int i = 0; i < ROWS; ++i) {
            const float x = ak[i];
            for (int j = 0; j < NV; ++j) acc[0][i][j] += x * bv[j];
        }
    }
    for (int s = 1; s < KS; ++s)
        for (int i = 0; i < ROWS; ++i)
            for (int j = 0; j < NV; ++j) acc[0][i][j] += acc[s][i][j];

    if (cols == static_cast<size_t>(NR)) {
        for (int i = 0; i < ROWS; ++i) {
            float* row = c + i * ldc;
            for (int j = 0; j < NV; ++j) {
                V v = acc[0][i][j];
                if (accumulate) {
                    V old;
                    std::memcpy(&old, row + j * W, sizeof(V));
                    v += old;
                }
                std::memcpy(row + j * W, &v, sizeof(V));
            }
        }
        return;
    }
    alignas(64) float part[ROWS][NR];
    std::memcpy(part, acc[0], sizeof(part));
    for (int i = 0; i < ROWS; ++i) {
        float* row = c + i * ldc;
        if (accumulate) {
            for (size_t j = 0; j < cols; ++j) row[j] += part[i][j];
        } else {
            for (size_t j = 0; j < cols; ++j) row[j] = part[i][j];
        }
    }
}

// ---- Small-M products on unpacked B ----------------------------------------------------------
// With at most kSmallM rows in A, a product does a few FMAs per element of B, so it runs at the
// speed B streams in from memory, and packing B first would read and write B once more. These
// bodies read B where it lies, each row (or column) front to back.

struct SmallM {
    const float* a;  // ROWS rows, row r at a + r * a_row, element kk at + kk * a_col
    size_t a_row, a_col;
    const float* b;  // element (kk, j) at b + kk * b_row + j * b_col
    size_t b_row, b_col;
    size_t k;
    float* c;
    size_t ldc;
};
using SmallMFn = void (*)(const SmallM& p, size_t j0, size_t j1);

// Row-major B: C[r, c0:c1] += A[r, kk:kk+U] * B[kk:kk+U, c0:c1], U rows of B per pass over the
// columns (U sequential streams; the A values of the pass stay in registers). No lambdas here:
// they would not inherit the caller's target ISA.
template <int ROWS, int U, int W>
inline __attribute__((always_inline)) void small_m_rows_pass(const SmallM& p, size_t kk, size_t c0,
                                                             size_t c1) {
    using V = typename VecOf<W>::type;
    float x[ROWS][U];
    const float* rows[U];
    for (int u = 0; u < U; ++u) {
        rows[u] = p.b + (kk + u) * p.b_row;
        for (int r = 0; r < ROWS; ++r) x[r][u] = p.a[r * p.a_row + (kk + u) * p.a_col];
    }
    const size_t vec_end = c0 + (c1 - c0) / W * W;
    for (size_t j = c0; j < vec_end; j += W) {
        V acc[ROWS];
        for (int r = 0; r < ROWS; ++r) std::memcpy(&acc[r], p.c + r * p.ldc + j, sizeof(V));
        for (int u = 0; u < U; ++u) {
            V bv;
            std::memcpy(&bv, rows[u] + j, sizeof(V));
            for (int r = 0; r < ROWS; ++r) acc[r] += x[r][u] * bv;
        }
        for (int r = 0; r < ROWS; ++r) std::memcpy(p.c + r * p.ldc + j, &acc[r], sizeof(V));
    }
    for (size_t j = vec_end; j < c1; ++j)
        for (int u = 0; u < U; ++u)
            for (int r = 0; r < ROWS; ++r) p.c[r * p.ldc + j] += x[r][u] * rows[u][j];
}

// Columns go in chunks of 1024 so the ROWS rows of C being built stay in L1.
template <int ROWS, int W>
inline __attribute__((always_inline)) void small_m_rows_body(const SmallM& p, size_t j0,
                                                             size_t j1) {
    constexpr int KU = ROWS == 1 ? 8 : ROWS == 2 ? 4 : 2;
    constexpr size_t kChunk = 1024;
    for (size_t c0 = j0; c0 < j1; c0 += kChunk) {
        const size_t c1 = std::min(j1, c0 + kChunk);
        for (int r = 0; r < ROWS; ++r) std::fill(p.c + r * p.ldc + c0, p.c + r * p.ldc + c1, 0.0f);
        size_t kk = 0;
        for (; kk + KU <= p.k; kk += KU) small_m_rows_pass<ROWS, KU, W>(p, kk, c0, c1);
        for (; kk < p.k; ++kk) small_m_rows_pass<ROWS, 1, W>(p, kk, c0, c1);
    }
}

// Column-major B (a transposed weight matrix, stored N x K): each C[r, j] is a dot product of
// two contiguous rows. JB columns at once share the loads of A; vector accumulators over k,
// summed across lanes at the end. A's rows must be contiguous (a_col == 1).
template <int ROWS, int JB, int W>
inline __attribute__((always_inline)) void small_m_dot(const SmallM& p, size_t j) {
    using V = typename VecOf<W>::type;
    V acc[ROWS][JB];
    for (int r = 0; r < ROWS; ++r)
        for (int q = 0; q < JB; ++q) acc[r][q] = V{};
    const size_t vec_k = p.k / W * W;
    for (size_t kk = 0; kk < vec_k; kk += W) {
        V av[ROWS];
        for (int r = 0; r < ROWS; ++r) std::memcpy(&av[r], p.a + r * p.a_row + kk, sizeof(V));
        for (int q = 0; q < JB; ++q) {
            V bv;
            std::memcpy(&bv, p.b + (j + q) * p.b_col + kk, sizeof(V));
            for (int r = 0; r < ROWS; ++r) acc[r][q] += av[r] * bv;
        }
    }
    for (int r = 0; r < ROWS; ++r) {
        for (int q = 0; q < JB; ++q) {
            float lanes[W];
            std::memcpy(lanes, &acc[r][q], sizeof(V));
            float sum = 0.0f;
            for (int l = 0; l < W; ++l) sum += lanes[l];
            const float* ar = p.a + r * p.a_row;
            const float* bq = p.b + (j + q) * p.b_col;
            for (size_t kk = vec_k; kk < p.k; ++kk) sum += ar[kk] * bq[kk];
            p.c[r * p.ldc + j + q] = sum;
        }
    }
}

template <int ROWS, int W>
inline __attribute__((always_inline)) void small_m_cols_body(const SmallM& p, size_t j0,
                                                             size_t j1) {
    constexpr int JB = ROWS == 1 ? 8 : ROWS == 2 ? 4 : 2;
    size_t j = j0;
    for (; j + JB <= j1; j += JB) small_m_dot<ROWS, JB, W>(p, j);
    for (; j < j1; ++j) small_m_dot<ROWS, 1, W>(p, j);
}

#define VIREO_GEMM_TARGET_AVX512 \
    __attribute__((target("avx512f,avx512vl,avx512dq,fma,prefer-vector-width=512")))
#define VIREO_GEMM_TARGET_AVX2 __attribute__((target("avx2,fma")))

// Tiles per instruction set: accumulators MR x NV vectors, leaving registers for the B vectors
// and the broadcast A value (32 zmm, 16 ymm, 16 xmm).
constexpr int kMrAvx512 = 8, kNvAvx512 = 2, kWAvx512 = 16;  // 8 x 32
constexpr int kMrAvx2 = 6, kNvAvx2 = 2, kWAvx2 = 8;         // 6 x 16
constexpr int kMrSse = 4, kNvSse = 2, kWSse = 4;            // 4 x 8

template <int ROWS>
VIREO_GEMM_TARGET_AVX512 void tile_avx512(size_t kc, const float* a, const float* b, float* c,
                                          size_t ldc, bool accumulate, size_t cols) {
    tile_body<ROWS, kMrAvx512, kNvAvx512, kWAvx512>(kc, a, b, c, ldc, accumulate, cols);
}
template <int ROWS>
VIREO_GEMM_TARGET_AVX2 void tile_avx2(size_t kc, const float* a, const float* b, float* c,
                                      size_t ldc, bool accumulate, size_t cols) {
    tile_body<ROWS, kMrAvx2, kNvAvx2, kWAvx2>(kc, a, b, c, ldc, accumulate, cols);
}
template <int ROWS>
void tile_sse(size_t kc, const float* a, const float* b, float* c, size_t ldc, bool accumulate,
              size_t cols) {
    tile_body<ROWS, kMrSse, kNvSse, kWSse>(kc, a, b, c, ldc, accumulate, cols);
}

template <int ROWS>
VIREO_GEMM_TARGET_AVX512 void small_rows_avx512(const SmallM& p, size_t j0, size_t j1) {
    small_m_rows_body<ROWS, kWAvx512>(p, j0, j1);
}
template <int ROWS>
VIREO_GEMM_TARGET_AVX512 void small_cols_avx512(const SmallM& p, size_t j0, size_t j1) {
    small_m_cols_body<ROWS, kWAvx512>(p, j0, j1);
}
template <int ROWS>
VIREO_GEMM_TARGET_AVX2 void small_rows_avx2(const SmallM& p, size_t j0, size_t j1) {
    small_m_rows_body<ROWS, kWAvx2>(p, j0, j1);
}
template <int ROWS>
VIREO_GEMM_TARGET_AVX2 void small_cols_avx2(const SmallM& p, size_t j0, size_t j1) {
    small_m_cols_body<ROWS, kWAvx2>(p, j0, j1);
}
template <int ROWS>
void small_rows_sse(const SmallM& p, size_t j0, size_t j1) {
    small_m_rows_body<ROWS, kWSse>(p, j0, j1);
}
template <int ROWS>
void small_cols_sse(const SmallM& p, size_t j0, size_t j1) {
    small_m_cols_body<ROWS, kWSse>(p, j0, j1);
}

constexpr int kMaxMr = 8;

struct Isa {
    const char* name;
    Tile tile;
    TileFn tiles[kMaxMr];          // tiles[r - 1] computes r rows
    SmallMFn small_rows[kSmallM];  // [r - 1]: r rows of A times row-major B
    SmallMFn small_cols[kSmallM];  // [r - 1]: r rows of A times column-major B
};

using SmallRows = std::make_integer_sequence<int, kSmallM>;

template <int... R, int... S>
Isa make_avx512(std::integer_sequence<int, R...>, std::integer_sequence<int, S...>) {
    return Isa{"avx512",
               {kMrAvx512, kNvAvx512 * kWAvx512},
               {&tile_avx512<R + 1>...},
               {&small_rows_avx512<S + 1>...},
               {&small_cols_avx512<S + 1>...}};
}
template <int... R, int... S>
Isa make_avx2(std::integer_sequence<int, R...>, std::integer_sequence<int, S...>) {
    return Isa{"avx2",
               {kMrAvx2, kNvAvx2 * kWAvx2},
               {&tile_avx2<R + 1>...},
               {&small_rows_avx2<S + 1>...},
               {&small_cols_avx2<S + 1>...}};
}
template <int... R, int... S>
Isa make_sse(std::integer_sequence<int, R...>, std::integer_sequence<int, S...>) {
    return Isa{"sse2",
               {kMrSse, kNvSse * kWSse},
               {&tile_sse<R + 1>...},
               {&small_rows_sse<S + 1>...},
               {&small_cols_sse<S + 1>...}};
}

Isa select_isa() {
    __builtin_cpu_init();
    // VIREO_GEMM_ISA=avx2|sse2 forces a narrower kernel (tests run every path on one machine);
    // a request the CPU cannot honour falls back to the automatic choice.
    if (const char* forced = std::getenv("VIREO_GEMM_ISA")) {
        const std::string name(forced);
        if (name == "sse2") return make_sse(std::make_integer_sequence<int, kMrSse>{}, SmallRows{});
        if (name == "avx2" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
            return make_avx2(std::make_integer_sequence<int, kMrAvx2>{}, SmallRows{});
    }
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma"))
        return make_avx512(std::make_integer_sequence<int, kMrAvx512>{}, SmallRows{});
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return make_avx2(std::make_integer_sequence<int, kMrAvx2>{}, SmallRows{});
    return make_sse(std::make_integer_sequence<int, kMrSse>{}, SmallRows{});
}

const Isa& isa() {
    static const Isa selected = select_isa();
    return selected;
}

// ---- Blocking --------------------------------------------------------------------------------
// A kc x nr slice of a B panel stays in L1 while it meets every A sliver of a block of rows;
// that block (mc x kc) stays in L2, as does the B block (kc x panels * nr).
constexpr size_t kKc = 256;
constexpr size_t kMcSlivers = 16;  // rows per A block = 16 * mr
constexpr size_t kNcPanels = 32;   // columns per B block = 32 * nr

void run_block(const Isa& is, size_t m, size_t n, size_t k, const float* a, const float* b,
               float* c, size_t ldc, bool accumulate, size_t p_begin, size_t p_end, size_t s_begin,
               size_t s_end) {
    const size_t mr = is.tile.mr, nr = is.tile.nr;
    for (size_t pb = p_begin; pb < p_end; pb += kNcPanels) {
        const size_t pe = std::min(p_end, pb + kNcPanels);
        // Equal depth blocks (288 = 144 + 144, not 256 + 32): a thin last block would reload
        // every C tile for little work.
        const size_t blocks = (k + kKc - 1) / kKc;
        const size_t depth = (k + blocks - 1) / blocks;
        for (size_t pc = 0; pc < k; pc += depth) {
            const size_t kc = std::min(depth, k - pc);
            const bool acc = accumulate || pc > 0;
            for (size_t sb = s_begin; sb < s_end; sb += kMcSlivers) {
                const size_t se = std::min(s_end, sb + kMcSlivers);
                for (size_t p = pb; p < pe; ++p) {
                    const size_t cols = std::min(nr, n - p * nr);
                    const float* bp = b + p * k * nr + pc * nr;
                    for (size_t s = sb; s < se; ++s) {
                        const size_t rows = std::min(mr, m - s * mr);
                        is.tiles[rows - 1](kc, a + s * k * mr + pc * mr, bp,
                                           c + s * mr * ldc + p * nr, ldc, acc, cols);
                    }
                }
            }
        }
    }
}

}  // namespace

void parallel_ranges(size_t n, const std::function<void(size_t, size_t)>& body, bool threaded) {
    if (threaded && n > 1) {
        sdk::CPUStreamsExecutor::parallel_for(n, body);
    } else if (n > 0) {
        body(0, n);
    }
}

const Tile& tile() {
    return isa().tile;
}
const char* isa_name() {
    return isa().name;
}

size_t packed_a_size(size_t m, size_t k) {
    const size_t mr = tile().mr;
    return (m + mr - 1) / mr * mr * k;
}

void pack_a(const MatrixView& a, float* dst) {
    const size_t mr = tile().mr, m = a.rows, k = a.cols;
    for (size_t s = 0; s * mr < m; ++s) {
        float* sliver = dst + s * mr * k;
        for (size_t i = 0; i < mr; ++i) {
            const size_t row = s * mr + i;
            if (row >= m) {
                for (size_t kk = 0; kk < k; ++kk) sliver[kk * mr + i] = 0.0f;
                continue;
            }
            const float* src = a.data + row * a.row_stride;
            for (size_t kk = 0; kk < k; ++kk) sliver[kk * mr + i] = src[kk * a.col_stride];
        }
    }
}

size_t packed_b_size(size_t k, size_t n) {
    const size_t nr = tile().nr;
    return (n + nr - 1) / nr * nr * k;
}

void pack_b_panels(const MatrixView& b, size_t first, size_t last, float* dst) {
    const size_t nr = tile().nr, k = b.rows, n = b.cols;
    for (size_t p = first; p < last; ++p) {
        float* panel = dst + p * k * nr;
        const size_t col0 = p * nr;
        const size_t cols = std::min(nr, n - col0);
        if (b.col_stride == 1) {
            for (size_t kk = 0; kk < k; ++kk) {
                float* out = panel + kk * nr;
                std::memcpy(out, b.data + kk * b.row_stride + col0, cols * sizeof(float));
                std::fill(out + cols, out + nr, 0.0f);
            }
        } else {
            // Transposed source: walk each column contiguously.
            for (size_t j = 0; j < nr; ++j) {
                if (j >= cols) {
                    for (size_t kk = 0; kk < k; ++kk) panel[kk * nr + j] = 0.0f;
                    continue;
                }
                const float* src = b.data + (col0 + j) * b.col_stride;
                for (size_t kk = 0; kk < k; ++kk) panel[kk * nr + j] = src[kk * b.row_stride];
            }
        }
    }
}

void multiply_packed(size_t m, size_t n, size_t k, const float* a_packed, const float* b_packed,
                     float* c, size_t ldc, bool accumulate, bool threaded) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
        if (!accumulate)
            for (size_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
        return;
    }
    const Isa& is = isa();
    const size_t panels = (n + is.tile.nr - 1) / is.tile.nr;
    const size_t slivers = (m + is.tile.mr - 1) / is.tile.mr;
    // Split whichever dimension has more tiles; each thread writes its own part of C.
    if (splits_by_panels(m, n)) {
        parallel_ranges(
            panels,
            [&](size_t begin, size_t end) {
                run_block(is, m, n, k, a_packed, b_packed, c, ldc, accumulate, begin, end, 0,
                          slivers);
            },
            threaded);
    } else {
        parallel_ranges(
            slivers,
            [&](size_t begin, size_t end) {
                run_block(is, m, n, k, a_packed, b_packed, c, ldc, accumulate, 0, panels, begin,
                          end);
            },
            threaded);
    }
}

bool splits_by_panels(size_t m, size_t n) {
    const Tile& t = tile();
    return (n + t.nr - 1) / t.nr >= (m + t.mr - 1) / t.mr;
}

void multiply_packed_panels(size_t m, size_t n, size_t k, const float* a_packed,
                            const float* b_packed, float* c, size_t ldc, size_t first_panel,
                            size_t last_panel) {
    if (m == 0 || n == 0 || first_panel >= last_panel) return;
    const Isa& is = isa();
    if (k == 0) {
        const size_t col0 = first_panel * is.tile.nr;
        const size_t col1 = std::min(n, last_panel * is.tile.nr);
        for (size_t i = 0; i < m; ++i) std::fill(c + i * ldc + col0, c + i * ldc + col1, 0.0f);
        return;
    }
    const size_t slivers = (m + is.tile.mr - 1) / is.tile.mr;
    run_block(is, m, n, k, a_packed, b_packed, c, ldc, false, first_panel, last_panel, 0, slivers);
}

void multiply(const MatrixView& a, const MatrixView& b, float* c, size_t ldc, bool threaded) {
    float* pa = scratch(0, packed_a_size(a.rows, a.cols));
    pack_a(a, pa);
    multiply_packed_a(pa, a.rows, b, c, ldc, threaded);
}

void multiply_packed_b(const MatrixView& a, const float* b_packed, size_t n, float* c, size_t ldc,
                       bool threaded) {
    float* pa = scratch(0, packed_a_size(a.rows, a.cols));
    pack_a(a, pa);
    multiply_packed(a.rows, n, a.cols, pa, b_packed, c, ldc, false, threaded);
}

void multiply_packed_a(const float* a_packed, size_t m, const MatrixView& b, float* c, size_t ldc,
                       bool threaded) {
    const size_t panels = (b.cols + tile().nr - 1) / tile().nr;
    float* pb = scratch(1, packed_b_size(b.rows, b.cols));
    parallel_ranges(
        panels, [&](size_t begin, size_t end) { pack_b_panels(b, begin, end, pb); }, threaded);
    multiply_packed(m, b.cols, b.rows, a_packed, pb, c, ldc, false, threaded);
}

bool small_m_applies(const MatrixView& a, const MatrixView& b) {
    return a.rows >= 1 && a.rows <= kSmallM && (b.col_stride == 1 || b.row_stride == 1);
}

void multiply_small_m(const MatrixView& a, const MatrixView& b, float* c, size_t ldc,
                      bool threaded) {
    if (!small_m_applies(a, b))
        throw std::invalid_argument("gemm::multiply_small_m: A must have 1.." +
                                    std::to_string(kSmallM) +
                                    " rows and B a unit stride along rows or columns");
    const size_t m = a.rows, k = a.cols, n = b.cols;
    if (n == 0) return;
    if (k == 0) {
        for (size_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
        return;
    }
    const Isa& is = isa();
    const bool row_major = b.col_stride == 1;
    SmallM p{a.data, a.row_stride, a.col_stride, b.data, b.row_stride, b.col_stride, k, c, ldc};
    if (!row_major && a.col_stride != 1) {
        // The dot-product form walks A's rows contiguously: gather them (m * k floats).
        float* packed = scratch(0, m * k);
        for (size_t i = 0; i < m; ++i)
            for (size_t kk = 0; kk < k; ++kk)
                packed[i * k + kk] = a.data[i * a.row_stride + kk * a.col_stride];
        p.a = packed;
        p.a_row = k;
        p.a_col = 1;
    }
    const SmallMFn fn = row_major ? is.small_rows[m - 1] : is.small_cols[m - 1];
    // Threads take runs of 64 columns (whole cache lines of row-major B and C); below about
    // 64K multiply-adds a hand-off to another thread costs more than it saves.
    constexpr size_t kGroup = 64;
    const size_t groups = (n + kGroup - 1) / kGroup;
    parallel_ranges(
        groups, [&](size_t begin, size_t end) { fn(p, begin * kGroup, std::min(n, end * kGroup)); },
        threaded && m * k * n >= (size_t{1} << 16));
}

void AlignedBuffer::resize(size_t floats) {
    if (floats <= m_size) return;
    // Round up to whole cache lines so the allocation size is a multiple of the alignment.
    const size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
    float* p = static_cast<float*>(std::aligned_alloc(64, bytes));
    if (!p) throw std::bad_alloc();
    m_data.reset(p);
    m_size = bytes / sizeof(float);
}

float* scratch(int slot, size_t floats) {
    thread_local AlignedBuffer buffers[3];
    AlignedBuffer& buffer = buffers[slot];
    buffer.resize(std::max<size_t>(floats, 16));
    return buffer.data();
}

}  // namespace vireo::reference::gemm
