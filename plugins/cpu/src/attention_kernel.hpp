// Declares attention_kernel: the CPU plugin's ScaledDotProductAttention, flash-style (keys in
// blocks with a running max and sum, so the [L, S] scores of a head never exist in memory).
#pragma once

#include <memory>

#include "vireo/node.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::cpu_plugin {

/// A kernel for a ScaledDotProductAttention `node` taking its inputs as they are: f32 query, key,
/// value and output of one rank whose batch dimensions are equal or 1 (broadcast), an f32 or
/// boolean mask of any broadcastable shape, an f32 scale. Work is split over batch x query
/// blocks of 32 rows — on the request's OpenMP team when `openmp` (the graph's MatMuls are
/// oneDNN's sgemm, whose team still spins between ops), else on the calling stream's threads
/// (CPUStreamsExecutor::parallel_for, which the compressed-weights GEMV uses), and on the calling
/// thread alone when the work is too small to pay for waking another; key
/// blocks of 64 that a causal or mask-hidden region covers entirely are skipped (a float mask
/// value <= -1e30 counts as hidden once the row has seen a visible key, exact as long as the
/// scores stay below 1e29 in magnitude). AVX-512 where the CPU has it (VIREO_GEMM_ISA other than
/// avx512 forces the portable loop), a portable loop otherwise. Anything else runs `fallback`.
std::shared_ptr<const reference::Kernel> attention_kernel(
    const Node& node, std::unique_ptr<reference::Kernel> fallback, bool openmp);

}  // namespace vireo::cpu_plugin
