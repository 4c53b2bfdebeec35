// Declares the conversions between ONNX TensorProto / element types and Vireo tensors.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <string>

#include "vireo/element_type.hpp"
#include "vireo/tensor.hpp"

namespace vireo::onnx_import {

class ExternalData;

/// The Vireo type of ONNX TensorProto.DataType `type`. Throws NotImplemented for STRING and the
/// complex types (no Vireo equivalent), InvalidArgument for an unknown code; `what` names the
/// tensor or value in the message.
element::Type to_element_type(int32_t type, const std::string& what);
/// The ONNX code of a Vireo type; InvalidArgument for types ONNX has no code for.
int32_t to_onnx_type(element::Type type);

/// The tensor `proto` holds. Raw data is wrapped without a copy when it is suitably aligned, kept
/// alive by `owner` (the parsed message that holds the bytes); typed repeated fields (float_data,
/// int32_data, ...) are converted into a new tensor; external data comes from `external` (null:
/// refused). Throws InvalidArgument naming `what` when the data size disagrees with the shape, a
/// dimension is negative, the element count overflows, or the data location is bad.
Tensor to_tensor(const onnx::TensorProto& proto, const std::shared_ptr<void>& owner,
                 ExternalData* external, const std::string& what);

}  // namespace vireo::onnx_import
