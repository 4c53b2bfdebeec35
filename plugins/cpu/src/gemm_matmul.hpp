// Declares gemm_matmul_kernel: the CPU plugin's f32 MatMul for dynamic graphs (shapes known only
// at run time), on oneDNN's multi-threaded sgemm instead of the single-threaded reference kernel.
#pragma once

#include <memory>

#include "vireo/reference/kernel.hpp"

namespace vireo::cpu_plugin {

/// A MatMul kernel taking the node's two inputs: f32 products whose second operand has rank 2
/// (the first any rank >= 2; transposed only at rank 2) or whose operands share one rank >= 3
/// and their batch dimensions run as sgemm calls on the calling thread's OpenMP team; any other
/// shape or type (1-D operands, broadcast batches) runs `fallback`, the reference kernel.
std::shared_ptr<const reference::Kernel> gemm_matmul_kernel(
    std::unique_ptr<reference::Kernel> fallback, bool transpose_a, bool transpose_b);

}  // namespace vireo::cpu_plugin
