// Declares the ONNX reader's free functions. Core::read_model reads every format (it asks the
// runtime's format registry, which picks a frontend by content or file extension); these read ONNX
// without detection.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "vireo/model.hpp"

namespace vireo {

/// Reads an ONNX model file (ModelProto, IR version 3 or later, opsets 1..17 of the default
/// domain). Initializers become Constants (raw data shared with the parsed protobuf, not copied
/// again); external data resolves relative to the model's folder and must stay inside it; it is
/// memory-mapped and bounds-checked. Graph inputs become Parameters in order (those that are also
/// initializers stay Constants, as IR version 3 files list them); graph outputs become Results in
/// order, keeping their ONNX names as tensor names; every ONNX value name is also the tensor name
/// of the output that computes it.
///
/// The ONNX reader is the module `libvireo_onnx_frontend.so` next to libvireo (protobuf and libonnx
/// are mapped only when it is first used), found like every frontend module: the files named by
/// the environment variable VIREO_FRONTENDS (':'-separated; VIREO_ONNX_FRONTEND, its older name,
/// names one), else every libvireo_*_frontend.so beside libvireo. It stays loaded until the
/// process ends.
///
/// Errors: NotFound if the file does not exist; NotImplemented listing every unsupported
/// operation (type, domain, opset version, node name) in one message; InvalidArgument for
/// malformed content (truncated or invalid protobuf, a tensor whose data size disagrees with its
/// shape, external data outside the folder or the file, a dangling value name), naming the
/// culprit; Unavailable if no module declaring the ONNX format is found or one cannot be loaded
/// (the message names the module path, or where modules were looked for, and why it failed).
/// Thread safety: reentrant.
///
///     auto model = vireo::read_onnx_model("resnet50.onnx");
std::shared_ptr<Model> read_onnx_model(const std::string& path, bool enable_mmap = true);
/// The same from bytes in memory (copied as needed; the caller may free them afterwards). External
/// data is refused: a model in memory has no folder.
std::shared_ptr<Model> read_onnx_model(const void* data, size_t size);

/// The ONNX operations the reader translates, as Markdown table rows "| Op | domain | opset
/// versions with a translator |", one per op, sorted (what docs/onnx.md lists). Loads the module
/// like read_onnx_model. (Public: the installed vireo_convert --list-onnx-ops prints it.)
std::string onnx_supported_ops_markdown();

}  // namespace vireo
