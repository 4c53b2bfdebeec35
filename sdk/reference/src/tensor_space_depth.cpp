// Implements DepthToSpace-1 and SpaceToDepth-1 (modes blocks_first and depth_first) for any
// spatial rank, by element size: both move the same elements between a "depth" layout
// [N, C * bs^k, D1, ..., Dk] and a "space" layout [N, C, D1 * bs, ..., Dk * bs].
#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

/// Calls f(depth_offset, space_offset) for every element. In the depth layout the channel of
/// block b (row-major over the k block digits) and space channel c is b * C + c (blocks_first) or
/// c * bs^k + b (depth_first); spatial coordinate y_i = d_i * bs + b_i.
template <typename F>
void for_each_pair(const Shape& depth, size_t bs, bool blocks_first, F f) {
    const size_t k = depth.size() - 2;
    size_t blocks = 1;
    for (size_t i = 0; i < k; ++i) blocks *= bs;
    const size_t n = depth[0], channels = depth[1] / blocks;
    size_t small = 1;
    for (size_t i = 2; i < depth.size(); ++i) small *= depth[i];
    const size_t big = small * blocks;
    std::vector<size_t> bdig(k), d(k);
    for (size_t ni = 0; ni < n; ++ni)
        for (size_t c = 0; c < channels; ++c)
            for (size_t b = 0; b < blocks; ++b) {
                for (size_t i = k, rest = b; i-- > 0; rest /= bs) bdig[i] = rest % bs;
                const size_t dc = blocks_first ? b * channels + c : c * blocks + b;
                const size_t depth_base = (ni * depth[1] + dc) * small;
                const size_t space_base = (ni * channels + c) * big;
                std::fill(d.begin(), d.end(), 0);
                for (size_t s = 0; s < small; ++s) {
                    size_t y = 0;
                    for (size_t i = 0; i < k; ++i)
                        y = y * (depth[2 + i] * bs) + d[i] * bs + bdig[i];
                    f(depth_base + s, space_base + y);
                    for (size_t i = k; i-- > 0;) {
                        if (++d[i] < depth[2 + i]) break;
                        d[i] = 0;
                    }
                }
            }
}

template <bool ToSpace>
std::unique_ptr<Kernel> make_space_depth(const Node& node) {
    const int64_t bs = node.get_attribute<int64_t>("block_size");
    const std::string& mode = node.get_attribute<std::string>("mode");
    if (bs < 1 || (mode != "blocks_first" && mode != "depth_first"))
        throw_error<InvalidArgument>(node.describe(), ": block_size ", bs, " and mode '", mode,
                                     "' must be >= 1 and blocks_first or depth_first");
    const bool blocks_first = mode == "blocks_first";
    return make_kernel([who = node.describe(), bs = static_cast<size_t>(bs), blocks_first](
                           const std::vector<Tensor>& in, std::vector<Tensor>& out) {
        check_arity(in, 1, out, 1, who);
        const Shape& shape = in[0].get_shape();
        if (shape.size() < 3)
            throw_error<InvalidArgument>(who, ": data must have rank >= 3, got ", shape);
        // The depth layout's shape.
        Shape depth = ToSpace ? shape : out[0].get_shape();
        const Shape& space = ToSpace ? out[0].get_shape() : shape;
        bool ok = depth.size() == space.size() && depth[0] == space[0];
        size_t blocks = 1;
        for (size_t i = 2; ok && i < depth.size(); ++i) {
            ok = depth[i] * bs == space[i];
            blocks *= bs;
        }
        ok = ok && depth[1] == space[1] * blocks;
        if (!ok)
            throw_error<InvalidArgument>(who, ": data ", shape, " and output ", out[0].get_shape(),
                                         " do not match block_size ", bs);
        dispatch_by_size(in[0].get_element_type(), who, [&](auto tag) {
            using U = decltype(tag);
            const U* src = tensor_data<U>(in[0]);
            U* dst = tensor_data<U>(out[0]);
            for_each_pair(depth, bs, blocks_first, [&](size_t d, size_t s) {
                if constexpr (ToSpace)
                    dst[s] = src[d];
                else
                    dst[d] = src[s];
            });
        });
    });
}

}  // namespace

void register_space_depth_kernels(KernelRegistry& registry) {
    registry.add("DepthToSpace", make_space_depth<true>);
    registry.add("SpaceToDepth", make_space_depth<false>);
}

}  // namespace vireo::reference::tensor
