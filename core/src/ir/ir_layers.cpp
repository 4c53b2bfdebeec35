// Implements the XML side of IrReader: <layers>, <port>s, <edges> and net-level <rt_info>
// into LayerInfo tables, with every structural check that needs no op definition.
#include <tinyxml2.h>

#include <cstring>

#include "ir/ir_reader.hpp"
#include "ir/ir_text.hpp"

namespace vireo::ir {
namespace {

using tinyxml2::XMLElement;

std::string quoted(const char* text) {
    return text ? std::string("'") + text + "'" : std::string("(missing)");
}

std::string describe_edge(const XMLElement& edge, size_t index) {
    auto attr = [&](const char* name) {
        const char* v = edge.Attribute(name);
        return std::string(name) + "=" + (v ? v : "?");
    };
    return "edge #" + std::to_string(index) + " (" + attr("from-layer") + " " + attr("from-port") +
           " -> " + attr("to-layer") + " " + attr("to-port") + ")";
}

}  // namespace

std::string LayerInfo::describe() const {
    return "layer id=" + std::to_string(id) + " '" + name + "' (" + type + ")";
}

void IrReader::parse_layers(const XMLElement& layers) {
    size_t index = 0;
    for (const XMLElement* el = layers.FirstChildElement("layer"); el;
         el = el->NextSiblingElement("layer"), ++index) {
        LayerInfo layer;
        layer.element = el;
        const char* id = el->Attribute("id");
        const char* name = el->Attribute("name");
        layer.name = name ? name : "";
        if (!id || !parse_int64(id, layer.id))
            fail("layer #", index, " '", layer.name, "': attribute 'id' must be an integer, found ",
                 quoted(id));
        const char* type = el->Attribute("type");
        const char* version = el->Attribute("version");
        if (!type || !*type)
            fail("layer id=", layer.id, " '", layer.name, "': missing attribute 'type'");
        layer.type = type;
        if (!version || !*version)
            fail(layer.describe(),
                 ": missing attribute 'version' (an opset such as 'opset1', or a custom domain)");
        layer.version = version;
        if (auto [it, added] = m_index_of_id.emplace(layer.id, m_layers.size()); !added)
            fail("duplicate layer id=", layer.id, ": used by '", m_layers[it->second].name,
                 "' and '", layer.name, "'");

        for (bool output : {false, true}) {
            const XMLElement* section = el->FirstChildElement(output ? "output" : "input");
            if (!section) continue;
            for (const XMLElement* p = section->FirstChildElement("port"); p;
                 p = p->NextSiblingElement("port")) {
                PortInfo port = parse_port(*p, layer, output);
                auto& list = output ? layer.outputs : layer.inputs;
                if (!layer.ports.emplace(port.id, std::make_pair(output, list.size())).second)
                    fail(layer.describe(), ": duplicate port id=", port.id);
                list.push_back(std::move(port));
            }
        }
        layer.sources.assign(layer.inputs.size(), {kNoSource, 0});
        m_layers.push_back(std::move(layer));
    }
}

PortInfo IrReader::parse_port(const XMLElement& el, const LayerInfo& layer, bool output) const {
    PortInfo port;
    const char* kind = output ? "output port" : "input port";
    const char* id = el.Attribute("id");
    if (!id || !parse_int64(id, port.id))
        fail(layer.describe(), ": ", kind, " attribute 'id' must be an integer, found ",
             quoted(id));
    if (const char* precision = el.Attribute("precision")) port.precision = precision;
    if (const char* names = el.Attribute("names")) {
        port.has_names = true;
        port.names = parse_tensor_names(names);
    }
    for (const XMLElement* d = el.FirstChildElement("dim"); d; d = d->NextSiblingElement("dim")) {
        const char* text = d->GetText();
        int64_t value = 0;
        if (!text || !parse_int64(text, value))
            fail(layer.describe(), ": ", kind, " id=", port.id,
                 ": <dim> must be an integer, found ", quoted(text));
        if (value < -1)
            fail(layer.describe(), ": ", kind, " id=", port.id, ": <dim> ", value,
                 " is negative (a dimension is >= 0, or -1 for dynamic)");
        port.dims.emplace_back(value);
    }
    // The port's layout (other rt_info attributes of ports are not kept).
    if (const XMLElement* rt_info = el.FirstChildElement("rt_info")) {
        for (const XMLElement* a = rt_info->FirstChildElement("attribute"); a;
             a = a->NextSiblingElement("attribute")) {
            const char* name = a->Attribute("name");
            const char* layout = a->Attribute("layout");
            if (name && std::string(name) == "layout" && layout) port.layout = layout;
        }
    }
    return port;
}

void IrReader::parse_edges(const XMLElement* edges) {
    size_t index = 0;
    for (const XMLElement* el = edges ? edges->FirstChildElement("edge") : nullptr; el;
         el = el->NextSiblingElement("edge"), ++index) {
        int64_t from_layer = 0, from_port = 0, to_layer = 0, to_port = 0;
        const std::pair<const char*, int64_t*> fields[] = {{"from-layer", &from_layer},
                                                           {"from-port", &from_port},
                                                           {"to-layer", &to_layer},
                                                           {"to-port", &to_port}};
        for (const auto& [name, value] : fields) {
            const char* text = el->Attribute(name);
            if (!text || !parse_int64(text, *value))
                fail(describe_edge(*el, index), ": '", name, "' must be an integer, found ",
                     quoted(text));
        }
        const auto from = m_index_of_id.find(from_layer);
        if (from == m_index_of_id.end())
            fail(describe_edge(*el, index), ": there is no layer id=", from_layer);
        const auto to = m_index_of_id.find(to_layer);
        if (to == m_index_of_id.end())
            fail(describe_edge(*el, index), ": there is no layer id=", to_layer);
        const LayerInfo& source = m_layers[from->second];
        LayerInfo& target = m_layers[to->second];
        const auto out = source.ports.find(from_port);
        if (out == source.ports.end() || !out->second.first)
            fail(describe_edge(*el, index), ": ", source.describe(),
                 " has no output port id=", from_port);
        const auto in = target.ports.find(to_port);
        if (in == target.ports.end() || in->second.first)
            fail(describe_edge(*el, index), ": ", target.describe(),
                 " has no input port id=", to_port);
        auto& slot = target.sources[in->second.second];
        if (slot.first != kNoSource)
            fail(describe_edge(*el, index), ": input port id=", to_port, " of ", target.describe(),
                 " already has an incoming edge (from layer id=", m_layers[slot.first].id, ")");
        slot = {from->second, out->second.second};
    }
    for (const auto& layer : m_layers)
        for (size_t i = 0; i < layer.sources.size(); ++i)
            if (layer.sources[i].first == kNoSource)
                fail(layer.describe(), ": input port id=", layer.inputs[i].id,
                     " has no incoming edge");
}

// Net-level rt_info: <key value="v"/> becomes key -> "v"; nested elements become "outer/inner"
// keys; an element with neither a value nor children is an empty string. OpenVINO's
// <attribute name="k" value="v"/> form uses `name` as the key. Depth is bounded by tinyxml2's
// element depth limit, so this recursion is safe.
void IrReader::read_rt_info(const XMLElement& element, const std::string& prefix, RTMap& out,
                            size_t depth, size_t& bytes) const {
    if (depth >= kMaxRtInfoDepth)
        fail("<rt_info> line ", element.GetLineNum(), ": nested deeper than ", kMaxRtInfoDepth,
             " levels");
    for (const XMLElement* child = element.FirstChildElement(); child;
         child = child->NextSiblingElement()) {
        std::string key = child->Name();
        if (key == "attribute" && child->Attribute("name")) key = child->Attribute("name");
        if (!prefix.empty()) key = prefix + "/" + key;
        const char* value = child->Attribute("value");
        bytes += key.size() + (value ? std::strlen(value) : 0);
        if (bytes > kMaxRtInfoBytes)
            fail("<rt_info> line ", child->GetLineNum(), ": expands to more than ", kMaxRtInfoBytes,
                 " bytes of keys and values (each nested key repeats its parents' names)");
        if (value) {
            out[key] = std::string(value);
        } else if (!child->FirstChildElement()) {
            out[key] = std::string();
        }
        read_rt_info(*child, key, out, depth + 1, bytes);
    }
}

}  // namespace vireo::ir
