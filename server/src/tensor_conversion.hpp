// Declares the checks and copies between protocol tensors (a datatype name, a shape, raw bytes or
// typed values) and Vireo tensors, shared by the gRPC and REST front ends.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "infer_job.hpp"
#include "status.hpp"
#include "vireo/tensor.hpp"

namespace vireo::server {

/// Checks a request input against the model input `info` — the datatype must be the model's,
/// the rank and every static dimension must match, no dimension may be negative, the byte size
/// must fit `max_bytes` — and allocates a host tensor for it. Errors are kInvalidArgument and name
/// the input.
Status prepare_input(const TensorInfo& info, const std::string& datatype,
                     const std::vector<int64_t>& shape, size_t max_bytes, Tensor& out);

/// Copies `size` raw little-endian bytes into `tensor`; kInvalidArgument naming `field` when the
/// size is not the tensor's byte size.
Status fill_raw(const std::string& field, Tensor& tensor, const void* data, size_t size);

/// One element value as a protocol carries it before conversion to the tensor's type.
using ScalarValue = std::variant<bool, int64_t, uint64_t, double>;

/// Writes element `index` of `tensor` from `value`, converting it to the element type. Fails
/// (kInvalidArgument naming `field`) when the value does not fit the type: an integer out of range,
/// a fraction for an integer type, a number for BOOL or a bool for a number.
Status write_element(const std::string& field, Tensor& tensor, size_t index,
                     const ScalarValue& value);

/// Reads element `index` of an output's bytes as a JSON-friendly value (FP16/BF16 widened to
/// double, BOOL as bool).
ScalarValue read_element(const OutputData& output, size_t index);

/// Number of elements of an output.
size_t output_element_count(const OutputData& output);

}  // namespace vireo::server
