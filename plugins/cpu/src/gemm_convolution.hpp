// Declares gemm_convolution_kernel: the CPU plugin's f32 2-D Convolution for dynamic graphs (shapes
// known only at run time), as im2col and oneDNN's multi-threaded sgemm instead of the reference
// kernel.
#pragma once

#include <memory>

#include "vireo/node.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::cpu_plugin {

/// A Convolution kernel for `node` (data [N, C, H, W], filter [O, C, KH, KW], explicit or valid
/// padding): per image, the patch matrix is laid out on the calling thread's OpenMP team (1x1
/// convolutions with stride 1 and no padding read the image as it is) and multiplied by the
/// filter with one sgemm call. Any other rank, type, padding mode or a patch matrix past 256 MiB
/// runs `fallback`, the reference kernel.
std::shared_ptr<const reference::Kernel> gemm_convolution_kernel(
    const Node& node, std::unique_ptr<reference::Kernel> fallback);

}  // namespace vireo::cpu_plugin
