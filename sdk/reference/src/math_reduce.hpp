// Declares the reduction engine (internal) shared by the Reduce* kernels, MVN and NormalizeL2:
// accumulate a tensor into one accumulator per output element over a set of axes.
#pragma once

#include <vector>

#include "math_common.hpp"

namespace vireo::reference::math {

/// Calls f(acc[out], x[i]) for every element of `x` (row-major, `shape`), where `out` is the
/// element's index with the axes in `reduced` removed. `acc` holds one pre-initialised
/// accumulator per output element. Axes of size 1 are skipped and neighbouring axes of the same
/// kind merged, so the inner loop runs over the longest contiguous stretch: a reduction over
/// the innermost axes is one contiguous loop per output element, otherwise the inner loop walks
/// x and acc side by side.
template <typename V, typename Acc, typename F>
void reduce_accumulate(const V* __restrict x, const Shape& shape, const std::vector<bool>& reduced,
                       Acc* __restrict acc, F f) {
    const size_t total = shape_size(shape);
    if (total == 0) return;
    std::vector<size_t> dims;
    std::vector<bool> kind;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 1) continue;
        if (!dims.empty() && kind.back() == reduced[i]) {
            dims.back() *= shape[i];
        } else {
            dims.push_back(shape[i]);
            kind.push_back(reduced[i]);
        }
    }
    if (dims.empty()) {
        f(acc[0], x[0]);
        return;
    }
    const size_t rank = dims.size();
    std::vector<size_t> out_stride(rank, 0);
    for (size_t axis = rank, stride = 1; axis-- > 0;) {
        if (!kind[axis]) {
            out_stride[axis] = stride;
            stride *= dims[axis];
        }
    }
    const size_t run = dims[rank - 1];
    const bool inner_reduced = kind[rank - 1];
    std::vector<size_t> index(rank, 0);
    size_t o = 0;
    for (size_t i = 0; i < total; i += run) {
        const V* __restrict xr = x + i;
        if (inner_reduced) {
            Acc a = acc[o];
            for (size_t k = 0; k < run; ++k) f(a, xr[k]);
            acc[o] = a;
        } else {
            Acc* __restrict ar = acc + o;
            for (size_t k = 0; k < run; ++k) f(ar[k], xr[k]);
        }
        for (size_t axis = rank - 1; axis-- > 0;) {
            o += out_stride[axis];
            if (++index[axis] < dims[axis]) break;
            o -= out_stride[axis] * dims[axis];
            index[axis] = 0;
        }
    }
}

/// The shape `shape` takes with the `reduced` axes kept as 1s (keep_dims).
inline Shape reduced_shape(const Shape& shape, const std::vector<bool>& reduced) {
    Shape out = shape;
    for (size_t i = 0; i < out.size(); ++i)
        if (reduced[i]) out[i] = 1;
    return out;
}

/// Number of input elements reduced into each output element.
inline size_t reduced_count(const Shape& shape, const std::vector<bool>& reduced) {
    size_t n = 1;
    for (size_t i = 0; i < shape.size(); ++i)
        if (reduced[i]) n *= shape[i];
    return n;
}

}  // namespace vireo::reference::math
