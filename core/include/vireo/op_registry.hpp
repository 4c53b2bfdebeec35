// Declares OpDef (what an op is: inputs, attributes, type and shape inference) and OpRegistry,
// the table keyed by (type, opset version) that the IR reader, the builders and plugins use.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "vireo/node.hpp"

namespace vireo {

/// The kind of an attribute, which fixes how IR text is parsed into an AttrValue.
enum class AttrType {
    kBool,
    kInt,
    kFloat,
    kString,
    kIntList,
    kFloatList,
    kStringList,
    kElementType,
    kShape
};

/// One attribute of an op. `default_value` empty means required. `choices` (for kString)
/// restricts the allowed values, e.g. {"explicit", "valid", "same_upper", "same_lower"}.
struct AttrSpec {
    std::string name;
    AttrType type;
    std::optional<AttrValue> default_value;
    std::vector<std::string> choices;
};

/// What shape inference sees of one input: its type and shape, and its value when known
/// (a Constant at compile time; every input when a plugin re-infers shapes at run time).
struct InferInput {
    element::Type type;
    PartialShape shape;
    Tensor value;  // empty when unknown
    /// The value as integers (any integral or real type); nullopt when unknown.
    std::optional<std::vector<int64_t>> int_values() const;
};

struct InferOutput {
    element::Type type;
    PartialShape shape;
};

/// Type and shape inference of an op: from the inputs (and the node's attributes) to the
/// outputs. Throws InvalidArgument naming the node (node.describe()) and what is wrong.
/// The same function serves compile time (values of Constants only) and run time (all values).
using InferFunction = std::function<std::vector<InferOutput>(
    const Node& node, const std::vector<InferInput>& inputs)>;

/// The definition of an op version, following the OpenVINO opset specification.
struct OpDef {
    std::string type;    ///< canonical type name: "Add"
    int version = 1;     ///< opset version that introduced this op version: 1, 3, 8, ...
    std::string domain;  ///< "" for standard opsets, a custom name for custom ops
    size_t min_inputs = 0;
    size_t max_inputs = 0;
    std::vector<AttrSpec> attributes;
    InferFunction infer;
    /// IR type names that also mean this op ("Const" for Constant, "ReLU" for Relu).
    std::vector<std::string> aliases;

    const AttrSpec* find_attribute(const std::string& name) const;
};

/// The table of op definitions. The standard opset is registered on first use; plugins and
/// applications add custom ops with add(). Lookups and additions are thread-safe; definitions
/// are never removed, so references stay valid for the life of the process.
///
///     OpDef def{"MyOp", 1, "my_domain", 1, 1, {}, my_infer};
///     OpRegistry::instance().add(def);
///     auto node = make_node("MyOp", {x});
class OpRegistry {
  public:
    static OpRegistry& instance();

    /// Registers a definition. Throws InvalidArgument if (type, version, domain) exists already.
    void add(OpDef def);
    /// Exact (type, version) in the standard domain, or nullptr.
    const OpDef* find(const std::string& type, int version, const std::string& domain = "") const;
    /// Resolves an IR layer's `type` and `version` ("opset8", or a custom domain name): for
    /// "opsetN" the highest registered version <= N; type aliases are accepted. Throws NotFound
    /// naming both the type and the version.
    const OpDef& resolve(const std::string& type, const std::string& version) const;
    /// The highest version of `type` in the standard domain; throws NotFound.
    const OpDef& latest(const std::string& type) const;
    /// Every registered definition.
    std::vector<const OpDef*> all() const;

  private:
    OpRegistry();
    mutable std::mutex m_mutex;
    std::map<std::string, std::map<std::pair<std::string, int>, std::unique_ptr<OpDef>>>
        m_defs;  // type -> (domain, version)
    std::map<std::string, std::string> m_aliases;
};

/// Registers the standard opset definitions; called once by OpRegistry::instance().
void register_standard_ops(OpRegistry& registry);

}  // namespace vireo
