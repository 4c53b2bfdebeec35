// Declares Node, the graph vertex every op is, and the Output/Input port handles.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/element_type.hpp"
#include "vireo/partial_shape.hpp"
#include "vireo/tensor.hpp"

namespace vireo {

class Node;
class Model;
struct OpDef;
using NodePtr = std::shared_ptr<Node>;
using RTMap = AnyMap;

/// One attribute value. IR text converts to and from these according to the op's AttrSpec.
using AttrValue =
    std::variant<bool, int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                 std::vector<std::string>, element::Type, PartialShape>;

/// What a tensor flowing out of an output port is: type, shape and its tensor names. A Result's
/// output shares the descriptor of the output it consumes, so names set on either show on both.
struct TensorDesc {
    element::Type type = element::dynamic;
    PartialShape shape = PartialShape::dynamic();
    std::set<std::string> names;
    RTMap rt_info;
};

/// A handle to output `index` of a node. Keeps the node alive. Ordered and hashable so it can
/// key maps; two handles are equal when they name the same node and index.
class Output {
  public:
    Output() = default;
    Output(NodePtr node, size_t index = 0);  // NOLINT: a single-output node converts implicitly

    Node* get_node() const { return m_node.get(); }
    const NodePtr& get_node_shared_ptr() const { return m_node; }
    size_t get_index() const { return m_index; }
    explicit operator bool() const { return m_node != nullptr; }

    const element::Type& get_element_type() const;
    const PartialShape& get_partial_shape() const;
    /// Static shape; throws InvalidArgument naming the node if the shape is dynamic.
    Shape get_shape() const;
    const std::set<std::string>& get_names() const;
    /// One of the names (the first in sorted order); throws NotFound if there are none.
    std::string get_any_name() const;
    void set_names(const std::set<std::string>& names) const;
    void add_names(const std::set<std::string>& names) const;
    RTMap& get_rt_info() const;
    const std::shared_ptr<TensorDesc>& get_tensor_desc() const;

    bool operator==(const Output& o) const { return m_node == o.m_node && m_index == o.m_index; }
    bool operator!=(const Output& o) const { return !(*this == o); }
    bool operator<(const Output& o) const {
        return m_node != o.m_node ? m_node < o.m_node : m_index < o.m_index;
    }

  private:
    NodePtr m_node;
    size_t m_index = 0;
};

using OutputVector = std::vector<Output>;
using NodeVector = std::vector<NodePtr>;

/// A handle to input `index` of a node. Does not keep the node alive.
class Input {
  public:
    Input(Node* node, size_t index) : m_node(node), m_index(index) {}
    Node* get_node() const { return m_node; }
    size_t get_index() const { return m_index; }
    const Output& get_source_output() const;
    void replace_source_output(const Output& source) const;
    const element::Type& get_element_type() const { return get_source_output().get_element_type(); }
    const PartialShape& get_partial_shape() const {
        return get_source_output().get_partial_shape();
    }
    Shape get_shape() const { return get_source_output().get_shape(); }

  private:
    Node* m_node;
    size_t m_index;
};

/// A vertex of the graph: one op instance. What the op *is* (its inputs, attributes, type and
/// shape inference) comes from its OpDef in the OpRegistry; a Node holds one instance's
/// inputs, attribute values, output descriptors, names and rt_info.
///
/// Nodes are made by make_node() or the builders in vireo/ops.hpp, never constructed directly:
///     NodePtr add = make_node("Add", {a, b});                       // latest opset
///     NodePtr conv = make_node("Convolution", {x, w},
///                              {{"strides", std::vector<int64_t>{1, 1}}, ...});
///
/// Thread safety: a graph may be read from many threads; changing it is single-threaded.
class Node : public std::enable_shared_from_this<Node> {
  public:
    Node(const OpDef& def, const OutputVector& inputs, std::map<std::string, AttrValue> attributes);
    /// Releases the inputs iteratively, so dropping the last handle to a very long chain of
    /// nodes does not recurse once per node.
    virtual ~Node();
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;

    const OpDef& get_op_def() const { return *m_def; }
    /// Canonical op type ("Add", "Constant", "Relu").
    const std::string& get_type_name() const;
    /// The opset version of this op's definition (1 for opset1 ops, 8 for Gather-8, ...).
    int get_version() const;
    /// The name users and the IR give this node; defaults to "<Type>_<instance id>".
    const std::string& get_friendly_name() const;
    void set_friendly_name(const std::string& name) { m_friendly_name = name; }
    /// Process-unique id of this instance (creation order).
    uint64_t get_instance_id() const { return m_instance_id; }

    size_t get_input_size() const { return m_inputs.size(); }
    Input input(size_t i);
    const Output& input_value(size_t i) const;
    const OutputVector& input_values() const { return m_inputs; }
    void set_argument(size_t i, const Output& source);

    size_t get_output_size() const { return m_outputs.size(); }
    Output output(size_t i);
    OutputVector outputs();
    const TensorDesc& get_output_desc(size_t i) const;
    const element::Type& get_output_element_type(size_t i) const { return get_output_desc(i).type; }
    const PartialShape& get_output_partial_shape(size_t i) const {
        return get_output_desc(i).shape;
    }
    Shape get_output_shape(size_t i) const;

    /// Attribute values, with defaults filled in from the OpDef.
    const std::map<std::string, AttrValue>& get_attributes() const { return m_attributes; }
    bool has_attribute(const std::string& name) const { return m_attributes.count(name) != 0; }
    /// Typed attribute read; throws InvalidArgument naming the node and attribute when absent or
    /// of another type.
    template <typename T>
    const T& get_attribute(const std::string& name) const;
    /// Sets an attribute after checking it against the OpDef (name known, type right).
    void set_attribute(const std::string& name, AttrValue value);

    RTMap& get_rt_info() { return m_rt_info; }
    const RTMap& get_rt_info() const { return m_rt_info; }

    /// Body models of a sub-graph op (If: then, else; Loop: the body), empty for other ops. The
    /// node owns them: clone_with_new_inputs() and Model::clone() deep-copy them. How the op's
    /// inputs and outputs map onto a body's Parameters and Results is described by ordinary
    /// attributes of the op (docs/ops.md, "Sub-graph ops"). Set them before inferring types.
    const std::vector<std::shared_ptr<Model>>& get_bodies() const { return m_bodies; }
    void set_bodies(std::vector<std::shared_ptr<Model>> bodies) { m_bodies = std::move(bodies); }

    /// Runs the op's type and shape inference on the current inputs and stores the results in
    /// the output descriptors. Throws InvalidArgument naming the node on inconsistent inputs.
    void validate_and_infer_types();

    /// Same op, attributes, friendly name (a default name included) and rt_info over `inputs`,
    /// with types inferred.
    /// Output tensor names are copied. Constants share their data.
    NodePtr clone_with_new_inputs(const OutputVector& inputs) const;

    /// Constant only: the value. Throws InvalidArgument on other ops.
    const Tensor& get_constant_value() const;
    /// Constant only: sets the value and output type/shape.
    void set_constant_value(Tensor value);

    /// "Add 'name'", for error messages.
    std::string describe() const;

  protected:
    friend class Output;
    friend class Input;
    std::shared_ptr<TensorDesc>& output_desc_ptr(size_t i);

  private:
    const OpDef* m_def;
    uint64_t m_instance_id;
    mutable std::string m_friendly_name;
    OutputVector m_inputs;
    std::vector<std::shared_ptr<TensorDesc>> m_outputs;
    std::map<std::string, AttrValue> m_attributes;
    RTMap m_rt_info;
    Tensor m_constant;                             // only for Constant
    std::vector<std::shared_ptr<Model>> m_bodies;  // only for sub-graph ops (If, Loop)
};

/// Creates a node of op `type` from the registry (the highest registered version unless
/// `version` is given), checks its attributes against the OpDef (unknown names, wrong types,
/// missing required ones), fills defaults and infers output types. Throws NotFound naming type
/// and version if no such op is registered, InvalidArgument on bad attributes or inputs.
NodePtr make_node(const std::string& type, const OutputVector& inputs,
                  std::map<std::string, AttrValue> attributes = {}, int version = -1);
/// Same, for a sub-graph op: `bodies` are set before output types are inferred.
NodePtr make_node(const std::string& type, const OutputVector& inputs,
                  std::map<std::string, AttrValue> attributes,
                  std::vector<std::shared_ptr<Model>> bodies, int version = -1);

template <typename T>
const T& Node::get_attribute(const std::string& name) const {
    auto it = m_attributes.find(name);
    if (it == m_attributes.end())
        throw_error<InvalidArgument>(describe(), ": no attribute '", name, "'");
    const T* value = std::get_if<T>(&it->second);
    if (!value)
        throw_error<InvalidArgument>(describe(), ": attribute '", name, "' has another type");
    return *value;
}

/// Text of an attribute value as IR writes it ("1,1", "true", "f32", "?,3").
std::string attr_to_string(const AttrValue& value);

}  // namespace vireo
