// Declares the CPU plugin's strided views: the strides a reshape of strided memory has when it
// needs no copy, and a tensor that views part of another's memory with its own shape and strides.
// A KV cache appended in place is a view of a buffer with spare room along its sequence axis;
// the Unsqueeze and Reshape between it and the attention stay views of it through these.
#pragma once

#include <optional>

#include "vireo/tensor.hpp"

namespace vireo::cpu_plugin {

/// Whether `t` is host memory that is not row-major without gaps (a view of a cache appended in
/// place, or of part of one).
inline bool is_strided(const Tensor& t) {
    return t && !t.is_remote() && !t.is_continuous();
}

/// `t` itself, or a contiguous copy of it when it is strided, for a kernel that indexes its
/// inputs row-major.
inline Tensor contiguous(const Tensor& t) {
    return is_strided(t) ? t.clone() : t;
}

/// Byte strides under which memory laid out as `from` with byte strides `strides` reads as
/// `to` (same element count) in row-major order, when such strides exist: the reshape splits or
/// merges only dimensions that are contiguous with each other, and adds or drops dimensions of 1.
/// Nothing when it would need a copy, when the sizes differ, or for an empty tensor.
std::optional<Strides> reshaped_strides(const Shape& from, const Strides& strides, const Shape& to,
                                        size_t element_size);

/// A host tensor of `shape` and byte `strides` over `source`'s memory from its first element,
/// keeping `source` alive. Throws InvalidArgument if `source` is not a host tensor, or the view
/// would reach past the source's last element. set_shape on the view throws.
Tensor strided_view(const Tensor& source, const Shape& shape, const Strides& strides);

}  // namespace vireo::cpu_plugin
