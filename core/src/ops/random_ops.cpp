// Defines the random-number ops: RandomUniform-8 (OpenVINO opset 8), a tensor of the shape input 0
// gives, values uniform in [min, max). Which numbers a seed gives is the kernel's (docs/ops.md).
#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

bool is_random_output_type(element::Type t) {
    return t == element::f16 || t == element::bf16 || t == element::f32 || t == element::f64 ||
           t == element::i32 || t == element::i64;
}

Outputs infer_random_uniform(const Node& node, const Inputs& in) {
    const auto type = node.get_attribute<element::Type>("output_type");
    if (!is_random_output_type(type))
        throw_error<InvalidArgument>(
            node.describe(), ": output_type must be f16, bf16, f32, f64, i32 or i64, got ", type);
    for (const char* seed : {"global_seed", "op_seed"})
        if (node.get_attribute<int64_t>(seed) < 0)
            throw_error<InvalidArgument>(node.describe(), ": ", seed, " must be non-negative, got ",
                                         node.get_attribute<int64_t>(seed));
    check_type(node, in, 0, "shape", is_integral_number, "an integer type (i32 or i64)");
    check_rank(node, in, 0, "shape", 1, 1);
    const char* names[] = {"", "min", "max"};
    for (size_t i = 1; i < 3; ++i) {
        check_scalar_input(node, in, i, names[i]);
        if (in[i].type.is_static() && in[i].type != type)
            throw_error<InvalidArgument>(node.describe(), ": input ", i, " (", names[i],
                                         ") must have the output_type ", type, ", got ",
                                         in[i].type);
    }
    const auto min = real_values(in, 1), max = real_values(in, 2);
    if (min && max && !min->empty() && !max->empty() && !((*min)[0] < (*max)[0]))
        throw_error<InvalidArgument>(node.describe(), ": min (", (*min)[0],
                                     ") must be less than max (", (*max)[0], ")");
    return {{type, shape_from_values(node, in, 0, "shape")}};
}

}  // namespace

void register_random_ops(OpRegistry& r) {
    r.add(OpDef{"RandomUniform",
                8,
                "",
                3,
                3,
                {required_attr("output_type", AttrType::kElementType),
                 optional_attr("global_seed", AttrType::kInt, int64_t{0}),
                 optional_attr("op_seed", AttrType::kInt, int64_t{0})},
                infer_random_uniform,
                {}});
}

}  // namespace vireo::ops_impl
