// Declares the CPU plugin's handling of float16 graphs: the CPU has no f16 arithmetic that
// oneDNN 2.6 uses, so, as OpenVINO's CPU plugin and ONNX Runtime's CPU provider do, a model's f16
// interior is computed in f32 and only its f16 inputs and outputs stay f16.
#pragma once

#include <cstddef>

#include "vireo/model.hpp"

namespace vireo::cpu_plugin {

/// Rewrites `model` in place (the plugin's own copy, before constant folding) so that it computes
/// in f32 what it would compute in f16:
/// - an f16 Constant becomes the f32 Constant of the same values (exact);
/// - an f16 Parameter is read through a Convert to f32 (its own type and names stay);
/// - an element-type attribute that says f16 (Convert's destination, Range's output type, …)
///   says f32, except on a Convert whose only readers are Results (the model's f16 output);
/// - a Result whose input was f16 and is now f32 reads it through a Convert back to f16.
/// Everything is then re-inferred. A model whose If or Loop bodies would see a changed type, or
/// whose variables (states) are f16, is left as it is (computed in f16 on reference kernels).
/// Returns how many nodes changed.
size_t compute_f16_in_f32(Model& model);

}  // namespace vireo::cpu_plugin
