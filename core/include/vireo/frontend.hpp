// Declares model reading by format: OpenVINO IR (built in) and ONNX (a module loaded on first use).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "vireo/model.hpp"

namespace vireo {

enum class ModelFormat { kIr, kOnnx };

/// "IR" or "ONNX".
const char* to_string(ModelFormat format);

/// The format of the model in `path`, from its content (leading `<` after white space: IR XML; a
/// protobuf ModelProto field tag: ONNX); a `.onnx` or `.xml` extension decides when the content
/// is ambiguous (an empty file, say). Reads at most the first few bytes, without blocking on a
/// FIFO or device. Throws NotFound if `path` does not exist, InvalidArgument if it is not a
/// regular file, cannot be read, or is neither format (the message names the path).
ModelFormat detect_model_format(const std::string& path);
/// The same for a model in memory; `size` may be 0 (InvalidArgument).
ModelFormat detect_model_format(const void* data, size_t size);

/// Reads an ONNX model file (ModelProto, IR version 3 or later, opsets 1..17 of the default
/// domain). Initializers become Constants (raw data shared with the parsed protobuf, not copied
/// again); external data resolves relative to the model's folder and must stay inside it; it is
/// memory-mapped and bounds-checked. Graph inputs become Parameters in order (those that are also
/// initializers stay Constants, as IR version 3 files list them); graph outputs become Results in
/// order, keeping their ONNX names as tensor names; every ONNX value name is also the tensor name
/// of the output that computes it.
///
/// The ONNX reader is the module `libvireo_onnx_frontend.so` next to libvireo (protobuf and libonnx
/// are mapped only when it is first used; the environment variable VIREO_ONNX_FRONTEND names
/// another file). It stays loaded until the process ends.
///
/// Errors: NotFound if the file does not exist; NotImplemented listing every unsupported
/// operation (type, domain, opset version, node name) in one message; InvalidArgument for
/// malformed content (truncated or invalid protobuf, a tensor whose data size disagrees with its
/// shape, external data outside the folder or the file, a dangling value name), naming the
/// culprit; Unavailable if the ONNX module is missing or cannot be loaded (the message says where
/// it was looked for and why it failed). Thread safety: reentrant.
///
///     auto model = vireo::read_onnx_model("resnet50.onnx");
std::shared_ptr<Model> read_onnx_model(const std::string& path, bool enable_mmap = true);
/// The same from bytes in memory (copied as needed; the caller may free them afterwards). External
/// data is refused: a model in memory has no folder.
std::shared_ptr<Model> read_onnx_model(const void* data, size_t size);

/// The ONNX operations the reader translates, as Markdown table rows "| Op | domain | opset
/// versions with a translator |", one per op, sorted (what docs/onnx.md lists). Loads the module
/// like read_onnx_model.
std::string onnx_supported_ops_markdown();

}  // namespace vireo
