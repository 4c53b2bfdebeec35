// Declares NodeContext, what a translator sees of one ONNX node: its converted inputs, typed
// attribute getters with defaults, the opset version in force and helpers for errors.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <vector>

#include "vireo/exception.hpp"
#include "vireo/node.hpp"

namespace vireo::onnx_import {

class GraphImporter;

class NodeContext {
  public:
    NodeContext(const onnx::NodeProto& node, OutputVector inputs, int64_t opset,
                GraphImporter& graph);

    const onnx::NodeProto& proto() const { return m_node; }
    const std::string& op_type() const { return m_node.op_type(); }
    /// The opset version of the node's domain that the model imports.
    int64_t opset() const { return m_opset; }
    /// "Conv 'name'" (the node name, or its first output when unnamed), for messages.
    std::string describe() const;
    /// The friendly name for the node's main output.
    std::string name() const;

    /// Declared inputs, optional empty ones ("") included.
    size_t input_size() const { return m_inputs.size(); }
    /// True when input `i` is declared and not empty.
    bool has_input(size_t i) const { return i < m_inputs.size() && static_cast<bool>(m_inputs[i]); }
    /// Input `i`; InvalidArgument naming the node if it is absent.
    const Output& input(size_t i) const;
    const OutputVector& inputs() const { return m_inputs; }
    /// Declared outputs (including empty optional ones).
    size_t output_size() const { return static_cast<size_t>(m_node.output_size()); }
    bool has_output(size_t i) const {
        return i < output_size() && !m_node.output(static_cast<int>(i)).empty();
    }

    bool has_attribute(const std::string& name) const { return find(name) != nullptr; }
    int64_t attr_int(const std::string& name, int64_t fallback) const;
    int64_t attr_int(const std::string& name) const;
    double attr_float(const std::string& name, double fallback) const;
    std::string attr_string(const std::string& name, const std::string& fallback) const;
    std::vector<int64_t> attr_ints(const std::string& name,
                                   const std::vector<int64_t>& fallback = {}) const;
    std::vector<double> attr_floats(const std::string& name,
                                    const std::vector<double>& fallback = {}) const;
    /// A tensor attribute (Constant's value, ConstantOfShape's value).
    Tensor attr_tensor(const std::string& name) const;
    const onnx::GraphProto* attr_graph(const std::string& name) const;

    /// The value of input `i` when it is a Constant (or folds to one); nullopt otherwise.
    std::optional<std::vector<int64_t>> const_ints(size_t i) const;
    std::optional<std::vector<double>> const_floats(size_t i) const;

    GraphImporter& graph() const { return m_graph; }

    template <typename... Args>
    [[noreturn]] void fail(Args&&... args) const {
        throw_error<InvalidArgument>(describe(), ": ", std::forward<Args>(args)...);
    }
    template <typename... Args>
    [[noreturn]] void unsupported(Args&&... args) const {
        throw_error<NotImplemented>(describe(), ": ", std::forward<Args>(args)...);
    }

  private:
    const onnx::AttributeProto* find(const std::string& name) const;
    const onnx::AttributeProto& expect(const std::string& name,
                                       onnx::AttributeProto::AttributeType type) const;

    const onnx::NodeProto& m_node;
    OutputVector m_inputs;
    int64_t m_opset;
    GraphImporter& m_graph;
};

/// The values of `value` when its producer is a Constant, converted to int64 / double.
std::optional<std::vector<int64_t>> constant_ints(const Output& value);
std::optional<std::vector<double>> constant_floats(const Output& value);

}  // namespace vireo::onnx_import
