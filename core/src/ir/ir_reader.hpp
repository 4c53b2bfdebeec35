// Declares IrReader, which turns IR v10/v11 XML text plus a weights buffer into a Model
// (internal; the public entry points are in vireo/ir.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "vireo/model.hpp"
#include "vireo/op_registry.hpp"

namespace tinyxml2 {
class XMLElement;
}

namespace vireo::ir {

/// The bytes Constants are read from. `owner` keeps them alive and becomes each Constant's
/// owner. When `missing` is non-empty there are no weights, and the first Const that needs
/// bytes throws NotFound with that text (a .bin file that does not exist).
struct Weights {
    const char* data = nullptr;
    size_t size = 0;
    std::shared_ptr<void> owner;
    std::string missing;
};

/// One `<port>`: its id, `precision` ("" when absent), `<dim>`s and output tensor names.
struct PortInfo {
    int64_t id = 0;
    std::string precision;
    std::vector<Dimension> dims;
    bool has_names = false;
    std::set<std::string> names;
    std::string
        layout;  // <rt_info><attribute name="layout" layout="[N,C,H,W]"/>, as IR v11 writes it
};

/// One `<layer>` as written, before its node exists.
struct LayerInfo {
    int64_t id = 0;
    std::string name;
    std::string type;
    std::string version;
    const tinyxml2::XMLElement* element = nullptr;
    std::vector<PortInfo> inputs;
    std::vector<PortInfo> outputs;
    /// Port id -> (is output, index among the inputs or outputs).
    std::map<int64_t, std::pair<bool, size_t>> ports;
    /// For each input: (index of the source layer, output index there); unset = kNoSource.
    std::vector<std::pair<size_t, size_t>> sources;
    /// "layer id=3 'conv1' (Convolution)", for messages.
    std::string describe() const;
};

inline constexpr size_t kNoSource = static_cast<size_t>(-1);
/// Limits of the net-level <rt_info> (see IrReader::read_rt_info): nesting depth, and bytes of
/// the keys and values it expands to.
inline constexpr size_t kMaxRtInfoDepth = 64;
inline constexpr size_t kMaxRtInfoBytes = size_t{16} << 20;

/// Reads one IR document. Single use: construct, call read() once.
/// Every error is a vireo::Exception whose message starts with "IR <source>: " and names the
/// layer, edge or attribute at fault; malformed content is InvalidArgument.
class IrReader {
  public:
    /// `source` names the input in messages (the .xml path, or "text" for in-memory IR).
    IrReader(std::string source, Weights weights);
    std::shared_ptr<Model> read(const char* xml, size_t size);

  private:
    // XML -> LayerInfo (ir_layers.cpp).
    void parse_layers(const tinyxml2::XMLElement& layers);
    PortInfo parse_port(const tinyxml2::XMLElement& port, const LayerInfo& layer,
                        bool output) const;
    void parse_edges(const tinyxml2::XMLElement* edges);  // null: no <edges>
    /// Flattens <rt_info> into "outer/inner" keys. Each key repeats its parents' names, so a
    /// deep or wide nest grows quadratically (57 MB of XML took 1.48 GB): the nesting depth is
    /// capped at kMaxRtInfoDepth and the keys and values made at kMaxRtInfoBytes in all.
    /// Throws InvalidArgument naming both outputs if two outputs carry the same tensor name.
    void check_unique_tensor_names(const Model& model) const;
    void read_rt_info(const tinyxml2::XMLElement& element, const std::string& prefix, RTMap& out,
                      size_t depth, size_t& bytes) const;

    // LayerInfo -> nodes (ir_reader.cpp).
    /// Builds the graph of `container` (<net>, or a sub-graph op's body) from its <layers> and
    /// <edges>; `by_id` (optional) receives each layer id's node.
    std::shared_ptr<Model> build_graph(const tinyxml2::XMLElement& container,
                                       const std::string& name,
                                       std::unordered_map<int64_t, NodePtr>* by_id);
    std::vector<size_t> topological_order() const;
    NodePtr build_node(const LayerInfo& layer, const OutputVector& inputs) const;
    NodePtr build_constant(const LayerInfo& layer, const OpDef& def) const;
    std::map<std::string, AttrValue> read_attributes(const LayerInfo& layer,
                                                     const OpDef& def) const;
    void check_ports(const LayerInfo& layer, const Node& node) const;
    /// If/Loop: reads the bodies and turns the port maps and back edges into the op's port-map
    /// attributes (ir_subgraph.cpp).
    std::vector<std::shared_ptr<Model>> read_subgraph(
        const LayerInfo& layer, std::map<std::string, AttrValue>& attributes) const;
    void apply_v10_names(const Model& model) const;

    /// Throws InvalidArgument "IR <source>: <args...>".
    template <typename... Args>
    [[noreturn]] void fail(Args&&... args) const {
        throw_error<InvalidArgument>("IR ", m_source, ": ", std::forward<Args>(args)...);
    }

    std::string m_source;
    Weights m_weights;
    int64_t m_version = 0;
    std::vector<LayerInfo> m_layers;
    std::unordered_map<int64_t, size_t> m_index_of_id;
};

}  // namespace vireo::ir
