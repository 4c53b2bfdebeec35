// Declares benchmark_app's input handling: -i (.npy files, lists, folders), -b (batch) and
// -data_shape (tensor shapes for a dynamic model), and filling the requests' input tensors.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "vireo/compiled_model.hpp"
#include "vireo/infer_request.hpp"
#include "vireo/model.hpp"
#include "vireo/tensor.hpp"

namespace vireo::benchmark {

/// For each model input (by index), the .npy tensors given with -i, used in turn: request r
/// (or iteration r with -inference_only false) takes tensor r % count.
using InputData = std::vector<std::vector<Tensor>>;

/// Reads -i: comma-separated items, each `file.npy`, `folder` (its *.npy files, sorted by name),
/// or one of these prefixed with an input name and ':' or '=' (`data:img.npy`, `x=dir`). Items
/// without a name go to the only input; a folder given for a model with several inputs assigns
/// each `<input name>.npy` (names with '/' or ':' replaced by '_') to its input. Every input
/// needs data unless `random_for_missing` (-random_inputs): then an input without a file keeps an
/// empty list and gets random data. Throws InvalidArgument naming the item or input at fault
/// (unknown input name, no .npy file in a folder, an input left without data, element type or
/// shape not matching the input), NotFound for a missing path.
InputData load_input_data(const std::string& text, const Model& model,
                          bool random_for_missing = false);

/// Sets dimension `N` (from -layout, else the first) of every input to `batch` (-b).
/// Throws InvalidArgument naming an input of rank 0 or whose layout has no N.
void set_batch(Model& model, int64_t batch, const std::map<std::string, std::string>& layouts);

/// Parses -layout: "[NCHW]" (every input) or "name[NCHW],other[NC]"; key "" for all inputs.
std::map<std::string, std::string> parse_layout_argument(const std::string& text);

/// Creates the input tensors of one request: from `data` when given (tensor `index % count`),
/// else random data of the compiled input's shape, or of its -data_shape for a dynamic input.
/// Throws InvalidArgument naming an input with dynamic shape and no data or -data_shape.
void fill_request_inputs(InferRequest& request, const CompiledModel& compiled,
                         const InputData& data,
                         const std::map<std::string, PartialShape>& data_shapes, size_t index);

}  // namespace vireo::benchmark
