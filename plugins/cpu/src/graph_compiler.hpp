// Declares compile_graph: the CPU plugin's graph compiler, from a model to the Graph its
// requests execute (fusions, layouts, oneDNN primitives, reference kernels, memory plan).
#pragma once

#include <memory>

#include "graph.hpp"

namespace vireo::cpu_plugin {

/// Compiles `model` (the plugin's private copy; it must stay unchanged while the graph lives).
///
/// Static models: nodes whose inputs are all constants are computed once here; Convolution and
/// GroupConvolution, MatMul, MaxPool/AvgPool (after a convolution), Softmax, the LayerNorm chain
/// and MVN-6 over the last axis become oneDNN primitives. The chain of ops after a convolution or
/// MatMul is fused as post-ops when each link has a single consumer: per-channel Add (bias), Relu,
/// Clamp, Maximum/Minimum by a scalar, Sigmoid, Tanh, Elu, Swish, HSwish, Gelu (erf and tanh, and
/// the exported x*0.5*(1+erf(x/sqrt 2)) form), scalar Add/Subtract/Multiply/Divide, and the Add or
/// Multiply of a same-shaped tensor computed earlier (the residual add). Convolution activations
/// are channels-last (NHWC), weights are reordered once into the layout the primitive picks
/// (format_tag::any); reorders are inserted where layouts change. Every other op runs on its
/// reference kernel. Dynamic models (or models with If/Loop, whose bodies are compiled the same
/// way, recursively) run their own steps on reference kernels.
///
/// Throws NotImplemented naming every op that cannot run (in one message): ops without a
/// reference kernel and If/Loop bodies with variables.
///
/// `packed` (from an imported blob) offers weights already in a primitive's layout: a weight
/// whose source port and chosen layout both match an entry is used as it is instead of being
/// reordered (a mismatch, e.g. a blob from a CPU with other instructions, just reorders).
///
/// `precision` element::bf16 (what Config::resolved_precision() gave: the CPU has AVX-512 BF16)
/// runs convolutions and MatMuls with constant weights in bf16: weights reordered to bf16 once,
/// the source converted by a reorder step, f32 accumulation, bias, post-ops and output.
///
/// `dynamic_quantization` (CPU_DYNAMIC_QUANTIZATION, on a CPU with VNNI or AMX) runs MatMuls with
/// constant f32 weights as u8 x s8 products: weights quantized here per output channel, the
/// activation per tensor at every inference (dynamic_quantization.hpp).
///
/// `winograd` (CPU_WINOGRAD) lets f32 3x3 convolutions of stride 1 run oneDNN's Winograd
/// kernels on nChw16c (GraphCompiler::try_winograd); false keeps every convolution direct.
std::shared_ptr<const Graph> compile_graph(std::shared_ptr<const Model> model,
                                           const PackedWeightsMap* packed = nullptr,
                                           element::Type precision = element::f32,
                                           bool dynamic_quantization = false, bool winograd = true);

}  // namespace vireo::cpu_plugin
