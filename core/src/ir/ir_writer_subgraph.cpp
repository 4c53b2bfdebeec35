// Implements IrWriter::write_subgraph: an If's or Loop's port maps (<then_port_map>,
// <else_port_map> or <port_map>), back edges and bodies, in OpenVINO's IR form.
#include <tinyxml2.h>

#include "ir/ir_writer.hpp"

namespace vireo::ir {
namespace {

using tinyxml2::XMLPrinter;
constexpr size_t kSliceFields = 5;  // axis, start, stride, end, part_size

void attribute(XMLPrinter& out, const char* name, int64_t value) {
    out.PushAttribute(name, std::to_string(value).c_str());
}

size_t index_of(const NodeVector& ops, const NodePtr& node) {
    for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i] == node) return i;
    throw_error<InvalidArgument>("cannot serialize: ", node->describe(), " is not in its body");
}

void write_slicing(XMLPrinter& out, const std::vector<int64_t>& slicing, size_t port) {
    if (slicing.empty() || slicing[port * kSliceFields] < 0) return;
    const char* names[kSliceFields] = {"axis", "start", "stride", "end", "part_size"};
    for (size_t f = 0; f < kSliceFields; ++f)
        attribute(out, names[f], slicing[port * kSliceFields + f]);
}

// One <input>/<output> entry; the purpose (Loop's special ports) replaces an external port id.
void write_entry(XMLPrinter& out, const char* kind, int64_t external, size_t internal,
                 const char* purpose = nullptr) {
    out.OpenElement(kind);
    attribute(out, "external_port_id", external);
    attribute(out, "internal_layer_id", static_cast<int64_t>(internal));
    if (purpose) out.PushAttribute("purpose", purpose);
}

}  // namespace

void IrWriter::write_subgraph(XMLPrinter& out, const Node& node) {
    const auto& bodies = node.get_bodies();
    const auto outputs_base =
        static_cast<int64_t>(node.get_input_size());  // output port ids follow the inputs
    auto ints = [&](const char* name) { return node.get_attribute<std::vector<int64_t>>(name); };
    if (node.get_type_name() == "If") {
        // XMLPrinter keeps the element name's pointer until the element closes: literals only.
        const char* sides[2] = {"then", "else"};
        const char* maps[2] = {"then_port_map", "else_port_map"};
        const char* tags[2] = {"then_body", "else_body"};
        for (size_t b = 0; b < 2; ++b) {
            const Model& body = *bodies.at(b);
            const NodeVector ops = body.get_ordered_ops();
            const std::string side = sides[b];
            out.OpenElement(maps[b]);
            const auto in_map = ints((side + "_inputs").c_str());
            for (size_t p = 0; p < in_map.size(); ++p) {
                write_entry(out, "input", in_map[p], index_of(ops, body.get_parameters()[p]));
                out.CloseElement();
            }
            const auto out_map = ints((side + "_outputs").c_str());
            for (size_t o = 0; o < out_map.size(); ++o) {
                write_entry(out, "output", outputs_base + static_cast<int64_t>(o),
                            index_of(ops, body.get_results().at(static_cast<size_t>(out_map[o]))));
                out.CloseElement();
            }
            out.CloseElement();
        }
        for (size_t b = 0; b < 2; ++b) {
            out.OpenElement(tags[b]);
            write_graph(out, *bodies[b]);
            out.CloseElement();
        }
        return;
    }
    // Loop
    const Model& body = *bodies.at(0);
    const NodeVector ops = body.get_ordered_ops();
    const auto ports = ints("input_ports");
    const auto back = ints("back_edges");
    const auto in_slicing = ints("input_slicing");
    const auto results = ints("output_results");
    const auto out_slicing = ints("output_slicing");
    const int64_t iter_idx = node.get_attribute<int64_t>("current_iteration_input_idx");
    const int64_t cond_idx = node.get_attribute<int64_t>("body_condition_output_idx");
    out.OpenElement("port_map");
    for (size_t p = 0; p < ports.size(); ++p) {
        const size_t layer = index_of(ops, body.get_parameters()[p]);
        if (static_cast<int64_t>(p) == iter_idx) {
            write_entry(out, "input", -1, layer, "current_iteration");
        } else {
            write_entry(out, "input", ports[p], layer);
            write_slicing(out, in_slicing, p);
        }
        out.CloseElement();
    }
    for (size_t o = 0; o < results.size(); ++o) {
        write_entry(out, "output", outputs_base + static_cast<int64_t>(o),
                    index_of(ops, body.get_results().at(static_cast<size_t>(results[o]))));
        write_slicing(out, out_slicing, o);
        out.CloseElement();
    }
    if (cond_idx >= 0) {
        write_entry(out, "output", -1,
                    index_of(ops, body.get_results().at(static_cast<size_t>(cond_idx))),
                    "execution_condition");
        out.CloseElement();
    }
    out.CloseElement();
    out.OpenElement("back_edges");
    for (size_t p = 0; p < back.size(); ++p) {
        if (back[p] < 0) continue;
        out.OpenElement("edge");
        attribute(out, "from-layer",
                  static_cast<int64_t>(
                      index_of(ops, body.get_results().at(static_cast<size_t>(back[p])))));
        attribute(out, "to-layer", static_cast<int64_t>(index_of(ops, body.get_parameters()[p])));
        out.CloseElement();
    }
    out.CloseElement();
    out.OpenElement("body");
    write_graph(out, body);
    out.CloseElement();
}

}  // namespace vireo::ir
