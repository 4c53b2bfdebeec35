// Declares the public model transformations an application (or genai's LLMPipeline) applies to a
// Model before compiling it. Today: make_stateful, OpenVINO's "make stateful" for decoder LLMs.
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

}  // namespace vireo
