// Implements the typed builders of vireo/ops.hpp for slicing, indexing, generators,
// normalisations, Interpolate, TopK, FakeQuantize and the state ops.
#include "vireo/op_registry.hpp"
#include "vireo/ops.hpp"

namespace vireo::op {
namespace {

OutputVector with_optional(OutputVector inputs, const Output& optional) {
    if (optional) inputs.push_back(optional);
    return inputs;
}

}  // namespace

// ---- Slicing, indexing ----

NodePtr split(const Output& x, const Output& axis, int64_t num_splits) {
    return make_node("Split", {x, axis}, {{"num_splits", num_splits}}, 1);
}

NodePtr variadic_split(const Output& x, const Output& axis, const Output& split_lengths) {
    return make_node("VariadicSplit", {x, axis, split_lengths}, {}, 1);
}

NodePtr strided_slice(const Output& x, const Output& begin, const Output& end, const Output& stride,
                      const std::vector<int64_t>& begin_mask, const std::vector<int64_t>& end_mask,
                      const std::vector<int64_t>& new_axis_mask,
                      const std::vector<int64_t>& shrink_axis_mask,
                      const std::vector<int64_t>& ellipsis_mask) {
    return make_node("StridedSlice", with_optional({x, begin, end}, stride),
                     {{"begin_mask", begin_mask},
                      {"end_mask", end_mask},
                      {"new_axis_mask", new_axis_mask},
                      {"shrink_axis_mask", shrink_axis_mask},
                      {"ellipsis_mask", ellipsis_mask}},
                     1);
}

NodePtr slice(const Output& x, const Output& start, const Output& stop, const Output& step,
              const Output& axes) {
    return make_node("Slice", with_optional({x, start, stop, step}, axes), {}, 8);
}

NodePtr gather(const Output& data, const Output& indices, const Output& axis, int64_t batch_dims) {
    return make_node("Gather", {data, indices, axis}, {{"batch_dims", batch_dims}}, 8);
}

NodePtr gather_elements(const Output& data, const Output& indices, int64_t axis) {
    return make_node("GatherElements", {data, indices}, {{"axis", axis}}, 6);
}

NodePtr scatter_update(const Output& data, const Output& indices, const Output& updates,
                       const Output& axis) {
    return make_node("ScatterUpdate", {data, indices, updates, axis}, {}, 3);
}

// ---- Shapes and generators ----

NodePtr shape_of(const Output& x, element::Type output_type) {
    return make_node("ShapeOf", {x}, {{"output_type", output_type}}, 3);
}

NodePtr range(const Output& start, const Output& stop, const Output& step,
              element::Type output_type) {
    return make_node("Range", {start, stop, step}, {{"output_type", output_type}}, 4);
}

NodePtr random_uniform(const Output& shape, const Output& min, const Output& max,
                       element::Type output_type, int64_t global_seed, int64_t op_seed) {
    return make_node(
        "RandomUniform", {shape, min, max},
        {{"output_type", output_type}, {"global_seed", global_seed}, {"op_seed", op_seed}}, 8);
}

NodePtr broadcast(const Output& x, const Output& target_shape, const std::string& mode,
                  const Output& axes_mapping) {
    return make_node("Broadcast", with_optional({x, target_shape}, axes_mapping), {{"mode", mode}},
                     3);
}

NodePtr tile(const Output& x, const Output& repeats) {
    return make_node("Tile", {x, repeats}, {}, 1);
}

NodePtr pad(const Output& x, const Output& pads_begin, const Output& pads_end,
            const std::string& pad_mode, const Output& pad_value) {
    return make_node("Pad", with_optional({x, pads_begin, pads_end}, pad_value),
                     {{"pad_mode", pad_mode}}, 12);
}

// ---- Normalisation ----

NodePtr batch_norm_inference(const Output& x, const Output& gamma, const Output& beta,
                             const Output& mean, const Output& variance, double epsilon) {
    return make_node("BatchNormInference", {x, gamma, beta, mean, variance}, {{"epsilon", epsilon}},
                     5);
}

NodePtr mvn(const Output& x, const Output& axes, bool normalize_variance, double eps,
            const std::string& eps_mode) {
    return make_node(
        "MVN", {x, axes},
        {{"normalize_variance", normalize_variance}, {"eps", eps}, {"eps_mode", eps_mode}}, 6);
}

NodePtr normalize_l2(const Output& x, const Output& axes, double eps, const std::string& eps_mode) {
    return make_node("NormalizeL2", {x, axes}, {{"eps", eps}, {"eps_mode", eps_mode}}, 1);
}

// ---- Interpolate, TopK, FakeQuantize ----

NodePtr interpolate(const Output& x, const Output& scales_or_sizes, const InterpolateAttrs& a,
                    const Output& axes, const Output& roi) {
    if (roi && !axes)
        throw_error<InvalidArgument>("Interpolate: a roi input needs the axes input before it");
    return make_node("Interpolate", with_optional(with_optional({x, scales_or_sizes}, axes), roi),
                     {{"mode", a.mode},
                      {"shape_calculation_mode", a.shape_calculation_mode},
                      {"coordinate_transformation_mode", a.coordinate_transformation_mode},
                      {"nearest_mode", a.nearest_mode},
                      {"antialias", a.antialias},
                      {"pads_begin", a.pads_begin},
                      {"pads_end", a.pads_end},
                      {"cube_coeff", a.cube_coeff},
                      {"exclude_outside", a.exclude_outside},
                      {"extrapolation_value", a.extrapolation_value}},
                     11);
}

NodePtr topk(const Output& x, const Output& k, int64_t axis, const std::string& mode,
             const std::string& sort, element::Type index_element_type, bool stable) {
    return make_node("TopK", {x, k},
                     {{"axis", axis},
                      {"mode", mode},
                      {"sort", sort},
                      {"index_element_type", index_element_type},
                      {"stable", stable}},
                     11);
}

NodePtr fake_quantize(const Output& x, const Output& input_low, const Output& input_high,
                      const Output& output_low, const Output& output_high, int64_t levels,
                      const std::string& auto_broadcast) {
    return make_node("FakeQuantize", {x, input_low, input_high, output_low, output_high},
                     {{"levels", levels}, {"auto_broadcast", auto_broadcast}}, 1);
}

NodePtr einsum(const OutputVector& inputs, const std::string& equation) {
    return make_node("Einsum", inputs, {{"equation", equation}}, 7);
}

// ---- State ----

NodePtr read_value(const std::string& variable_id, element::Type variable_type,
                   const PartialShape& variable_shape, const Output& init) {
    return make_node("ReadValue", with_optional({}, init),
                     {{"variable_id", variable_id},
                      {"variable_type", variable_type},
                      {"variable_shape", variable_shape}},
                     6);
}

NodePtr assign(const Output& value, const std::string& variable_id) {
    return make_node("Assign", {value}, {{"variable_id", variable_id}}, 6);
}

}  // namespace vireo::op
