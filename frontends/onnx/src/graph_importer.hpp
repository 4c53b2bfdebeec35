// Declares GraphImporter, which turns one ONNX GraphProto into a Vireo Model: initializers to
// Constants, inputs to Parameters, nodes through their translators, outputs to Results.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "translator_registry.hpp"
#include "vireo/model.hpp"

namespace vireo::onnx_import {

class ExternalData;

/// Imported opset version per domain ("" is the default domain, ai.onnx).
using Opsets = std::map<std::string, int64_t>;

/// One problem found before conversion: an op with no translator.
struct UnsupportedOp {
    std::string op, domain, node;
    int64_t version;
};

/// Every node of `graph` (subgraphs included) that has no translator for the imported opset.
std::vector<UnsupportedOp> find_unsupported(const onnx::GraphProto& graph, const Opsets& opsets,
                                            const TranslatorRegistry& registry);

/// A subgraph converted into a graph of its own (a run-time If branch or Loop body): the body's
/// inputs as Parameters, its outputs, and one more Parameter per outer value it captures.
struct ImportedBody {
    ParameterVector inputs;    ///< one per input of the GraphProto, in order
    OutputVector outputs;      ///< one per output of the GraphProto, in order
    ParameterVector captures;  ///< Parameters standing for captured outer values
    OutputVector captured;     ///< the outer values (of the importing graph) feeding `captures`
};

class GraphImporter {
  public:
    /// `owner` keeps the parsed message (whose raw data Constants share) alive; `external` may be
    /// null (no external data allowed).
    GraphImporter(const onnx::GraphProto& graph, const Opsets& opsets,
                  const TranslatorRegistry& registry, std::shared_ptr<void> owner,
                  ExternalData* external, const GraphImporter* parent = nullptr);

    /// Converts the whole graph. Throws as read_onnx_model documents.
    std::shared_ptr<Model> import_model();

    /// Converts `body` (a subgraph attribute of a node of this graph) in place: its inputs take
    /// `inputs` in order, names it does not define resolve in this graph (and its parents), and
    /// the values of its outputs are returned in order. Used by If and by unrolled Scan.
    OutputVector inline_subgraph(const onnx::GraphProto& body, const OutputVector& inputs) const;

    /// Converts `body` (a subgraph attribute of a node of this graph) into a separate graph. Its
    /// inputs become Parameters of the type and shape the body declares, else `fallback`'s (one
    /// per input), except where `bound[i]` is set: input i then takes that value (a node of the
    /// body the caller built, e.g. a Squeeze of its own Parameter) and ImportedBody::inputs holds
    /// null for it. A name the body (or a subgraph inside it) reads but does not define and that
    /// resolves in this graph or its parents becomes a capture Parameter fed by that outer value,
    /// once per name; a captured Constant is copied into the body instead. `forced` gives input i
    /// the shape forced[i] whatever the body declares (a Loop's carried value whose shape changes
    /// between iterations). Throws as inline_subgraph.
    ImportedBody import_body(const onnx::GraphProto& body,
                             const std::vector<std::pair<element::Type, PartialShape>>& fallback,
                             const OutputVector& bound = {},
                             const std::map<size_t, PartialShape>& forced = {}) const;

    /// Sequences whose length and positions are known at import (SequenceConstruct, Insert at a
    /// constant position, SplitToSequence of a static axis...) are kept as the list of their
    /// tensors; the sequence ops take them apart again (ops/sequence.cpp). Null when `name` is
    /// no such sequence here or in an enclosing graph.
    const OutputVector* find_sequence(const std::string& name) const;
    void define_sequence(const std::string& name, OutputVector items);

    /// A TensorProto of this model as a tensor (raw data shared, external data resolved).
    Tensor tensor(const onnx::TensorProto& proto, const std::string& what) const;
    int64_t opset(const std::string& domain) const;

  private:
    void add_initializers();
    ParameterVector add_inputs();
    void convert_nodes();
    void convert_node(const onnx::NodeProto& node);
    ResultVector add_outputs(const ParameterVector& parameters);
    Output value(const std::string& name, const onnx::NodeProto& consumer) const;
    const Output* find_value(const std::string& name) const;

    const onnx::GraphProto& m_graph;
    const Opsets& m_opsets;
    const TranslatorRegistry& m_registry;
    std::shared_ptr<void> m_owner;
    ExternalData* m_external;
    const GraphImporter* m_parent;
    std::map<std::string, Output> m_values;
    std::map<std::string, OutputVector> m_sequences;
    // A body imported as a graph of its own: outer names resolve to capture Parameters made on
    // first use (find_value is const; the captures are bookkeeping of the lookup).
    bool m_capturing = false;
    mutable std::map<std::string, Output> m_captures;
    mutable ParameterVector m_capture_parameters;
    mutable OutputVector m_captured;
};

}  // namespace vireo::onnx_import
