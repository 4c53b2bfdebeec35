// Implements BroadcastIndex: per-axis element strides of each input against the output shape.
#include "vireo/reference/dispatch.hpp"

namespace vireo::reference {
namespace {

std::vector<size_t> broadcast_strides(const Shape& in, const Shape& out) {
    const size_t rank = out.size();
    std::vector<size_t> strides(rank, 0);
    size_t stride = 1;
    for (size_t i = 0; i < in.size(); ++i) {
        const size_t in_axis = in.size() - 1 - i;
        const size_t out_axis = rank - 1 - i;
        if (in[in_axis] != 1) {
            if (in[in_axis] != out[out_axis])
                throw_error<InvalidArgument>("cannot broadcast shape ", in, " to ", out);
            strides[out_axis] = stride;
        }
        stride *= in[in_axis];
    }
    return strides;
}

}  // namespace

BroadcastIndex::BroadcastIndex(const Shape& a, const Shape& b, const Shape& out)
    : m_out(out), m_stride_a(broadcast_strides(a, out)), m_stride_b(broadcast_strides(b, out)) {
    if (a.size() > out.size() || b.size() > out.size())
        throw_error<InvalidArgument>("cannot broadcast shapes ", a, " and ", b, " to ", out);
}

}  // namespace vireo::reference
