// Implements IrReader's graph building: topological order, nodes from layers (attributes,
// Constants over the weights), checks against the IR's ports, and the Model around them.
#include "ir/ir_reader.hpp"

#include <tinyxml2.h>

#include <cstring>
#include <map>

#include "ir/ir_text.hpp"
#include "vireo/log.hpp"

namespace vireo::ir {
namespace {

using tinyxml2::XMLElement;

std::string dims_text(const std::vector<Dimension>& dims) {
    std::string out = "[";
    for (size_t i = 0; i < dims.size(); ++i) out += (i ? "," : "") + dims[i].to_string();
    return out + "]";
}

bool is_sink_like(const std::string& type) {
    return type == "Result" || type == "Assign";
}

}  // namespace

IrReader::IrReader(std::string source, Weights weights)
    : m_source(std::move(source)), m_weights(std::move(weights)) {}

std::shared_ptr<Model> IrReader::read(const char* xml, size_t size) {
    tinyxml2::XMLDocument doc;
    if (doc.Parse(xml ? xml : "", xml ? size : 0) != tinyxml2::XML_SUCCESS)
        fail("not a valid XML document: ", doc.ErrorStr());
    const XMLElement* net = doc.RootElement();
    if (!net || std::strcmp(net->Name(), "net") != 0)
        fail("the root element must be <net>, found ",
             net ? "<" + std::string(net->Name()) + ">" : "none");
    const char* version = net->Attribute("version");
    if (!version) fail("<net> has no 'version' attribute (supported IR versions: 10, 11)");
    if (!parse_int64(version, m_version) || (m_version != 10 && m_version != 11))
        fail("unsupported IR version '", version, "' (supported: 10, 11)");
    const char* name = net->Attribute("name");
    std::shared_ptr<Model> model = build_graph(*net, name ? name : "", nullptr);
    model->set_shared_object(m_weights.owner);
    if (const XMLElement* rt_info = net->FirstChildElement("rt_info")) {
        size_t rt_info_bytes = 0;
        read_rt_info(*rt_info, "", model->get_rt_info(), 0, rt_info_bytes);
    }
    model->get_rt_info()["version"] = m_version;
    if (m_version == 10) apply_v10_names(*model);
    check_unique_tensor_names(*model);
    return model;
}

// Builds the nodes in topological order and the Model over them.
std::shared_ptr<Model> IrReader::build_graph(const XMLElement& container, const std::string& name,
                                             std::unordered_map<int64_t, NodePtr>* by_id) {
    const XMLElement* layers = container.FirstChildElement("layers");
    if (!layers) fail("<", container.Name(), "> has no <layers> element");
    parse_layers(*layers);
    parse_edges(container.FirstChildElement("edges"));
    const std::vector<size_t> order = topological_order();

    // Nodes by layer index. Released in reverse build order on the way out: a node holds its
    // inputs, so this frees one node per step instead of recursing down a long chain.
    std::vector<NodePtr> nodes(m_layers.size());
    struct Release {
        std::vector<NodePtr>& nodes;
        const std::vector<size_t>& order;
        ~Release() {
            for (size_t k = order.size(); k-- > 0;) nodes[order[k]].reset();
        }
    } release{nodes, order};

    for (size_t index : order) {
        const LayerInfo& layer = m_layers[index];
        OutputVector inputs;
        inputs.reserve(layer.sources.size());
        for (const auto& [source, output] : layer.sources) {
            // A Result ends the graph (IR writes no output port for it), so nothing reads it.
            if (nodes[source]->get_type_name() == "Result")
                fail(layer.describe(), ": its input comes from ", m_layers[source].describe(),
                     ", but a Result has no output another layer may read");
            if (output >= nodes[source]->get_output_size())
                fail(layer.describe(), ": its input comes from output ", output, " of ",
                     m_layers[source].describe(), ", which has ", nodes[source]->get_output_size(),
                     " outputs");
            inputs.emplace_back(nodes[source], output);
        }
        nodes[index] = build_node(layer, inputs);
    }

    ParameterVector parameters;
    ResultVector results;
    SinkVector sinks;
    for (const auto& node : nodes) {
        const auto& type = node->get_type_name();
        if (type == "Parameter") parameters.push_back(node);
        if (type == "Result") results.push_back(node);
        if (type == "Assign") sinks.push_back(node);
    }
    if (results.empty() && sinks.empty()) fail("the model has no Result (and no Assign) layer");
    if (by_id)
        for (size_t i = 0; i < nodes.size(); ++i) (*by_id)[m_layers[i].id] = nodes[i];
    std::shared_ptr<Model> model;
    try {
        model = std::make_shared<Model>(results, sinks, parameters, name);
    } catch (...) {
        rethrow_with_context(std::current_exception(), "IR " + m_source);
    }
    return model;
}

// Two different outputs carrying one tensor name would make get_tensor(name) pick one of them
// silently (and hello_infer -o write one file over the other): refuse, naming both.
void IrReader::check_unique_tensor_names(const Model& model) const {
    std::map<std::string, Output> owner;
    for (const auto& node : model.get_ordered_ops()) {
        if (node->get_type_name() == "Result") continue;  // shares its input's names
        for (size_t i = 0; i < node->get_output_size(); ++i) {
            const Output out = node->output(i);
            for (const auto& name : out.get_names()) {
                const auto [it, added] = owner.emplace(name, out);
                if (!added && it->second != out)
                    fail("tensor name '", name, "' is used by two outputs: output ",
                         it->second.get_index(), " of ", it->second.get_node()->describe(),
                         " and output ", i, " of ", node->describe());
            }
        }
    }
}

// Kahn's algorithm: iterative, so a 100k-layer chain costs no stack; layers whose inputs are
// ready are taken in XML order. What is left over lies on or behind a cycle.
std::vector<size_t> IrReader::topological_order() const {
    const size_t n = m_layers.size();
    std::vector<size_t> pending(n);
    std::vector<std::vector<size_t>> consumers(n);
    std::vector<size_t> order;
    order.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        pending[i] = m_layers[i].sources.size();
        for (const auto& source : m_layers[i].sources) consumers[source.first].push_back(i);
        if (pending[i] == 0) order.push_back(i);
    }
    for (size_t head = 0; head < order.size(); ++head)
        for (size_t consumer : consumers[order[head]])
            if (--pending[consumer] == 0) order.push_back(consumer);
    if (order.size() == n) return order;

    // Every unbuilt layer has an unbuilt source; walking sources from one must revisit a layer,
    // and the first layer revisited is on a cycle.
    size_t current = 0;
    while (pending[current] == 0) ++current;
    std::vector<bool> seen(n, false);
    while (!seen[current]) {
        seen[current] = true;
        for (const auto& source : m_layers[current].sources) {
            if (pending[source.first] > 0) {
                current = source.first;
                break;
            }
        }
    }
    std::string cycle;
    size_t step = current, length = 0;
    do {
        if (length++ < 8)
            cycle += (cycle.empty() ? "" : " <- ") + std::to_string(m_layers[step].id);
        for (const auto& source : m_layers[step].sources) {
            if (pending[source.first] > 0 && seen[source.first]) {
                step = source.first;
                break;
            }
        }
    } while (step != current && length < n);
    fail("the graph has a cycle through ", m_layers[current].describe(), " (layer ids ", cycle,
         length > 8 ? " <- ..." : "", ")");
}

NodePtr IrReader::build_node(const LayerInfo& layer, const OutputVector& inputs) const {
    const OpDef* def = nullptr;
    try {
        def = &OpRegistry::instance().resolve(layer.type, layer.version);
    } catch (const Exception& e) {
        fail(layer.describe(), ": ", e.what());
    }
    if (def->type == "Constant") {
        if (!inputs.empty())
            fail(layer.describe(), ": a Const takes no inputs, the IR gives it ", inputs.size());
        return build_constant(layer, *def);
    }
    auto attributes = read_attributes(layer, *def);
    std::vector<std::shared_ptr<Model>> bodies;
    if (def->type == "If" || def->type == "Loop") bodies = read_subgraph(layer, attributes);
    NodePtr node;
    try {
        node = std::make_shared<Node>(*def, inputs, std::move(attributes));
        node->set_bodies(std::move(bodies));
        if (!layer.name.empty()) node->set_friendly_name(layer.name);
        node->validate_and_infer_types();
    } catch (...) {
        rethrow_with_context(std::current_exception(), "IR " + m_source + ": " + layer.describe());
    }
    check_ports(layer, *node);
    for (size_t i = 0; i < layer.outputs.size(); ++i) {
        if (layer.outputs[i].has_names) node->output(i).set_names(layer.outputs[i].names);
        if (!layer.outputs[i].layout.empty())
            node->output(i).get_rt_info()["layout"] = layer.outputs[i].layout;
    }
    return node;
}

std::map<std::string, AttrValue> IrReader::read_attributes(const LayerInfo& layer,
                                                           const OpDef& def) const {
    std::map<std::string, AttrValue> attributes;
    const XMLElement* data = layer.element->FirstChildElement("data");
    for (auto* attr = data ? data->FirstAttribute() : nullptr; attr; attr = attr->Next()) {
        const AttrSpec* spec = def.find_attribute(attr->Name());
        if (!spec) {
            VIREO_LOG(WARNING) << "IR " << m_source << ": " << layer.describe() << ": attribute '"
                               << attr->Name() << "' is not defined by " << def.type << "-"
                               << def.version << "; ignored";
            continue;
        }
        try {
            attributes[spec->name] = parse_attribute(spec->type, attr->Value());
        } catch (const Exception& e) {
            fail(layer.describe(), ": attribute '", attr->Name(), "': ", e.what());
        }
    }
    for (const auto& spec : def.attributes)
        if (!spec.default_value && !attributes.count(spec.name))
            fail(layer.describe(), ": missing required attribute '", spec.name, "' in <data>");
    return attributes;
}

NodePtr IrReader::build_constant(const LayerInfo& layer, const OpDef& def) const {
    const XMLElement* data = layer.element->FirstChildElement("data");
    auto required = [&](const char* name) -> std::string {
        const char* value = data ? data->Attribute(name) : nullptr;
        if (!value) fail(layer.describe(), ": missing required attribute '", name, "' in <data>");
        return value;
    };
    const std::string type_text = required("element_type");
    const std::string shape_text = required("shape");
    const std::string offset_text = required("offset");
    const std::string size_text = required("size");
    for (auto* attr = data->FirstAttribute(); attr; attr = attr->Next()) {
        const std::string name = attr->Name();
        if (name != "element_type" && name != "shape" && name != "offset" && name != "size")
            VIREO_LOG(WARNING) << "IR " << m_source << ": " << layer.describe() << ": attribute '"
                               << name << "' is not defined by Const; ignored";
    }

    element::Type type;
    try {
        type = element::Type::from_name(trim(type_text));
    } catch (const Exception& e) {
        fail(layer.describe(), ": attribute 'element_type': ", e.what());
    }
    if (!type.is_static())
        fail(layer.describe(), ": attribute 'element_type' is '", type_text,
             "'; a Const needs a static element type");
    Shape shape;
    size_t bytes = 0;
    try {
        const PartialShape partial = PartialShape::parse(shape_text);
        if (!partial.is_static())
            throw_error<InvalidArgument>("a Const's shape must be static, found ", partial);
        shape = partial.to_shape();
        bytes = type.bytes_for(shape_size(shape));
    } catch (const Exception& e) {
        fail(layer.describe(), ": attribute 'shape' = '", shape_text, "': ", e.what());
    }
    uint64_t offset = 0, size = 0;
    if (!parse_uint64(offset_text, offset))
        fail(layer.describe(), ": attribute 'offset' must be a non-negative integer, found '",
             offset_text, "'");
    if (!parse_uint64(size_text, size))
        fail(layer.describe(), ": attribute 'size' must be a non-negative integer, found '",
             size_text, "'");
    if (size != bytes)
        fail(layer.describe(), ": size=", size, " bytes does not match element_type ", type,
             " x shape ", shape, " = ", bytes, " bytes");

    Tensor value;
    if (bytes == 0) {
        value = Tensor(type, shape);
    } else {
        if (!m_weights.missing.empty())
            throw_error<NotFound>("IR ", m_source, ": ", layer.describe(), " needs ", size,
                                  " bytes of weights, but ", m_weights.missing);
        // Written so that neither side can overflow.
        if (offset > m_weights.size || size > m_weights.size - offset)
            fail(layer.describe(), ": offset=", offset, " + size=", size,
                 " reaches beyond the end of the weights (", m_weights.size, " bytes)");
        const char* bytes_at = m_weights.data + offset;
        if (reinterpret_cast<uintptr_t>(bytes_at) % type.size() != 0) {
            // Misaligned for its element type: kernels get an aligned copy instead.
            value = Tensor(type, shape);
            std::memcpy(value.data(), bytes_at, size);
        } else {
            value = Tensor::wrap_shared(type, shape, bytes_at, m_weights.owner);
        }
    }
    NodePtr node;
    try {
        node = std::make_shared<Node>(def, OutputVector{}, std::map<std::string, AttrValue>{});
        if (!layer.name.empty()) node->set_friendly_name(layer.name);
        node->set_constant_value(std::move(value));
    } catch (...) {
        rethrow_with_context(std::current_exception(), "IR " + m_source + ": " + layer.describe());
    }
    check_ports(layer, *node);
    if (!layer.outputs.empty() && layer.outputs[0].has_names)
        node->output(0).set_names(layer.outputs[0].names);
    return node;
}

// The IR's ports must agree with what inference produced: as many output ports as the op has
// outputs (Result and Assign may list none), and each port's dims and precision compatible
// with the inferred shape and type (-1 = dynamic; no dims = scalar or dynamic rank).
void IrReader::check_ports(const LayerInfo& layer, const Node& node) const {
    const size_t outputs = node.get_output_size();
    if (layer.outputs.size() != outputs &&
        !(layer.outputs.empty() && is_sink_like(node.get_type_name())))
        fail(layer.describe(), ": the IR lists ", layer.outputs.size(), " output ports, but ",
             node.get_type_name(), "-", node.get_version(), " has ", outputs, " outputs");
    auto check = [&](const PortInfo& port, const char* kind, const element::Type& type,
                     const PartialShape& shape) {
        const bool shape_ok = port.dims.empty() ? !shape.rank_is_static() || shape.size() == 0
                                                : PartialShape(port.dims).compatible(shape);
        if (!shape_ok)
            fail(layer.describe(), ": ", kind, " port id=", port.id, " has dims ",
                 dims_text(port.dims), " but the inferred shape is ", shape);
        if (port.precision.empty()) return;
        element::Type written;
        try {
            written = element::Type::from_name(trim(port.precision));
        } catch (const Exception& e) {
            fail(layer.describe(), ": ", kind, " port id=", port.id, ": precision: ", e.what());
        }
        if (written.is_static() && type.is_static() && written != type)
            fail(layer.describe(), ": ", kind, " port id=", port.id, " has precision ",
                 port.precision, " but the inferred element type is ", type, " (", type.precision(),
                 ")");
    };
    for (size_t i = 0; i < layer.outputs.size(); ++i)
        check(layer.outputs[i], "output", node.get_output_element_type(i),
              node.get_output_partial_shape(i));
    for (size_t i = 0; i < layer.inputs.size(); ++i) {
        const Output& source = node.input_value(i);
        check(layer.inputs[i], "input", source.get_element_type(), source.get_partial_shape());
    }
}

// IR v10 files name tensors by layer: give unnamed model inputs their Parameter's name and
// unnamed outputs both their Result's name and the producing layer's ("name.N" for output N of
// a multi-output layer), so get_tensor("layer name") works as it did with those files.
// Names are trimmed as the `names` attribute is, so that what the writer emits reads back the same.
void IrReader::apply_v10_names(const Model& model) const {
    const auto add = [](std::set<std::string>& names, std::string_view name) {
        name = trim(name);
        if (!name.empty()) names.emplace(name);
    };
    for (const auto& parameter : model.get_parameters()) {
        const Output out = parameter->output(0);
        if (!out.get_names().empty()) continue;
        std::set<std::string> names;
        add(names, parameter->get_friendly_name());
        if (!names.empty()) out.set_names(names);
    }
    for (const auto& result : model.get_results()) {
        const Output& source = result->input_value(0);
        if (!source.get_names().empty()) continue;
        std::string producer = source.get_node()->get_friendly_name();
        if (source.get_node()->get_output_size() > 1)
            producer += "." + std::to_string(source.get_index());
        std::set<std::string> names;
        add(names, result->get_friendly_name());
        add(names, producer);
        if (!names.empty()) source.set_names(names);
    }
}

}  // namespace vireo::ir
