// Declares helpers for ONNX reader tests: a small ModelProto builder and temporary folders.
#pragma once

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "vireo/tensor.hpp"

namespace vireo::test {

/// Builds an ONNX ModelProto by hand, for tests that need a model the corpus does not have.
class OnnxBuilder {
  public:
    explicit OnnxBuilder(int64_t opset = 13);
    OnnxBuilder& input(const std::string& name, int32_t type, const std::vector<int64_t>& dims);
    OnnxBuilder& output(const std::string& name, int32_t type, const std::vector<int64_t>& dims);
    onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name = "");
    /// A float initializer with raw data.
    onnx::TensorProto& initializer(const std::string& name, const std::vector<int64_t>& dims,
                                   const std::vector<float>& values);
    onnx::ModelProto& proto() { return m_model; }
    std::string bytes() const;
    void write(const std::filesystem::path& path) const;

  private:
    onnx::ModelProto m_model;
};

/// Attributes of a hand-built node, one per ONNX attribute type the tests set.
void int_attribute(onnx::NodeProto& node, const std::string& name, int64_t value);
void float_attribute(onnx::NodeProto& node, const std::string& name, float value);
void string_attribute(onnx::NodeProto& node, const std::string& name, const std::string& value);
void ints_attribute(onnx::NodeProto& node, const std::string& name,
                    const std::vector<int64_t>& values);

/// An f32 tensor of `shape` holding `values` (row-major).
inline Tensor f32(const Shape& shape, const std::vector<float>& values) {
    Tensor t(element::f32, shape);
    std::copy(values.begin(), values.end(), t.data<float>());
    return t;
}

/// A fresh folder under the system temp dir, removed with its content on destruction.
class TempDir {
  public:
    TempDir();
    ~TempDir();
    const std::filesystem::path& path() const { return m_path; }

  private:
    std::filesystem::path m_path;
};

}  // namespace vireo::test
