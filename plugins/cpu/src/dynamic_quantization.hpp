// Declares the CPU plugin's dynamic quantization of MatMuls with constant f32 weights
// (CPU_DYNAMIC_QUANTIZATION): the weights are quantized once, at compile time, to s8 with one
// symmetric scale per output channel; the activation is quantized at every inference to u8 with
// one scale and zero point for the whole tensor (ONNX DynamicQuantizeLinear's formula) by
// dynamic_quantize_kernel; a u8 x s8 oneDNN matmul then applies the weight scales as its output
// scales, the zero point as a run-time argument and the activation's scale as a binary post-op
// (graph_compiler_int8.cpp builds the steps; MatMuls reading one activation share its step).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "vireo/reference/kernel.hpp"

namespace vireo::cpu_plugin {

/// A [K, N] f32 matrix as s8 integers and one scale per column (output channel n):
/// w(k, n) ~= q(k, n) * scales[n], q in [-127, 127], the scale max_k |w(k, n)| / 127 (1 for a
/// column of zeros). The integers keep the source's layout: [K, N] row-major, or [N, K] when
/// `transposed` (a MatMul's transpose_b).
struct QuantizedColumns {
    std::vector<int8_t> q;
    std::vector<float> scales;
};

/// Quantizes `w` (K x N logical, stored [N, K] when `transposed`). Returns nothing usable (empty
/// scales) when a weight is not finite: such a MatMul stays in f32.
QuantizedColumns quantize_columns(const float* w, size_t k, size_t n, bool transposed);

/// True when this CPU multiplies u8 by s8 in hardware (AVX-512 VNNI, AVX-VNNI or AMX): without
/// it oneDNN's int8 kernels saturate 16-bit intermediate sums, so the plugin does not quantize.
bool int8_dot_product_supported();

/// The run-time half: for an f32 input x of any shape, writes
///   output 0: q = saturate_u8(round_half_even(x / s) + zp), x's shape,
///   output 1: zp (i32, shape [1]) = saturate_u8(round_half_even(-min(0, min x) / s)),
///   output 2: s (f32, shape [1]) = (max(0, max x) - min(0, min x)) / 255,
/// as ONNX DynamicQuantizeLinear computes them. An all-zero x gives q = 0, zp = 0, s = 0; a NaN
/// or infinity anywhere in x gives s = NaN, so the MatMul's whole output is NaN (a quantized
/// tensor cannot carry them), never numbers computed from garbage. Splits the elements over the
/// calling thread's OpenMP team when x is large; AVX2 where the CPU has it.
std::shared_ptr<const reference::Kernel> dynamic_quantize_kernel();

}  // namespace vireo::cpu_plugin
