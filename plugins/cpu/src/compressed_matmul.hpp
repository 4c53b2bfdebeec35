// Declares the CPU plugin's MatMul over compressed weights (vireo::compress_weights' pattern, the
// one NNCF writes): recognising the decompression before constant folding, keeping it from being
// folded back to f32, and the kernel that multiplies with the integers directly.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "vireo/model.hpp"
#include "vireo/reference/kernel.hpp"
#include "vireo/tensor.hpp"

namespace vireo::cpu_plugin {

/// The integer weights behind a MatMul's second input, as output channels x reduction:
/// w(n, k) = (q[n * k_len + k] - zero_points[g]) * scales[g], g = n * groups + k / group.
struct CompressedWeights {
    Tensor q;  ///< i8, u8, i4 or u4 (two per byte, low nibble first), n * k_len elements
    std::vector<float> scales;
    std::vector<float> zero_points;  ///< empty when every zero point is 0
    size_t n = 0;
    size_t k_len = 0;
    size_t group = 0;            ///< elements of one channel per scale; divides k_len
    std::vector<NodePtr> chain;  ///< the decompression ops between the integers and the MatMul
};

/// The compressed weights of a MatMul (transpose_a false, transpose_b true) whose input 1 is
///   Convert(Constant i8|u8|i4|u4) [- zero point] * scale [-> Reshape to [N, K]]
/// with the integers [N, K] (scale [N, 1]) or [N, K/G, G] (scale [N, K/G, 1]), the zero point
/// a Constant or Convert(Constant) shaped like the scale. Nothing is copied (the integers are the
/// Constant's tensor).
std::optional<CompressedWeights> match_compressed_weights(const Node& matmul);

/// rt_info key on a MatMul the CPU plugin runs with compressed_matmul_kernel.
inline constexpr const char* kCompressedMatMulKey = "cpu.compressed_matmul";

/// Before constant folding: marks every MatMul whose weights match (and whose decompression ops
/// feed nothing else) with kCompressedMatMulKey and its decompression ops with
/// reference::kDisableConstantFolding, so folding leaves the integers as they are. Returns how many
/// MatMuls were marked.
size_t protect_compressed_weights(Model& model);

/// Y[rows, N] = A[rows, K] * W^T for A of any rank (rows = every dimension but the last). Up to
/// four rows (a decoder's token step) read the integers once, converting them in registers, the
/// output channels split over the stream's threads; more rows dequantize blocks of channels and
/// run oneDNN's sgemm. The kernel's one input is A.
std::shared_ptr<const reference::Kernel> compressed_matmul_kernel(CompressedWeights weights);

/// Output shape of the kernel for an input of shape `a`: a with its last dimension K -> N (a
/// vector [K] gives [N]). Throws InvalidArgument when the last dimension is not K.
Shape compressed_matmul_shape(const Shape& a, const CompressedWeights& weights);

}  // namespace vireo::cpu_plugin
