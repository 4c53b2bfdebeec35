// Defines the activation ops (Relu, Sigmoid, Tanh, Clamp, Elu, Selu, Gelu, HSwish, HSigmoid, Swish,
// Mish, SoftPlus, SoftSign, PRelu) and the softmax family (Softmax-1, Softmax-8, LogSoftmax-5).
#include <cmath>

#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

Outputs same_as_input(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_numeric, "a number type (not boolean)");
    return {{in[0].type, in[0].shape}};
}

Outputs infer_real_activation(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_real, "a floating-point type");
    return {{in[0].type, in[0].shape}};
}

Outputs infer_clamp(const Node& node, const Inputs& in) {
    const double lo = node.get_attribute<double>("min");
    const double hi = node.get_attribute<double>("max");
    if (std::isnan(lo) || std::isnan(hi))
        throw_error<InvalidArgument>(node.describe(), ": attributes 'min' (", lo, ") and 'max' (",
                                     hi, ") must be numbers, not NaN");
    if (lo > hi)
        throw_error<InvalidArgument>(node.describe(), ": attribute 'min' (", lo,
                                     ") must not exceed 'max' (", hi, ")");
    return same_as_input(node, in);
}

Outputs infer_swish(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_real, "a floating-point type");
    if (in.size() > 1) {
        const element::Type type = merge_types(node, in, 0, 1);
        (void)type;
        if (in[1].shape.rank_is_static() && in[1].shape.size() > 0 &&
            !(in[1].shape.size() == 1 && in[1].shape[0].compatible(1)))
            throw_error<InvalidArgument>(
                node.describe(), ": input 1 (beta) must be a scalar, got shape ", in[1].shape);
    }
    return {{in[0].type, in[0].shape}};
}

// Selu-1: data, alpha, lambda of one real type; alpha and lambda hold one element each.
Outputs infer_selu(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, {0, 1, 2});
    check_type(node, in, 0, "data", is_real, "a floating-point type");
    const char* names[] = {"data", "alpha", "lambda"};
    for (size_t i = 1; i < 3; ++i) {
        const PartialShape& s = in[i].shape;
        if (!s.rank_is_static()) continue;
        bool one = true;
        for (const auto& d : s)
            if (!d.compatible(1)) one = false;
        if (!one)
            throw_error<InvalidArgument>(node.describe(), ": input ", i, " (", names[i],
                                         ") must hold one element, got shape ", s);
    }
    return {{type, in[0].shape}};
}

Outputs infer_prelu(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, 0, 1);
    check_type(node, in, 0, "data", is_numeric, "a number type (not boolean)");
    const PartialShape& data = in[0].shape;
    const PartialShape& slope = in[1].shape;
    // A 1-D slope is per channel (axis 1 of data, or axis 0 for 1-D data); otherwise it must
    // numpy-broadcast into data.
    if (slope.rank_is_static() && slope.size() == 1 && data.rank_is_static() && data.size() >= 1) {
        const Dimension& channels = data.size() >= 2 ? data[1] : data[0];
        const Dimension& length = slope[0];
        bool ok = length.compatible(channels) || length.compatible(1);
        if (!ok && data.size() >= 1) ok = length.compatible(data[data.size() - 1]);
        if (!ok)
            throw_error<InvalidArgument>(
                node.describe(), ": slope of shape ", slope,
                " matches neither the channel dimension nor the last dimension of data ", data);
    } else {
        const PartialShape b = broadcast_shapes(node, data, slope, "numpy");
        if (b.rank_is_static() && data.rank_is_static() && b.size() != data.size())
            throw_error<InvalidArgument>(node.describe(), ": slope of shape ", slope,
                                         " has higher rank than data ", data);
    }
    return {{type, data}};
}

// Softmax-1 takes a non-negative axis; Softmax-8 and LogSoftmax-5 also accept negative ones.
Outputs infer_softmax(const Node& node, const Inputs& in, bool allow_negative) {
    check_type(node, in, 0, "data", is_real, "a floating-point type");
    const int64_t axis = node.get_attribute<int64_t>("axis");
    if (auto rank = static_rank(in[0])) {
        if (!allow_negative && axis < 0)
            throw_error<InvalidArgument>(node.describe(), ": axis ", axis, " must be in [0, ",
                                         *rank - 1, "] (negative axes need Softmax-8)");
        normalize_axis(node, axis, *rank, "axis");
    }
    return {{in[0].type, in[0].shape}};
}

}  // namespace

void register_activation_ops(OpRegistry& r) {
    r.add(OpDef{"Relu", 1, "", 1, 1, {}, same_as_input, {"ReLU"}});
    for (const char* type : {"Sigmoid", "Tanh"})
        r.add(OpDef{type, 1, "", 1, 1, {}, same_as_input, {}});
    r.add(OpDef{"Clamp",
                1,
                "",
                1,
                1,
                {required_attr("min", AttrType::kFloat), required_attr("max", AttrType::kFloat)},
                infer_clamp,
                {}});
    r.add(OpDef{
        "Elu", 1, "", 1, 1, {required_attr("alpha", AttrType::kFloat)}, infer_real_activation, {}});
    r.add(OpDef{"Gelu", 2, "", 1, 1, {}, infer_real_activation, {}});
    r.add(OpDef{"Gelu",
                7,
                "",
                1,
                1,
                {optional_attr("approximation_mode", AttrType::kString, std::string("erf"),
                               {"erf", "tanh"})},
                infer_real_activation,
                {}});
    for (const char* type : {"HSwish", "Mish", "SoftPlus"})
        r.add(OpDef{type, 4, "", 1, 1, {}, infer_real_activation, {}});
    r.add(OpDef{"SoftSign", 9, "", 1, 1, {}, infer_real_activation, {}});
    r.add(OpDef{"Selu", 1, "", 3, 3, {}, infer_selu, {}});
    r.add(OpDef{"HSigmoid", 5, "", 1, 1, {}, infer_real_activation, {}});
    r.add(OpDef{"Swish", 4, "", 1, 2, {}, infer_swish, {}});
    r.add(OpDef{"PRelu", 1, "", 2, 2, {}, infer_prelu, {"PReLU"}});

    auto softmax1 = [](const Node& n, const Inputs& in) { return infer_softmax(n, in, false); };
    auto softmax8 = [](const Node& n, const Inputs& in) { return infer_softmax(n, in, true); };
    r.add(OpDef{"Softmax",
                1,
                "",
                1,
                1,
                {optional_attr("axis", AttrType::kInt, int64_t{1})},
                softmax1,
                {"SoftMax"}});
    r.add(OpDef{
        "Softmax", 8, "", 1, 1, {optional_attr("axis", AttrType::kInt, int64_t{1})}, softmax8, {}});
    r.add(OpDef{"LogSoftmax",
                5,
                "",
                1,
                1,
                {optional_attr("axis", AttrType::kInt, int64_t{1})},
                softmax8,
                {}});
}

}  // namespace vireo::ops_impl
