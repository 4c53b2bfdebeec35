// Defines the reductions over the axes given by the second input: ReduceMean/Sum/Max/Min/Prod-1,
// ReduceLogicalAnd/Or-1 and ReduceL1/L2-4, all with keep_dims.
#include <set>

#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

PartialShape reduced_shape(const Node& node, const Inputs& in) {
    check_type(node, in, 1, "axes", is_integral_number, "an integer type");
    check_rank(node, in, 1, "axes", 0, 1);
    const bool keep_dims = node.get_attribute<bool>("keep_dims");
    const PartialShape& data = in[0].shape;
    if (!data.rank_is_static()) return PartialShape::dynamic();
    const int64_t rank = static_cast<int64_t>(data.size());
    auto axes = values_of(in, 1);
    if (!axes) {
        if (keep_dims) return PartialShape::dynamic(data.size());
        // Without values the number of reduced axes is known only from a static axes shape (and
        // only if the axes do not repeat, which the spec requires).
        if (auto count = static_length(in[1]); count && *count <= rank)
            return PartialShape::dynamic(static_cast<size_t>(rank - *count));
        return PartialShape::dynamic();
    }
    const auto normalized = normalize_axes(node, *axes, rank, "axes", true);
    const std::set<size_t> reduced(normalized.begin(), normalized.end());
    PartialShape out;
    for (size_t i = 0; i < data.size(); ++i) {
        if (!reduced.count(i)) {
            out.push_back(data[i]);
        } else if (keep_dims) {
            out.push_back(1);
        }
    }
    return out;
}

Outputs infer_arithmetic_reduction(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_numeric, "a number type (not boolean)");
    return {{in[0].type, reduced_shape(node, in)}};
}

Outputs infer_logical_reduction(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_boolean, "boolean");
    return {{in[0].type, reduced_shape(node, in)}};
}

}  // namespace

void register_reduction_ops(OpRegistry& r) {
    const std::vector<AttrSpec> attrs{optional_attr("keep_dims", AttrType::kBool, false)};
    for (const char* type : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"})
        r.add(OpDef{type, 1, "", 2, 2, attrs, infer_arithmetic_reduction, {}});
    for (const char* type : {"ReduceLogicalAnd", "ReduceLogicalOr"})
        r.add(OpDef{type, 1, "", 2, 2, attrs, infer_logical_reduction, {}});
    for (const char* type : {"ReduceL1", "ReduceL2"})
        r.add(OpDef{type, 4, "", 2, 2, attrs, infer_arithmetic_reduction, {}});
}

}  // namespace vireo::ops_impl
