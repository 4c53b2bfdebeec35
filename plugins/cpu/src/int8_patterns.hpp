// Declares what the CPU plugin recognises of a quantized (QDQ) model: the integer weights behind a
// dequantized constant (marked before constant folding erases them), and the dequantize and
// quantize chains the ONNX reader writes for DequantizeLinear and QuantizeLinear.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "patterns.hpp"
#include "vireo/model.hpp"
#include "vireo/tensor.hpp"

namespace vireo::cpu_plugin {

/// The integers and scales of a dequantized constant, (q - zero_point) * scale, in the flat
/// (row-major) order of its value: element i has scale scales[(i / stride) % scales.size()]. A
/// Reshape keeps that order, so the description survives the reshape of grouped weights.
struct QuantizedWeights {
    Tensor q;                   ///< i8 or u8, the stored integers
    std::vector<float> scales;  ///< one (per tensor) or one per channel
    size_t stride = 1;          ///< flat distance between channels of `scales`
    bool symmetric = true;      ///< every zero point is 0
};
std::ostream& operator<<(std::ostream& out, const QuantizedWeights& w);

/// rt_info key, on a Constant's output, of the QuantizedWeights it was folded from.
inline constexpr const char* kQuantizedWeightsKey = "cpu.quantized_weights";

/// Marks every output of the form Convert(Constant i8/u8) [- zero point] * scale (constant zero
/// point and scale, the scale per tensor or along one axis), and Reshapes of such outputs, with
/// their QuantizedWeights, before fold_model_constants turns them into f32 Constants (which keep
/// the output's rt_info). Returns how many outputs were marked.
size_t mark_quantized_weights(Model& model);

/// The QuantizedWeights of a marked output, or of the Constant it was folded into.
std::optional<QuantizedWeights> quantized_weights_of(const Output& port);

/// DequantizeLinear as the reader writes it: Convert(q: u8/i8 -> f32) [-> Subtract zero point]
/// -> Multiply scale, the scale and zero point scalar constants (per-tensor), each link the only
/// consumer of the one before. Starts at the Convert.
struct DequantizeMatch {
    Output q;  ///< the integer input
    float scale = 0.f;
    int32_t zero_point = 0;
    std::vector<NodePtr> nodes;  ///< Convert, Subtract, Multiply
    Output output;               ///< the f32 result
};
std::optional<DequantizeMatch> match_dequantize(Node& convert, const ConsumerMap& consumers);

/// QuantizeLinear as the reader writes it: Divide(x, scale) -> Round(half_to_even) [-> Add zero
/// point] -> Clamp(type range) -> Convert(u8/i8), scalar constants, single consumers. Starts at
/// the Divide. A zero or negative scale does not match (the f32 ops run it as written).
struct QuantizeMatch {
    Output input;  ///< the f32 input
    float scale = 0.f;
    int32_t zero_point = 0;
    element::Type type;          ///< u8 or i8
    std::vector<NodePtr> nodes;  ///< Divide ... Convert
    Output output;               ///< the integer result
};
std::optional<QuantizeMatch> match_quantize(Node& divide, const ConsumerMap& consumers);

/// MatMulInteger as the reader writes it (what ONNX Runtime's quantize_dynamic puts in a model):
/// MatMul(Convert(q: u8/i8 -> f32) [- zero point], B), transpose_a false, with B an f32 Constant
/// of rank 2 whose values are all integers in [-128, 127] (its own zero point already folded in),
/// and the activation's zero point a scalar: an integer Constant, or Convert(z) of an u8/i8 scalar
/// z computed at run time (DynamicQuantizeLinear's). The Convert of q and the Subtract are read
/// only by this MatMul. Static shapes only.
struct IntegerMatMulMatch {
    Output q;                    ///< the u8/i8 activation
    int32_t zero_point = 0;      ///< the constant zero point (when `computed_zero_point` is empty)
    Output computed_zero_point;  ///< z, when the zero point is computed
    std::vector<NodePtr> nodes;  ///< Convert(q) [, Subtract]: what the int8 MatMul replaces
};
std::optional<IntegerMatMulMatch> match_integer_matmul(const Node& matmul,
                                                       const ConsumerMap& consumers);

}  // namespace vireo::cpu_plugin

namespace vireo {
/// QuantizedWeights live in rt_info as values only this plugin reads: text out, never in.
template <>
struct TextCodec<cpu_plugin::QuantizedWeights> {
    static std::string to_text(const cpu_plugin::QuantizedWeights& w);
    static cpu_plugin::QuantizedWeights from_text(const std::string& text);
};
}  // namespace vireo
