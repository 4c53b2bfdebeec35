// Declares gemv_f32: an f32 product of a few rows by a large matrix (a decoder's step: one token's
// activations times a weight), written to stream the matrix at the machine's memory bandwidth.
#pragma once

#include <cstddef>

namespace vireo::cpu_plugin {

/// The most rows of `a` gemv_f32 takes (a decode step of one sequence or of two).
constexpr size_t kGemvMaxRows = 2;

/// Whether gemv_f32 takes a product of m rows, k deep, n wide: m of 1..kGemvMaxRows, k and n
/// not 0, on a CPU with AVX-512, with an OpenMP team of two or more threads on the calling
/// thread (on one, sgemm is as fast).
bool gemv_f32_takes(size_t m, size_t k, size_t n);

/// y[r][j] = Σ_c a[r][c] · B[c][j] for r < m, j < n, c < k, with B stored [k, n] row-major, for
/// what gemv_f32_takes. Rows of `a` are `lda` floats apart; y is [m, n] contiguous. A B of more
/// than 128 KiB is split over the calling thread's OpenMP team (as oneDNN's sgemm is) by blocks
/// of rows of B, so that each thread reads one contiguous part of B and sums into a partial
/// result of its own.
void gemv_f32(const float* a, size_t lda, size_t m, const float* b, size_t k, size_t n, float* y);

}  // namespace vireo::cpu_plugin
