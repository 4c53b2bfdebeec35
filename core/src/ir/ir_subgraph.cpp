// Implements IrReader::read_subgraph: an If's or Loop's bodies (<then_body>/<else_body> or
// <body>, each read like a <net>) and its port maps and back edges as port-map attributes.
#include <tinyxml2.h>

#include "ir/ir_reader.hpp"
#include "ir/ir_text.hpp"

namespace vireo::ir {
namespace {

using tinyxml2::XMLElement;
using IdMap = std::unordered_map<int64_t, NodePtr>;

// Position of the node with layer id `id` among `nodes` (a body's Parameters or Results).
template <typename Fail>
size_t position(const IdMap& by_id, const NodeVector& nodes, int64_t id, const char* kind,
                const Fail& fail) {
    const auto it = by_id.find(id);
    if (it != by_id.end())
        for (size_t i = 0; i < nodes.size(); ++i)
            if (nodes[i] == it->second) return i;
    fail("internal_layer_id ", id, " is not a ", kind, " layer of the body");
    return 0;
}

}  // namespace

std::vector<std::shared_ptr<Model>> IrReader::read_subgraph(
    const LayerInfo& layer, std::map<std::string, AttrValue>& attributes) const {
    auto fail_here = [&](auto&&... args) { fail(layer.describe(), ": ", args...); };
    auto integer = [&](const XMLElement& el, const char* name, int64_t fallback, bool required) {
        const char* text = el.Attribute(name);
        int64_t value = fallback;
        if (!text) {
            if (required) fail_here("<", el.Name(), "> has no '", name, "' attribute");
            return value;
        }
        if (!parse_int64(text, value))
            fail_here("<", el.Name(), "> attribute '", name, "' must be an integer, found '", text,
                      "'");
        return value;
    };
    // Port id -> input or output index of this layer.
    auto port_index = [&](int64_t port, bool output) {
        const auto it = layer.ports.find(port);
        if (it == layer.ports.end() || it->second.first != output)
            fail_here("external_port_id ", port, " is not an ", output ? "output" : "input",
                      " port of the layer");
        return static_cast<int64_t>(it->second.second);
    };
    auto read_body = [&](const char* tag, IdMap& by_id) {
        const XMLElement* el = layer.element->FirstChildElement(tag);
        if (!el) fail_here("has no <", tag, ">");
        IrReader body_reader(m_source + ", <" + tag + "> of " + layer.describe(), m_weights);
        body_reader.m_version = m_version;
        return body_reader.build_graph(*el, layer.name + "/" + tag, &by_id);
    };
    auto slicing = [&](const XMLElement& el, std::vector<int64_t>& out, size_t port) {
        if (!el.Attribute("axis")) return;
        const int64_t fields[5] = {integer(el, "axis", -1, true), integer(el, "start", 0, false),
                                   integer(el, "stride", 1, false), integer(el, "end", -1, false),
                                   integer(el, "part_size", 1, false)};
        std::copy(fields, fields + 5, out.begin() + static_cast<std::ptrdiff_t>(port * 5));
    };

    if (layer.type == "If") {
        std::vector<std::shared_ptr<Model>> bodies;
        for (const std::string side : {"then", "else"}) {
            IdMap by_id;
            auto body = read_body((side + "_body").c_str(), by_id);
            const XMLElement* map = layer.element->FirstChildElement((side + "_port_map").c_str());
            if (!map) fail_here("has no <", side, "_port_map>");
            std::vector<int64_t> ins(body->get_parameters().size(), -1);
            std::vector<int64_t> outs(layer.outputs.size(), -1);
            for (const XMLElement* e = map->FirstChildElement("input"); e;
                 e = e->NextSiblingElement("input"))
                ins[position(by_id, body->get_parameters(),
                             integer(*e, "internal_layer_id", 0, true), "Parameter", fail_here)] =
                    port_index(integer(*e, "external_port_id", 0, true), false);
            for (const XMLElement* e = map->FirstChildElement("output"); e;
                 e = e->NextSiblingElement("output"))
                outs[static_cast<size_t>(
                    port_index(integer(*e, "external_port_id", 0, true), true))] =
                    static_cast<int64_t>(position(by_id, body->get_results(),
                                                  integer(*e, "internal_layer_id", 0, true),
                                                  "Result", fail_here));
            for (size_t p = 0; p < ins.size(); ++p)
                if (ins[p] < 0)
                    fail_here("<", side, "_port_map> maps no input to body Parameter ", p);
            for (size_t o = 0; o < outs.size(); ++o)
                if (outs[o] < 0)
                    fail_here("<", side, "_port_map> maps no body Result to output ", o);
            attributes[side + "_inputs"] = ins;
            attributes[side + "_outputs"] = outs;
            bodies.push_back(std::move(body));
        }
        return bodies;
    }

    // Loop
    IdMap by_id;
    auto body = read_body("body", by_id);
    const size_t params = body->get_parameters().size();
    const XMLElement* map = layer.element->FirstChildElement("port_map");
    if (!map) fail_here("has no <port_map>");
    // A port that is not sliced reads as the defaults: axis -1, start 0, stride 1, end -1, part 1.
    const int64_t unsliced[5] = {-1, 0, 1, -1, 1};
    std::vector<int64_t> ports(params, -2), in_slicing, back(params, -1);
    std::vector<int64_t> results(layer.outputs.size(), -1), out_slicing;
    for (size_t p = 0; p < params; ++p) in_slicing.insert(in_slicing.end(), unsliced, unsliced + 5);
    for (size_t o = 0; o < results.size(); ++o)
        out_slicing.insert(out_slicing.end(), unsliced, unsliced + 5);
    int64_t iter_idx = -1, cond_idx = -1;
    for (const XMLElement* e = map->FirstChildElement("input"); e;
         e = e->NextSiblingElement("input")) {
        const size_t p =
            position(by_id, body->get_parameters(), integer(*e, "internal_layer_id", 0, true),
                     "Parameter", fail_here);
        const char* purpose = e->Attribute("purpose");
        const int64_t external = integer(*e, "external_port_id", -1, false);
        if ((purpose && std::string(purpose) == "current_iteration") || external < 0) {
            iter_idx = static_cast<int64_t>(p);
            ports[p] = -1;
            continue;
        }
        ports[p] = port_index(external, false);
        slicing(*e, in_slicing, p);
    }
    for (const XMLElement* e = map->FirstChildElement("output"); e;
         e = e->NextSiblingElement("output")) {
        const auto r = static_cast<int64_t>(position(by_id, body->get_results(),
                                                     integer(*e, "internal_layer_id", 0, true),
                                                     "Result", fail_here));
        const char* purpose = e->Attribute("purpose");
        const int64_t external = integer(*e, "external_port_id", -1, false);
        if ((purpose && std::string(purpose) == "execution_condition") || external < 0) {
            cond_idx = r;
            continue;
        }
        const auto o = static_cast<size_t>(port_index(external, true));
        results[o] = r;
        slicing(*e, out_slicing, o);
    }
    if (const XMLElement* edges = layer.element->FirstChildElement("back_edges"))
        for (const XMLElement* e = edges->FirstChildElement("edge"); e;
             e = e->NextSiblingElement("edge"))
            back[position(by_id, body->get_parameters(), integer(*e, "to-layer", 0, true),
                          "Parameter", fail_here)] =
                static_cast<int64_t>(position(by_id, body->get_results(),
                                              integer(*e, "from-layer", 0, true), "Result",
                                              fail_here));
    for (size_t p = 0; p < params; ++p)
        if (ports[p] == -2) fail_here("<port_map> maps no input to body Parameter ", p);
    for (size_t o = 0; o < results.size(); ++o)
        if (results[o] < 0) fail_here("<port_map> maps no body Result to output ", o);
    bool any_in = false, any_out = false, any_back = false;
    for (size_t p = 0; p < params; ++p) any_in = any_in || in_slicing[p * 5] >= 0;
    for (size_t o = 0; o < results.size(); ++o) any_out = any_out || out_slicing[o * 5] >= 0;
    for (int64_t b : back) any_back = any_back || b >= 0;
    attributes["current_iteration_input_idx"] = iter_idx;
    attributes["body_condition_output_idx"] = cond_idx;
    attributes["input_ports"] = ports;
    attributes["back_edges"] = any_back ? back : std::vector<int64_t>{};
    attributes["input_slicing"] = any_in ? in_slicing : std::vector<int64_t>{};
    attributes["output_results"] = results;
    attributes["output_slicing"] = any_out ? out_slicing : std::vector<int64_t>{};
    return {std::move(body)};
}

}  // namespace vireo::ir
