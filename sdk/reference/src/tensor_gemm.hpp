// Declares the f32 GEMM engine MatMul and the convolutions share: operands packed into panels,
// a register-tiled micro-kernel picked for the CPU once per process, optional intra-op threads.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <functional>
#include <memory>

namespace vireo::reference::gemm {

/// The register tile of the micro-kernel chosen for this CPU (AVX-512, AVX2+FMA or SSE2): it
/// computes `mr` rows of A times `nr` columns of B. Fixed for the life of the process, so
/// operands packed once (constant weights) stay valid. The environment variable
/// VIREO_GEMM_ISA=avx2|sse2, read once, forces a narrower kernel (for tests).
struct Tile {
    size_t mr;
    size_t nr;
};
const Tile& tile();
/// Name of the selected instruction set ("avx512", "avx2", "sse2"), for benchmarks and logs.
const char* isa_name();

/// A read-only matrix: element (r, c) is data[r * row_stride + c * col_stride]. Transposed
/// operands are just views with swapped strides.
struct MatrixView {
    const float* data;
    size_t rows;
    size_t cols;
    size_t row_stride;
    size_t col_stride;
};

/// Floats needed to pack an m x k left operand: slivers of tile().mr rows, each stored k-major
/// (mr values per k), the last sliver zero-padded.
size_t packed_a_size(size_t m, size_t k);
void pack_a(const MatrixView& a, float* dst);

/// Floats needed to pack a k x n right operand: panels of tile().nr columns, each stored
/// row-major over all of k (nr values per k), the last panel zero-padded.
size_t packed_b_size(size_t k, size_t n);
/// Packs panels [first, last) of b into dst (which points at panel 0's position).
void pack_b_panels(const MatrixView& b, size_t first, size_t last, float* dst);
inline void pack_b(const MatrixView& b, float* dst) {
    pack_b_panels(b, 0, (b.cols + tile().nr - 1) / tile().nr, dst);
}

/// C = A * B (or C += A * B with `accumulate`) for packed A (m x k) and packed B (k x n); C is
/// row-major with row stride ldc. With `threaded`, the work is split over the calling stream's
/// threads through CPUStreamsExecutor::parallel_for (serial outside a stream).
void multiply_packed(size_t m, size_t n, size_t k, const float* a_packed, const float* b_packed,
                     float* c, size_t ldc, bool accumulate = false, bool threaded = true);

/// Serial part of multiply_packed: only the columns of B's panels [first_panel, last_panel),
/// run on the calling thread. For callers that pack those panels inside the same parallel chunk
/// (im2col), so each thread multiplies what it packed while it is still in its cache, with one
/// parallel region instead of two.
void multiply_packed_panels(size_t m, size_t n, size_t k, const float* a_packed,
                            const float* b_packed, float* c, size_t ldc, size_t first_panel,
                            size_t last_panel);
/// Whether multiply_packed splits an m x n product over B's panels (rather than A's slivers):
/// when it does, a caller may split the same panels itself and call multiply_packed_panels.
bool splits_by_panels(size_t m, size_t n);

/// C = A * B for plain strided views: packs both operands into thread-local scratch first.
void multiply(const MatrixView& a, const MatrixView& b, float* c, size_t ldc, bool threaded = true);
/// C = A * B with B packed already (constant weights).
void multiply_packed_b(const MatrixView& a, const float* b_packed, size_t n, float* c, size_t ldc,
                       bool threaded = true);
/// C = A * B with A packed already (convolution weights).
void multiply_packed_a(const float* a_packed, size_t m, const MatrixView& b, float* c, size_t ldc,
                       bool threaded = true);

/// Rows of A up to which multiply_small_m is preferred: a product with this few rows is bound by
/// reading B, so packing B first (a full copy) costs as much as the product itself.
constexpr size_t kSmallM = 4;
/// C = A * B for A with at most kSmallM rows and B read where it lies, unpacked: B must be
/// row-major (col_stride 1) or column-major (row_stride 1, a transposed view). Every element of
/// B is read once, in address order within each of its rows, so a constant B can stay in a
/// read-only mapping of the weights file. Threads split the columns of C.
bool small_m_applies(const MatrixView& a, const MatrixView& b);
void multiply_small_m(const MatrixView& a, const MatrixView& b, float* c, size_t ldc,
                      bool threaded = true);

/// Runs body(begin, end) over [0, n): split over the calling stream's threads with
/// CPUStreamsExecutor::parallel_for when `threaded` (serial outside a stream), else one call.
void parallel_ranges(size_t n, const std::function<void(size_t, size_t)>& body,
                     bool threaded = true);

/// 64-byte aligned float storage for packed operands.
class AlignedBuffer {
  public:
    AlignedBuffer() = default;
    explicit AlignedBuffer(size_t floats) { resize(floats); }
    /// Grows to at least `floats` (contents are not kept); never shrinks.
    void resize(size_t floats);
    float* data() { return m_data.get(); }
    const float* data() const { return m_data.get(); }
    size_t size() const { return m_size; }

  private:
    struct Free {
        void operator()(float* p) const { std::free(p); }
    };
    std::unique_ptr<float, Free> m_data;
    size_t m_size = 0;
};

/// Per-thread scratch for packing: slot 0 and 1 are for the operands, 2 for a caller's own use
/// (e.g. im2col). Contents live until the same thread asks for the same slot again.
float* scratch(int slot, size_t floats);

}  // namespace vireo::reference::gemm
