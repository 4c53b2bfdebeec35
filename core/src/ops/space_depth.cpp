// Defines DepthToSpace-1 and SpaceToDepth-1: moving blocks of block_size^k elements between the
// channel axis (1) and the k spatial axes of [N, C, D1, ..., Dk] data.
#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

int64_t block_size_of(const Node& node) {
    const int64_t bs = node.get_attribute<int64_t>("block_size");
    if (bs < 1)
        throw_error<InvalidArgument>(node.describe(), ": block_size must be >= 1, got ", bs);
    return bs;
}

Outputs infer_depth_to_space(const Node& node, const Inputs& in) {
    const int64_t bs = block_size_of(node);
    check_rank(node, in, 0, "data", 3, 64);
    PartialShape out = in[0].shape;
    if (!out.rank_is_static()) return {{in[0].type, out}};
    const size_t spatial = out.size() - 2;
    int64_t divisor = 1;
    for (size_t i = 0; i < spatial; ++i) divisor *= bs;
    if (out[1].is_static()) {
        if (out[1].get_length() % divisor != 0)
            throw_error<InvalidArgument>(node.describe(), ": the channel dimension of data ",
                                         in[0].shape, " must be divisible by block_size^", spatial,
                                         " = ", divisor);
        out[1] = Dimension(out[1].get_length() / divisor);
    } else {
        out[1] = Dimension();
    }
    for (size_t i = 2; i < out.size(); ++i) out[i] = out[i] * Dimension(bs);
    return {{in[0].type, out}};
}

Outputs infer_space_to_depth(const Node& node, const Inputs& in) {
    const int64_t bs = block_size_of(node);
    check_rank(node, in, 0, "data", 3, 64);
    PartialShape out = in[0].shape;
    if (!out.rank_is_static()) return {{in[0].type, out}};
    int64_t factor = 1;
    for (size_t i = 2; i < out.size(); ++i) {
        factor *= bs;
        if (out[i].is_static()) {
            if (out[i].get_length() % bs != 0)
                throw_error<InvalidArgument>(node.describe(), ": spatial dimension ", i,
                                             " of data ", in[0].shape,
                                             " must be divisible by block_size ", bs);
            out[i] = Dimension(out[i].get_length() / bs);
        } else {
            out[i] = Dimension();
        }
    }
    out[1] = out[1] * Dimension(factor);
    return {{in[0].type, out}};
}

}  // namespace

void register_space_depth_ops(OpRegistry& r) {
    for (const char* type : {"DepthToSpace", "SpaceToDepth"})
        r.add(OpDef{type,
                    1,
                    "",
                    1,
                    1,
                    {optional_attr("block_size", AttrType::kInt, int64_t{1}),
                     required_attr("mode", AttrType::kString, {"blocks_first", "depth_first"})},
                    std::string(type) == "DepthToSpace" ? InferFunction(infer_depth_to_space)
                                                        : InferFunction(infer_space_to_depth),
                    {}});
}

}  // namespace vireo::ops_impl
