// Declares the public model transformations an application (or genai's LLMPipeline) applies to a
// Model before compiling it: make_stateful (OpenVINO's "make stateful" for decoder LLMs) and
// compress_weights (weight-only int8 compression of MatMul weights, as NNCF's compress_weights),
// and fuse_scaled_dot_product_attention (exported attention subgraphs into one op, which plugins
// run on a fused kernel).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vireo/model.hpp"

namespace vireo {

struct MakeStatefulOptions {
    /// (input name, output name) pairs: the past input that becomes a variable and the present
    /// output written back to it, e.g. ("past_key_values.0.key", "present.0.key").
    std::vector<std::pair<std::string, std::string>> pairs;
    /// The input whose dimension 0 is the batch; each variable's initial value is empty
    /// ([batch, <static dims>, 0 for every other dynamic dimension]).
    std::string batch_source = "input_ids";
    /// Name of the new input: i32 [batch] indices into the previous step's batch rows (beam
    /// search keeps row parents[i] as row i). Give 0, 1, ..., B-1 to keep the order.
    std::string beam_idx_name = "beam_idx";
};

/// Turns each past input / present output pair into a variable, in place:
///   Parameter(past) -> ReadValue(id = past name, init = zeros [batch, ..., 0, ...])
///                      -> Gather(axis 0, indices = beam_idx) -> the past's consumers,
///   present's producer -> Assign(id); the Result and the Parameter leave the model.
/// The caches start empty in every infer request and after reset_state(), so a request feeds
/// only the new tokens (input_ids, attention_mask over the whole sequence, position_ids,
/// beam_idx). Applying it to a model read from ONNX or IR gives a model that can be saved as IR.
/// Throws NotFound naming a past input or present output that the model does not have, and
/// InvalidArgument naming a past input whose shape is not [batch, static dims..., dynamic] or
/// whose type differs from its present output's, or an input name already used for beam_idx.
void make_stateful(const std::shared_ptr<Model>& model, const MakeStatefulOptions& options);

/// How compress_weights stores a weight.
enum class WeightCompressionMode {
    kInt8Sym,   ///< i8, q = round(w / scale), scale = max|w| / 127 per group; dequantized q * scale
    kInt8Asym,  ///< u8 with a u8 zero point per group: (q - zero_point) * scale, over [min, max]
    kInt4Sym,   ///< i4 (two per byte), scale = max|w| / 7 per group
    kInt4Asym,  ///< u4 with a u8 zero point per group, over [min, max] in 15 steps
};
/// "int8" (= "int8_sym"), "int8_asym", "int4_sym" (= "int4") or "int4_asym"; throws
/// InvalidArgument naming the accepted values.
WeightCompressionMode weight_compression_mode(const std::string& name);

struct CompressWeightsOptions {
    WeightCompressionMode mode = WeightCompressionMode::kInt8Sym;
    /// Elements of one output channel that share a scale (and zero point). 0 is the mode's
    /// default: the whole channel for int8, 128 for int4 (NNCF's). A size that does not divide
    /// the reduction length gives one group per output channel.
    size_t group_size = 0;
    /// Weights with fewer elements stay f32 (small layers are not worth a decompression).
    size_t min_elements = 4096;
};

struct CompressWeightsStats {
    size_t matmuls = 0;       ///< MatMuls whose weights were compressed
    size_t bytes_before = 0;  ///< f32 bytes of those weights
    size_t bytes_after = 0;   ///< integer bytes + scales + zero points written instead
};

/// Weight-only compression, in place: every MatMul whose second input is an f32 Constant of rank
/// 2 with at least min_elements finite elements (and whose first input is not a constant; for
/// int4, whose reduction length is even) reads instead
///   Constant(i8|u8|i4|u4 [N, K] or [N, K/G, G]) -> Convert(f32) [-> Subtract(Convert(zero point))]
///     -> Multiply(scale [N, 1] or [N, K/G, 1]) [-> Reshape([N, K])]
/// with transpose_b set, N the output channels and K the reduction axis (the layout OpenVINO's
/// NNCF writes). Any runtime runs the result as written; the CPU plugin recognises the pattern and
/// multiplies with the integers directly, reading a quarter of the bytes per token. The original
/// constant stays only if something else uses it. Returns what was compressed.
CompressWeightsStats compress_weights(const std::shared_ptr<Model>& model,
                                      const CompressWeightsOptions& options = {});

/// Replaces each attention subgraph as exporters write it by one ScaledDotProductAttention-13
/// node, in place:
///   MatMul(Q, Kᵀ)  (Kᵀ a Transpose swapping the last two axes of K, or transpose_b set on K)
///     -> Multiply or Divide by a scalar constant (either operand; or Multiply(Q, c) before the
///        MatMul; or no scale at all, which is scale 1)
///     -> [Add(mask), the mask of Q's type broadcasting to the scores without enlarging them]
///     -> Softmax over the last axis -> MatMul(·, V)
/// Every intermediate value must have the next step as its only reader; Q, K and V must have one
/// static rank >= 3 and one real element type, and neither MatMul may transpose its first
/// operand. Anything else (Softmax over another axis, a scale that is not one number, a mask
/// that widens the scores) is left as it is. The fused node takes the second MatMul's friendly
/// name and output names; a scale constant is always given (1/c for a Divide), and a scalar 0
/// mask when there is none. Grouped-query attention — K and V each Reshape(Broadcast(Unsqueeze(x,
/// r-2))) of an x [batch..., Hkv, S, E] with a static Hkv (Llama's repeat_kv), Q's H a multiple of
/// Hkv when known — becomes a rank-(r+1) node on Q reshaped to [batch..., Hkv, H/Hkv, L, E] and
/// K, V as [batch..., Hkv, 1, S, E] (the Broadcast kept with 1 for the group), reshaped back to
/// [batch..., H, L, Ev]: the repeated heads are never materialised. It assumes, as it cannot
/// prove with shapes computed at run time, that the rank-r Reshape after the repeat merges the
/// two head axes (what exporters write). Returns the number of subgraphs replaced. Applied by the
/// CPU plugin when it compiles a model; applications may call it before saving a model as IR.
///
///     auto model = core.read_model("gpt2/model.onnx");
///     size_t fused = vireo::fuse_scaled_dot_product_attention(model);  // 12 for GPT-2 small
size_t fuse_scaled_dot_product_attention(const std::shared_ptr<Model>& model);

}  // namespace vireo
