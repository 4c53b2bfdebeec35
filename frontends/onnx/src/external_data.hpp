// Declares ExternalData: ONNX tensors stored outside the model file, resolved in its folder.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <string>

namespace vireo::onnx_import {

/// Resolves TensorProto external data (`location`, `offset`, `length`) against the model's folder
/// and memory-maps each file once. A location must be a relative path that stays inside the folder
/// after symlinks are resolved (no absolute paths, no `..` escapes) and name a regular file;
/// offset + length must lie inside the file. Not thread-safe: one per model being read.
class ExternalData {
  public:
    /// `model_dir` empty: the model came from memory, and any external tensor is refused.
    explicit ExternalData(std::string model_dir);

    struct Bytes {
        const char* data = nullptr;
        size_t size = 0;
        std::shared_ptr<void> owner;  // keeps the mapping alive
    };
    /// The bytes of `proto` (whose data_location is EXTERNAL). `expected` is the byte size its
    /// type and shape need; a `length` entry must agree with it. Throws InvalidArgument naming
    /// `what` and the location on any problem.
    Bytes read(const onnx::TensorProto& proto, size_t expected, const std::string& what);

  private:
    std::shared_ptr<void> map_file(const std::string& location, const std::string& what,
                                   size_t& size);

    std::string m_model_dir;
    struct Mapping {
        std::shared_ptr<void> owner;
        size_t size = 0;
    };
    std::map<std::string, Mapping> m_files;
};

}  // namespace vireo::onnx_import
