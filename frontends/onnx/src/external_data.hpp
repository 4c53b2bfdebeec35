// Declares ExternalData: ONNX tensors stored outside the model file, resolved in its folder.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace vireo::onnx_import {

/// Resolves TensorProto external data (`location`, `offset`, `length`) against the model's folder
/// and memory-maps each file once. A location must be a relative path that stays inside the folder
/// after symlinks are resolved (no absolute paths, no `..` escapes) and name a regular file;
/// offset + length must lie inside the file. With `enable_mmap` false (Core's ENABLE_MMAP) each
/// file is read into memory instead: the model then no longer depends on the file, which may be
/// truncated or rewritten afterwards. Not thread-safe: one per model being read.
class ExternalData {
  public:
    /// `model_dir` empty: the model came from memory, and any external tensor is refused.
    explicit ExternalData(std::string model_dir, bool enable_mmap = true);

    struct Bytes {
        const char* data = nullptr;
        size_t size = 0;
        std::shared_ptr<void> owner;  // keeps the mapping alive
    };
    /// The bytes of `proto` (whose data_location is EXTERNAL). `expected` is the byte size its
    /// type and shape need; a `length` entry must agree with it. Throws InvalidArgument naming
    /// `what` and the location on any problem.
    Bytes read(const onnx::TensorProto& proto, size_t expected, const std::string& what);

    /// The absolute paths of the files read so far, in first-use order.
    const std::vector<std::string>& files() const { return m_file_list; }

  private:
    std::shared_ptr<void> map_file(const std::string& location, const std::string& what,
                                   size_t& size);

    std::string m_model_dir;
    bool m_enable_mmap = true;
    std::vector<std::string> m_file_list;
    struct Mapping {
        std::shared_ptr<void> owner;
        size_t size = 0;
    };
    std::map<std::string, Mapping> m_files;
};

}  // namespace vireo::onnx_import
