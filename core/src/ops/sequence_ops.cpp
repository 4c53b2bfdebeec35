// Defines the ops that walk one axis as a sequence: CumSum-3 (running sums, exclusive and/or
// reversed) and ReverseSequence-1 (reverses the first seq_lengths[b] elements of each batch entry).
#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

// CumSum-3: arg (numeric, rank >= 1) [, axis scalar integer, default 0]; output like arg.
Outputs infer_cumsum(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "arg", is_numeric, "a number type (not boolean)");
    check_rank(node, in, 0, "arg", 1, 64);
    if (in.size() > 1) {
        check_type(node, in, 1, "axis", is_integral_number, "an integer type");
        check_rank(node, in, 1, "axis", 0, 1);
        if (auto rank = static_rank(in[0]))
            if (auto axis = scalar_value(node, in, 1, "axis"))
                normalize_axis(node, *axis, *rank, "axis");
    }
    return {{in[0].type, in[0].shape}};
}

// ReverseSequence-1: data (rank >= 2), seq_lengths 1-D of length data.shape[batch_axis].
Outputs infer_reverse_sequence(const Node& node, const Inputs& in) {
    check_type(node, in, 1, "seq_lengths", is_numeric, "a number type");
    check_rank(node, in, 0, "data", 2, 64);
    check_rank(node, in, 1, "seq_lengths", 1, 1);
    PartialShape out = in[0].shape;
    if (auto rank = static_rank(in[0])) {
        const size_t batch =
            normalize_axis(node, node.get_attribute<int64_t>("batch_axis"), *rank, "batch_axis");
        const size_t seq =
            normalize_axis(node, node.get_attribute<int64_t>("seq_axis"), *rank, "seq_axis");
        if (batch == seq)
            throw_error<InvalidArgument>(
                node.describe(), ": batch_axis and seq_axis must differ, both are axis ", batch);
        if (in[1].shape.rank_is_static() &&
            !Dimension::merge(out[batch], out[batch], in[1].shape[0]))
            throw_error<InvalidArgument>(node.describe(), ": seq_lengths ", in[1].shape,
                                         " must have the length of data's batch axis ", batch,
                                         " in ", in[0].shape);
    }
    return {{in[0].type, out}};
}

}  // namespace

void register_sequence_ops(OpRegistry& r) {
    r.add(OpDef{"CumSum",
                3,
                "",
                1,
                2,
                {optional_attr("exclusive", AttrType::kBool, false),
                 optional_attr("reverse", AttrType::kBool, false)},
                infer_cumsum,
                {}});
    r.add(OpDef{"ReverseSequence",
                1,
                "",
                2,
                2,
                {optional_attr("batch_axis", AttrType::kInt, int64_t{0}),
                 optional_attr("seq_axis", AttrType::kInt, int64_t{1})},
                infer_reverse_sequence,
                {}});
}

}  // namespace vireo::ops_impl
