// Defines TopK-1/3/11 (values and indices outputs), FakeQuantize-1 and the state ops
// ReadValue-3/6 and Assign-3/6 (variables are matched by variable_id).
#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

Outputs infer_topk(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_numeric, "a number type (not boolean)");
    check_type(node, in, 1, "k", is_integral_number, "an integer type");
    check_rank(node, in, 1, "k", 0, 0);
    const auto& index_type = node.get_attribute<element::Type>("index_element_type");
    if (index_type != element::i32 && index_type != element::i64)
        throw_error<InvalidArgument>(node.describe(),
                                     ": index_element_type must be i32 or i64, got ", index_type);
    auto k = scalar_value(node, in, 1, "k");
    if (k && *k < 0)
        throw_error<InvalidArgument>(node.describe(), ": k must be non-negative, got ", *k);
    PartialShape out = in[0].shape;
    if (out.rank_is_static()) {
        if (out.size() == 0)
            throw_error<InvalidArgument>(node.describe(),
                                         ": data must have rank >= 1, got a scalar");
        const size_t axis = normalize_axis(node, node.get_attribute<int64_t>("axis"),
                                           static_cast<int64_t>(out.size()), "axis");
        const Dimension& d = out[axis];
        if (!k) {
            out[axis] = Dimension(0, d.get_max_length());
        } else {
            // k larger than the axis gives the whole axis.
            out[axis] =
                Dimension(std::min(*k, d.get_min_length()), std::min(*k, d.get_max_length()));
        }
    }
    return {{in[0].type, out}, {index_type, out}};
}

Outputs infer_fake_quantize(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, std::vector<size_t>{0, 1, 2, 3, 4});
    check_type(node, in, 0, "X", is_real, "a floating-point type");
    if (node.get_attribute<int64_t>("levels") < 2)
        throw_error<InvalidArgument>(node.describe(), ": levels must be >= 2, got ",
                                     node.get_attribute<int64_t>("levels"));
    const std::string& mode = node.get_attribute<std::string>("auto_broadcast");
    PartialShape out = in[0].shape;
    for (size_t i = 1; i < 5; ++i) out = broadcast_shapes(node, out, in[i].shape, mode);
    return {{type, out}};
}

Outputs infer_read_value_3(const Node& node, const Inputs& in) {
    if (node.get_attribute<std::string>("variable_id").empty())
        throw_error<InvalidArgument>(node.describe(), ": variable_id must not be empty");
    return {{in[0].type, in[0].shape}};
}

// The variable's declared type/shape win; a dynamic declaration takes the initial value's.
Outputs infer_read_value_6(const Node& node, const Inputs& in) {
    if (node.get_attribute<std::string>("variable_id").empty())
        throw_error<InvalidArgument>(node.describe(), ": variable_id must not be empty");
    element::Type type = node.get_attribute<element::Type>("variable_type");
    PartialShape shape = node.get_attribute<PartialShape>("variable_shape");
    if (!in.empty()) {
        if (type.is_static() && in[0].type.is_static() && type != in[0].type)
            throw_error<InvalidArgument>(node.describe(), ": variable_type ", type,
                                         " does not match the initial value's ", in[0].type);
        if (!shape.relaxes(in[0].shape) && !in[0].shape.relaxes(shape))
            throw_error<InvalidArgument>(node.describe(), ": variable_shape ", shape,
                                         " is not compatible with the initial value's ",
                                         in[0].shape);
        if (!type.is_static()) type = in[0].type;
        if (!shape.rank_is_static()) shape = in[0].shape;
    }
    if (!type.is_static()) type = element::dynamic;
    return {{type, shape}};
}

Outputs infer_assign(const Node& node, const Inputs& in) {
    if (node.get_attribute<std::string>("variable_id").empty())
        throw_error<InvalidArgument>(node.describe(), ": variable_id must not be empty");
    return {{in[0].type, in[0].shape}};
}

std::vector<AttrSpec> topk_attrs() {
    return {required_attr("axis", AttrType::kInt),
            required_attr("mode", AttrType::kString, {"max", "min"}),
            required_attr("sort", AttrType::kString, {"value", "index", "none"}),
            optional_attr("index_element_type", AttrType::kElementType, element::i32)};
}

}  // namespace

void register_misc_ops(OpRegistry& r) {
    r.add(OpDef{"TopK", 1, "", 2, 2, topk_attrs(), infer_topk, {}});
    r.add(OpDef{"TopK", 3, "", 2, 2, topk_attrs(), infer_topk, {}});
    auto v11 = topk_attrs();
    v11.push_back(optional_attr("stable", AttrType::kBool, false));
    r.add(OpDef{"TopK", 11, "", 2, 2, std::move(v11), infer_topk, {}});
    r.add(OpDef{"FakeQuantize",
                1,
                "",
                5,
                5,
                {required_attr("levels", AttrType::kInt), auto_broadcast_attr()},
                infer_fake_quantize,
                {}});

    const AttrSpec id = required_attr("variable_id", AttrType::kString);
    r.add(OpDef{"ReadValue", 3, "", 1, 1, {id}, infer_read_value_3, {}});
    r.add(OpDef{"ReadValue",
                6,
                "",
                0,
                1,
                {id, optional_attr("variable_type", AttrType::kElementType, element::dynamic),
                 optional_attr("variable_shape", AttrType::kShape, PartialShape::dynamic())},
                infer_read_value_6,
                {}});
    r.add(OpDef{"Assign", 3, "", 1, 1, {id}, infer_assign, {}});
    r.add(OpDef{"Assign", 6, "", 1, 1, {id}, infer_assign, {}});
}

}  // namespace vireo::ops_impl
