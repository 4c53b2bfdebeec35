// Defines the normalisations: BatchNormInference-1 and -5 (their input orders differ), MVN-1,
// MVN-6, NormalizeL2-1 and LRN-1.
#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

// data_index: where the data input is (2 in v1: gamma, beta, data, mean, variance; 0 in v5:
// data, gamma, beta, mean, variance).
Outputs infer_batch_norm(const Node& node, const Inputs& in, size_t data_index) {
    const element::Type type =
        merge_types(node, in, std::vector<size_t>{data_index, 0, 1, 2, 3, 4});
    check_type(node, in, data_index, "data", is_real, "a floating-point type");
    if (node.get_attribute<double>("epsilon") < 0)
        throw_error<InvalidArgument>(node.describe(), ": epsilon must be non-negative, got ",
                                     node.get_attribute<double>("epsilon"));
    const PartialShape& data = in[data_index].shape;
    if (data.rank_is_static() && data.size() < 2)
        throw_error<InvalidArgument>(node.describe(), ": input ", data_index,
                                     " (data) must have rank >= 2, got shape ", data);
    Dimension channels = data.rank_is_static() ? data[1] : Dimension();
    for (size_t i = 0; i < 5; ++i) {
        if (i == data_index) continue;
        check_rank(node, in, i, "gamma/beta/mean/variance", 1, 1);
        if (!in[i].shape.rank_is_static()) continue;
        if (!Dimension::merge(channels, channels, in[i].shape[0]))
            throw_error<InvalidArgument>(node.describe(), ": input ", i, " of shape ", in[i].shape,
                                         " does not match the channel dimension of data ", data);
    }
    PartialShape out = data;
    if (out.rank_is_static()) out[1] = channels;
    return {{type, out}};
}

Outputs infer_mvn_1(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_real, "a floating-point type");
    const auto& axes = node.get_attribute<std::vector<int64_t>>("reduction_axes");
    if (auto rank = static_rank(in[0]); rank && !axes.empty())
        normalize_axes(node, axes, *rank, "reduction_axes");
    return {{in[0].type, in[0].shape}};
}

Outputs infer_mvn_6(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_real, "a floating-point type");
    check_type(node, in, 1, "axes", is_integral_number, "an integer type");
    check_rank(node, in, 1, "axes", 1, 1);
    auto rank = static_rank(in[0]);
    if (auto len = static_length(in[1]); len && rank && *len > *rank)
        throw_error<InvalidArgument>(node.describe(), ": axes ", in[1].shape,
                                     " has more entries than data ", in[0].shape, " has axes");
    if (auto axes = values_of(in, 1); axes && rank) normalize_axes(node, *axes, *rank, "axes");
    return {{in[0].type, in[0].shape}};
}

Outputs infer_normalize_l2(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_real, "a floating-point type");
    check_type(node, in, 1, "axes", is_integral_number, "an integer type");
    check_rank(node, in, 1, "axes", 0, 1);
    if (auto axes = values_of(in, 1); axes && static_rank(in[0]))
        normalize_axes(node, *axes, *static_rank(in[0]), "axes");
    return {{in[0].type, in[0].shape}};
}

// LRN-1: data (real), axes (1-D integers, distinct); output like data.
Outputs infer_lrn(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_real, "a floating-point type");
    check_type(node, in, 1, "axes", is_integral_number, "an integer type");
    check_rank(node, in, 1, "axes", 1, 1);
    if (node.get_attribute<int64_t>("size") < 1)
        throw_error<InvalidArgument>(node.describe(), ": size must be >= 1, got ",
                                     node.get_attribute<int64_t>("size"));
    if (auto axes = values_of(in, 1); axes && static_rank(in[0]))
        normalize_axes(node, *axes, *static_rank(in[0]), "axes");
    return {{in[0].type, in[0].shape}};
}

}  // namespace

void register_normalization_ops(OpRegistry& r) {
    r.add(OpDef{"BatchNormInference",
                1,
                "",
                5,
                5,
                {required_attr("epsilon", AttrType::kFloat)},
                [](const Node& n, const Inputs& in) { return infer_batch_norm(n, in, 2); },
                {}});
    r.add(OpDef{"BatchNormInference",
                5,
                "",
                5,
                5,
                {required_attr("epsilon", AttrType::kFloat)},
                [](const Node& n, const Inputs& in) { return infer_batch_norm(n, in, 0); },
                {}});
    r.add(OpDef{"MVN",
                1,
                "",
                1,
                1,
                {optional_attr("across_channels", AttrType::kBool, false),
                 optional_attr("normalize_variance", AttrType::kBool, false),
                 required_attr("eps", AttrType::kFloat),
                 optional_attr("reduction_axes", AttrType::kIntList, std::vector<int64_t>{})},
                infer_mvn_1,
                {}});
    r.add(OpDef{"MVN",
                6,
                "",
                2,
                2,
                {required_attr("normalize_variance", AttrType::kBool),
                 required_attr("eps", AttrType::kFloat),
                 required_attr("eps_mode", AttrType::kString, {"inside_sqrt", "outside_sqrt"})},
                infer_mvn_6,
                {}});
    r.add(OpDef{"NormalizeL2",
                1,
                "",
                2,
                2,
                {required_attr("eps", AttrType::kFloat),
                 required_attr("eps_mode", AttrType::kString, {"add", "max"})},
                infer_normalize_l2,
                {}});
    r.add(OpDef{"LRN",
                1,
                "",
                2,
                2,
                {required_attr("alpha", AttrType::kFloat), required_attr("beta", AttrType::kFloat),
                 required_attr("bias", AttrType::kFloat), required_attr("size", AttrType::kInt)},
                infer_lrn,
                {}});
}

}  // namespace vireo::ops_impl
