// Implements GraphImporter: value bookkeeping, topological order of nodes (exporters do not always
// sort them), translator dispatch and the checks that name the node and value at fault.
#include "graph_importer.hpp"

#include <queue>
#include <set>

#include "custom_ops.hpp"
#include "node_context.hpp"
#include "tensor_proto.hpp"
#include "vireo/exception.hpp"
#include "vireo/ops.hpp"
#include "vireo/reference/constant_folding.hpp"

namespace vireo::onnx_import {
namespace {

PartialShape shape_of_value(const onnx::ValueInfoProto& info) {
    const auto& tensor_type = info.type().tensor_type();
    if (!tensor_type.has_shape()) return PartialShape::dynamic();
    std::vector<Dimension> dims;
    for (const auto& d : tensor_type.shape().dim()) {
        if (d.has_dim_value()) {
            if (d.dim_value() < 0)
                throw_error<InvalidArgument>("ONNX input '", info.name(), "': negative dimension ",
                                             d.dim_value());
            dims.emplace_back(d.dim_value());
        } else {
            dims.emplace_back(Dimension::dynamic());
        }
    }
    return PartialShape(dims);
}

void collect_unsupported(const onnx::GraphProto& graph, const Opsets& opsets,
                         const TranslatorRegistry& registry, std::vector<UnsupportedOp>& out) {
    for (const auto& node : graph.node()) {
        const std::string domain = canonical_domain(node.domain());
        auto it = opsets.find(domain);
        const int64_t version = it == opsets.end() ? -1 : it->second;
        if (it == opsets.end() || (!registry.find(domain, node.op_type(), version) &&
                                   !custom_translator(domain, node.op_type())))
            out.push_back(
                {node.op_type(), domain.empty() ? "ai.onnx" : domain,
                 node.name().empty() ? (node.output_size() ? node.output(0) : "") : node.name(),
                 version});
        for (const auto& attr : node.attribute()) {
            if (attr.has_g()) collect_unsupported(attr.g(), opsets, registry, out);
            for (const auto& g : attr.graphs()) collect_unsupported(g, opsets, registry, out);
        }
    }
}

}  // namespace

std::vector<UnsupportedOp> find_unsupported(const onnx::GraphProto& graph, const Opsets& opsets,
                                            const TranslatorRegistry& registry) {
    std::vector<UnsupportedOp> out;
    collect_unsupported(graph, opsets, registry, out);
    return out;
}

GraphImporter::GraphImporter(const onnx::GraphProto& graph, const Opsets& opsets,
                             const TranslatorRegistry& registry, std::shared_ptr<void> owner,
                             ExternalData* external, const GraphImporter* parent)
    : m_graph(graph),
      m_opsets(opsets),
      m_registry(registry),
      m_owner(std::move(owner)),
      m_external(external),
      m_parent(parent) {}

const Output* GraphImporter::find_value(const std::string& name) const {
    auto it = m_values.find(name);
    if (it != m_values.end()) return &it->second;
    if (!m_parent) return nullptr;
    const Output* outer = m_parent->find_value(name);
    if (!outer || !m_capturing) return outer;
    if (auto c = m_captures.find(name); c != m_captures.end()) return &c->second;
    Output local;
    if (outer->get_node()->get_type_name() == "Constant") {
        local = op::constant(outer->get_node()->get_constant_value())->output(0);
    } else {
        auto p = op::parameter(outer->get_element_type(), outer->get_partial_shape());
        p->set_friendly_name(name);
        m_capture_parameters.push_back(p);
        m_captured.push_back(*outer);
        local = p->output(0);
    }
    return &(m_captures[name] = local);
}

ImportedBody GraphImporter::import_body(
    const onnx::GraphProto& body,
    const std::vector<std::pair<element::Type, PartialShape>>& fallback, const OutputVector& bound,
    const std::map<size_t, PartialShape>& forced) const {
    GraphImporter child(body, m_opsets, m_registry, m_owner, m_external, this);
    child.m_capturing = true;
    if (static_cast<size_t>(body.input_size()) != fallback.size())
        throw_error<InvalidArgument>("ONNX subgraph '", body.name(), "' has ", body.input_size(),
                                     " inputs, expected ", fallback.size());
    child.add_initializers();
    ImportedBody out;
    for (int i = 0; i < body.input_size(); ++i) {
        const auto& info = body.input(i);
        if (static_cast<size_t>(i) < bound.size() && bound[static_cast<size_t>(i)]) {
            child.m_values[info.name()] = bound[static_cast<size_t>(i)];
            out.inputs.push_back(nullptr);
            continue;
        }
        const auto& tensor_type = info.type().tensor_type();
        element::Type type = fallback[static_cast<size_t>(i)].first;
        if (info.type().has_tensor_type() && tensor_type.elem_type() != 0)
            type = to_element_type(tensor_type.elem_type(),
                                   "ONNX subgraph input '" + info.name() + "'");
        const auto forced_shape = forced.find(static_cast<size_t>(i));
        const PartialShape shape = forced_shape != forced.end() ? forced_shape->second
                                   : info.type().has_tensor_type() && tensor_type.has_shape()
                                       ? shape_of_value(info)
                                       : fallback[static_cast<size_t>(i)].second;
        auto p = op::parameter(type, shape);
        p->set_friendly_name(info.name());
        child.m_values[info.name()] = p->output(0);
        out.inputs.push_back(p);
    }
    child.convert_nodes();
    for (const auto& o : body.output()) {
        const Output* v = child.find_value(o.name());
        if (!v)
            throw_error<InvalidArgument>("ONNX subgraph '", body.name(), "': output '", o.name(),
                                         "' is not produced");
        out.outputs.push_back(*v);
    }
    out.captures = child.m_capture_parameters;
    out.captured = child.m_captured;
    return out;
}

OutputVector GraphImporter::inline_subgraph(const onnx::GraphProto& body,
                                            const OutputVector& inputs) const {
    GraphImporter child(body, m_opsets, m_registry, m_owner, m_external, this);
    if (static_cast<size_t>(body.input_size()) != inputs.size())
        throw_error<InvalidArgument>("ONNX subgraph '", body.name(), "' has ", body.input_size(),
                                     " inputs, ", inputs.size(), " were given");
    child.add_initializers();
    for (int i = 0; i < body.input_size(); ++i)
        child.m_values[body.input(i).name()] = inputs[static_cast<size_t>(i)];
    child.convert_nodes();
    OutputVector outputs;
    for (const auto& out : body.output()) {
        const Output* v = child.find_value(out.name());
        if (!v)
            throw_error<InvalidArgument>("ONNX subgraph '", body.name(), "': output '", out.name(),
                                         "' is not produced");
        outputs.push_back(*v);
    }
    return outputs;
}

Tensor GraphImporter::tensor(const onnx::TensorProto& proto, const std::string& what) const {
    return to_tensor(proto, m_owner, m_external, what);
}

int64_t GraphImporter::opset(const std::string& domain) const {
    auto it = m_opsets.find(canonical_domain(domain));
    return it == m_opsets.end() ? -1 : it->second;
}

void GraphImporter::add_initializers() {
    for (const auto& init : m_graph.initializer()) {
        if (init.name().empty())
            throw_error<InvalidArgument>("ONNX graph: an initializer has no name");
        // docs/onnx.md: a value defined twice is an error (last-wins would hide a bad file).
        if (m_values.count(init.name()))
            throw_error<InvalidArgument>("ONNX graph: initializer '", init.name(),
                                         "' is defined twice");
        auto c = op::constant(tensor(init, "initializer '" + init.name() + "'"));
        c->set_friendly_name(init.name());
        c->output(0).set_names({init.name()});
        m_values[init.name()] = c->output(0);
    }
    if (m_graph.sparse_initializer_size() > 0)
        throw_error<NotImplemented>("ONNX graph: sparse initializers are not supported (",
                                    m_graph.sparse_initializer_size(), " found)");
}

ParameterVector GraphImporter::add_inputs() {
    ParameterVector parameters;
    std::set<std::string> seen;
    for (const auto& input : m_graph.input()) {
        const std::string& name = input.name();
        if (name.empty()) throw_error<InvalidArgument>("ONNX graph: an input has no name");
        if (!seen.insert(name).second)
            throw_error<InvalidArgument>("ONNX graph: input '", name, "' is listed twice");
        if (m_values.count(name)) continue;  // IR version 3: initializers are listed as inputs too
        if (!input.type().has_tensor_type())
            throw_error<NotImplemented>("ONNX input '", name,
                                        "': only tensor inputs are supported (this one is a ",
                                        input.type().has_sequence_type()   ? "sequence"
                                        : input.type().has_optional_type() ? "optional"
                                        : input.type().has_map_type()      ? "map"
                                                                      : "value of unknown kind",
                                        ")");
        const element::Type type =
            to_element_type(input.type().tensor_type().elem_type(), "ONNX input '" + name + "'");
        auto p = op::parameter(type, shape_of_value(input), name);
        p->set_friendly_name(name);
        p->output(0).set_names({name});
        m_values[name] = p->output(0);
        parameters.push_back(p);
    }
    return parameters;
}

const OutputVector* GraphImporter::find_sequence(const std::string& name) const {
    auto it = m_sequences.find(name);
    if (it != m_sequences.end()) return &it->second;
    // A body imported as a graph of its own (Loop) cannot capture a list of tensors.
    return m_parent && !m_capturing ? m_parent->find_sequence(name) : nullptr;
}

void GraphImporter::define_sequence(const std::string& name, OutputVector items) {
    if (m_values.count(name) || m_sequences.count(name))
        throw_error<InvalidArgument>("ONNX value '", name, "' is defined twice");
    m_sequences[name] = std::move(items);
}

Output GraphImporter::value(const std::string& name, const onnx::NodeProto& consumer) const {
    const Output* found = find_value(name);
    if (!found)
        throw_error<InvalidArgument>(
            "ONNX node ", consumer.op_type(), " '",
            consumer.name().empty() ? (consumer.output_size() ? consumer.output(0) : "")
                                    : consumer.name(),
            "': input '", name, "' is not produced by any node, initializer or graph input");
    return *found;
}

void GraphImporter::convert_node(const onnx::NodeProto& node) {
    OutputVector inputs;
    for (const auto& name : node.input()) {
        // A sequence input stays an empty slot; the sequence ops read it by name.
        const bool sequence = !name.empty() && !find_value(name) && find_sequence(name);
        if (sequence && node.domain().empty() && node.op_type().rfind("Sequence", 0) != 0 &&
            node.op_type() != "ConcatFromSequence")
            throw_error<NotImplemented>("ONNX node ", node.op_type(), " '", node.name(),
                                        "': input '", name,
                                        "' is a sequence, which only the Sequence ops and "
                                        "ConcatFromSequence read here");
        inputs.push_back(name.empty() || sequence ? Output() : value(name, node));
    }
    const int64_t version = opset(node.domain());
    const Translator* translator = m_registry.find(node.domain(), node.op_type(), version);
    Translator custom;
    if (!translator) {  // an extension's custom op, or none (find_unsupported ran first)
        custom = custom_translator(canonical_domain(node.domain()), node.op_type());
        if (!custom)
            throw_error<NotImplemented>("ONNX op ", node.op_type(), "-", version,
                                        " is not supported");
        translator = &custom;
    }
    NodeContext context(node, std::move(inputs), version, *this);
    OutputVector outputs;
    std::set<const Node*> input_nodes;
    for (const auto& in : context.inputs())
        if (in) input_nodes.insert(in.get_node());
    try {
        outputs = (*translator)(context);
        // Folding inside the try: a constant that cannot be evaluated (an index out of range) is
        // reported with the ONNX node it belongs to.
        // A DequantizeLinear of constant integers (and QLinearConv / QLinearMatMul / QGemm, whose
        // translation dequantizes their weights) is left unfolded: devices that run int8 read the
        // integers and scales (the CPU plugin's int8 convolutions); the others fold it.
        const std::string& type = node.op_type();
        if (type != "DequantizeLinear" && type != "QLinearConv" && type != "QLinearMatMul" &&
            type != "QGemm")
            outputs = reference::fold_constants(outputs, input_nodes);
    } catch (const Exception& e) {
        if (std::string(e.what()).find(context.describe()) != std::string::npos) throw;
        rethrow_with_context(std::current_exception(), "ONNX node " + context.describe());
    }
    for (int i = 0; i < node.output_size(); ++i) {
        const std::string& name = node.output(i);
        if (name.empty() || m_sequences.count(name)) continue;
        if (static_cast<size_t>(i) >= outputs.size() || !outputs[i])
            context.unsupported("output ", i, " ('", name,
                                "') is not produced by this translation");
        if (m_values.count(name))
            context.fail("output '", name, "' is already defined by another node");
        Output out = outputs[i];
        // Values inside an inlined subgraph (If branches, unrolled Scan steps) keep no tensor
        // name: one body may be inlined many times, and names must stay unique.
        if (!m_parent) out.add_names({name});
        Node* producer = out.get_node();
        if (!input_nodes.count(producer) && producer->get_type_name() != "Constant" &&
            producer->get_friendly_name().rfind(producer->get_type_name() + "_", 0) == 0)
            producer->set_friendly_name(node.name().empty() ? name : node.name());
        m_values[name] = out;
    }
}

void GraphImporter::convert_nodes() {
    // Kahn's order, preferring the file's order: a node is ready when every value it reads that
    // some node of this graph produces has been produced (subgraph captures count too).
    const int n = m_graph.node_size();
    std::map<std::string, int> producer;
    for (int i = 0; i < n; ++i)
        for (const auto& out : m_graph.node(i).output())
            if (!out.empty()) producer.emplace(out, i);
    std::vector<std::vector<int>> users(n);
    std::vector<int> waiting(n, 0);
    auto add_dependency = [&](int node, const std::string& name) {
        auto it = producer.find(name);
        if (it == producer.end() || it->second == node) return;
        users[it->second].push_back(node);
        ++waiting[node];
    };
    std::function<void(int, const onnx::GraphProto&)> captured = [&](int node,
                                                                     const onnx::GraphProto& g) {
        for (const auto& inner : g.node()) {
            for (const auto& name : inner.input()) add_dependency(node, name);
            for (const auto& attr : inner.attribute()) {
                if (attr.has_g()) captured(node, attr.g());
                for (const auto& sub : attr.graphs()) captured(node, sub);
            }
        }
    };
    for (int i = 0; i < n; ++i) {
        const auto& node = m_graph.node(i);
        for (const auto& name : node.input()) add_dependency(i, name);
        for (const auto& attr : node.attribute()) {
            if (attr.has_g()) captured(i, attr.g());
            for (const auto& sub : attr.graphs()) captured(i, sub);
        }
    }
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (int i = 0; i < n; ++i)
        if (waiting[i] == 0) ready.push(i);
    int done = 0;
    while (!ready.empty()) {
        const int i = ready.top();
        ready.pop();
        convert_node(m_graph.node(i));
        ++done;
        for (int u : users[i])
            if (--waiting[u] == 0) ready.push(u);
    }
    if (done != n) {
        for (int i = 0; i < n; ++i)
            if (waiting[i] > 0)
                throw_error<InvalidArgument>("ONNX graph: node ", m_graph.node(i).op_type(), " '",
                                             m_graph.node(i).name(),
                                             "' is part of a dependency cycle");
    }
}

ResultVector GraphImporter::add_outputs(const ParameterVector& parameters) {
    ResultVector results;
    std::set<Output> used;
    for (const auto& p : parameters) used.insert(p->output(0));
    for (const auto& out : m_graph.output()) {
        auto it = m_values.find(out.name());
        if (it == m_values.end() && m_sequences.count(out.name()))
            throw_error<NotImplemented>("ONNX graph output '", out.name(),
                                        "' is a sequence: sequences are supported inside a graph, "
                                        "not as its outputs");
        if (it == m_values.end())
            throw_error<InvalidArgument>("ONNX graph output '", out.name(),
                                         "' is not produced by the graph");
        Output value = it->second;
        // Each graph output gets a tensor of its own: one computed by another output, a graph
        // input or a Constant is copied, so names stay unambiguous per port.
        if (used.count(value) || value.get_node()->get_type_name() == "Constant") {
            // The name moves to the copy: one tensor name on two outputs (the Constant's and the
            // copy's) is an IR that the IR reader refuses after serialize.
            auto names = value.get_names();
            names.erase(out.name());
            value.set_names(names);
            auto copy = op::convert(value, value.get_element_type());
            copy->set_friendly_name(out.name());
            value = copy->output(0);
            value.set_names({out.name()});
        }
        used.insert(value);
        auto r = op::result(value);
        r->set_friendly_name(out.name() + "/sink_port_0");
        results.push_back(r);
    }
    return results;
}

std::shared_ptr<Model> GraphImporter::import_model() {
    add_initializers();
    ParameterVector parameters = add_inputs();
    convert_nodes();
    ResultVector results = add_outputs(parameters);
    auto model = std::make_shared<Model>(results, SinkVector{}, parameters, m_graph.name());
    return model;
}

}  // namespace vireo::onnx_import
