// Defines the pooling ops: MaxPool-1, MaxPool-8 (values and indices outputs, dilations, axis),
// AvgPool-1 (whose IR attribute is spelled "exclude-pad"), and MaxPool-14 / AvgPool-14 (as v8 / v1,
// with rounding_type "ceil_torch" too).
#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

const std::vector<std::string> kAutoPad{"explicit", "notset", "valid", "same_upper", "same_lower"};

PartialShape pooled_shape(const Node& node, const Inputs& in, bool has_dilations) {
    check_type(node, in, 0, "data", is_numeric, "a number type (not boolean)");
    check_rank(node, in, 0, "data", 3, 5);
    const auto& kernel = node.get_attribute<std::vector<int64_t>>("kernel");
    const size_t spatial = kernel.size();
    if (auto rank = static_rank(in[0]); rank && static_cast<size_t>(*rank) != spatial + 2)
        throw_error<InvalidArgument>(node.describe(), ": attribute 'kernel' ", to_text(kernel),
                                     " has ", spatial, " values but data ", in[0].shape, " has ",
                                     *rank - 2, " spatial axes");
    const auto& strides = node.get_attribute<std::vector<int64_t>>("strides");
    check_attr_length(node, strides, spatial, "strides");
    const std::string& auto_pad = node.get_attribute<std::string>("auto_pad");
    const bool computed = auto_pad != "explicit" && auto_pad != "notset";
    const auto pads_begin =
        computed ? std::vector<int64_t>(spatial, 0) : int_list_or(node, "pads_begin", spatial, 0);
    const auto pads_end =
        computed ? std::vector<int64_t>(spatial, 0) : int_list_or(node, "pads_end", spatial, 0);
    const auto dilations = has_dilations ? int_list_or(node, "dilations", spatial, 1)
                                         : std::vector<int64_t>(spatial, 1);
    const std::string& rounding_type = node.get_attribute<std::string>("rounding_type");
    const WindowRounding rounding = rounding_type == "ceil"         ? WindowRounding::kCeil
                                    : rounding_type == "ceil_torch" ? WindowRounding::kCeilTorch
                                                                    : WindowRounding::kFloor;
    if (!in[0].shape.rank_is_static()) return PartialShape::dynamic();
    PartialShape out{in[0].shape[0], in[0].shape[1]};
    for (size_t i = 0; i < spatial; ++i) {
        WindowAxis w{in[0].shape[2 + i], kernel[i],     strides[i],
                     dilations[i],       pads_begin[i], pads_end[i]};
        out.push_back(window_output_dim(node, w, auto_pad, rounding));
    }
    return out;
}

Outputs infer_max_pool_1(const Node& node, const Inputs& in) {
    return {{in[0].type, pooled_shape(node, in, false)}};
}

Outputs infer_max_pool_8(const Node& node, const Inputs& in) {
    const auto& index_type = node.get_attribute<element::Type>("index_element_type");
    if (index_type != element::i32 && index_type != element::i64)
        throw_error<InvalidArgument>(node.describe(),
                                     ": index_element_type must be i32 or i64, got ", index_type);
    PartialShape out = pooled_shape(node, in, true);
    if (auto rank = static_rank(in[0]))
        normalize_axis(node, node.get_attribute<int64_t>("axis"), *rank, "axis");
    return {{in[0].type, out}, {index_type, out}};
}

Outputs infer_avg_pool(const Node& node, const Inputs& in) {
    return {{in[0].type, pooled_shape(node, in, false)}};
}

std::vector<AttrSpec> pool_attrs(bool ceil_torch = false) {
    std::vector<std::string> roundings{"floor", "ceil"};
    if (ceil_torch) roundings.emplace_back("ceil_torch");
    return {required_attr("strides", AttrType::kIntList),
            required_attr("pads_begin", AttrType::kIntList),
            required_attr("pads_end", AttrType::kIntList),
            required_attr("kernel", AttrType::kIntList),
            optional_attr("rounding_type", AttrType::kString, std::string("floor"), roundings),
            optional_attr("auto_pad", AttrType::kString, std::string("explicit"), kAutoPad)};
}

}  // namespace

void register_pooling_ops(OpRegistry& r) {
    r.add(OpDef{"MaxPool", 1, "", 1, 1, pool_attrs(), infer_max_pool_1, {}});
    for (int version : {8, 14}) {
        auto attrs = pool_attrs(version == 14);
        attrs.push_back(optional_attr("dilations", AttrType::kIntList, std::vector<int64_t>{}));
        attrs.push_back(optional_attr("index_element_type", AttrType::kElementType, element::i64));
        attrs.push_back(optional_attr("axis", AttrType::kInt, int64_t{0}));
        r.add(OpDef{"MaxPool", version, "", 1, 1, std::move(attrs), infer_max_pool_8, {}});
    }
    for (int version : {1, 14}) {
        auto attrs = pool_attrs(version == 14);
        attrs.push_back(required_attr("exclude-pad", AttrType::kBool));
        r.add(OpDef{"AvgPool", version, "", 1, 1, std::move(attrs), infer_avg_pool, {}});
    }
}

}  // namespace vireo::ops_impl
