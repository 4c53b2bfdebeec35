// Implements BroadcastIndex: per-axis element strides of each input against the output shape.
#include "vireo/reference/dispatch.hpp"

namespace vireo::reference {

std::vector<size_t> broadcast_strides(const Shape& shape, size_t rank) {
    std::vector<size_t> out(rank, 0);
    size_t stride = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
        const size_t axis = shape.size() - 1 - i;
        if (shape[axis] != 1) out[rank - 1 - i] = stride;
        stride *= shape[axis];
    }
    return out;
}

namespace {

// broadcast_strides of `in` against `out`, which it must broadcast to.
std::vector<size_t> checked_broadcast_strides(const Shape& in, const Shape& out) {
    if (in.size() > out.size())
        throw_error<InvalidArgument>("cannot broadcast shape ", in, " to ", out);
    for (size_t i = 0; i < in.size(); ++i) {
        const size_t d = in[in.size() - 1 - i];
        if (d != 1 && d != out[out.size() - 1 - i])
            throw_error<InvalidArgument>("cannot broadcast shape ", in, " to ", out);
    }
    return broadcast_strides(in, out.size());
}

}  // namespace

BroadcastIndex::BroadcastIndex(const Shape& a, const Shape& b, const Shape& out)
    : m_out(out),
      m_stride_a(checked_broadcast_strides(a, out)),
      m_stride_b(checked_broadcast_strides(b, out)) {
    if (a.size() > out.size() || b.size() > out.size())
        throw_error<InvalidArgument>("cannot broadcast shapes ", a, " and ", b, " to ", out);
}

}  // namespace vireo::reference
