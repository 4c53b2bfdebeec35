// Implements IrWriter: layers in topological order, Constants packed into the .bin at 64-byte
// aligned offsets (identical bytes stored once), edges, and net-level rt_info.
#include "ir/ir_writer.hpp"

#include <tinyxml2.h>

#include <cstring>
#include <functional>
#include <map>
#include <string_view>

#include "ir/ir_text.hpp"
#include "vireo/op_registry.hpp"

namespace vireo::ir {
namespace {

using tinyxml2::XMLPrinter;

constexpr uint64_t kAlignment = 64;
// rt_info keys nest as elements up to this depth; deeper keys use the flat <attribute> form
// so that readers with an element-depth limit (tinyxml2: 100) can read the file back.
constexpr size_t kMaxRtInfoDepth = 16;

// The key Constants are grouped by to find byte-identical ones: their size and a hash of at most
// four 256-byte windows spread over their bytes. Hashing every byte was a full pass over the
// weights on each serialize, and models are serialized on every compile through a cache (for
// the key) and on every export. Identical Constants always share a key; a shared key is only a
// candidate, confirmed by memcmp, which stops at the first differing byte.
size_t dedup_key(const char* bytes, size_t size) {
    constexpr size_t kWindow = 256, kWindows = 4;
    size_t key = std::hash<size_t>{}(size);
    auto combine = [&key](std::string_view part) {
        key ^=
            std::hash<std::string_view>{}(part) + 0x9e3779b97f4a7c15ULL + (key << 6) + (key >> 2);
    };
    if (size <= kWindow * kWindows) {
        combine(std::string_view(bytes, size));
        return key;
    }
    for (size_t i = 0; i < kWindows; ++i)  // the first window starts the bytes, the last ends them
        combine(std::string_view(bytes + (size - kWindow) * i / (kWindows - 1), kWindow));
    return key;
}

void attribute(XMLPrinter& out, const char* name, const std::string& value) {
    out.PushAttribute(name, value.c_str());
}

// Dims as IR writes them: one <dim> per axis, -1 for any dynamic one (bounds are not kept);
// nothing for a dynamic rank.
void write_dims(XMLPrinter& out, const PartialShape& shape) {
    if (!shape.rank_is_static()) return;
    for (const auto& dim : shape) {
        out.OpenElement("dim");
        out.PushText(dim.is_static() ? std::to_string(dim.get_length()).c_str() : "-1");
        out.CloseElement();
    }
}

bool is_xml_name(std::string_view text) {
    if (text.empty()) return false;
    auto letter = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    };
    if (!letter(text.front())) return false;
    for (char c : text)
        if (!letter(c) && !(c >= '0' && c <= '9') && c != '-' && c != '.') return false;
    // Names starting with "xml" are reserved by XML.
    return !(text.size() >= 3 && (text[0] | 0x20) == 'x' && (text[1] | 0x20) == 'm' &&
             (text[2] | 0x20) == 'l');
}

// The rt_info keys as a tree of elements: "a/b" = v becomes <a><b value="v"/></a>.
struct RtNode {
    const std::string* value = nullptr;
    std::map<std::string, RtNode> children;
};

void write_rt_node(XMLPrinter& out, const std::string& name, const RtNode& node) {
    out.OpenElement(name.c_str());
    if (node.value) attribute(out, "value", *node.value);
    for (const auto& [child_name, child] : node.children) write_rt_node(out, child_name, child);
    out.CloseElement();
}

}  // namespace

void IrWriter::write(std::ostream& xml, std::ostream& bin) {
    m_bin = &bin;
    XMLPrinter out;
    out.PushHeader(false, true);
    out.OpenElement("net");
    attribute(out, "name", m_model.get_name());
    attribute(out, "version", "11");
    write_graph(out, m_model);
    write_rt_info(out);
    out.CloseElement();

    xml.write(out.CStr(),
              static_cast<std::streamsize>(out.CStrSize() - 1));  // CStrSize counts the NUL
    if (!xml)
        throw_error<InvalidArgument>("writing the IR XML of model '", m_model.get_name(),
                                     "' failed");
    if (!bin)
        throw_error<InvalidArgument>("writing the IR weights of model '", m_model.get_name(),
                                     "' failed");
}

// Layer ids are the position in the graph's topological order, so a body's ids start at 0 too.
void IrWriter::write_graph(XMLPrinter& out, const Model& model) {
    const NodeVector ops = model.get_ordered_ops();
    for (size_t i = 0; i < ops.size(); ++i) m_ids[ops[i].get()] = i;
    out.OpenElement("layers");
    for (size_t i = 0; i < ops.size(); ++i) write_layer(out, *ops[i], i);
    out.CloseElement();

    out.OpenElement("edges");
    for (size_t i = 0; i < ops.size(); ++i) {
        const Node& node = *ops[i];
        for (size_t port = 0; port < node.get_input_size(); ++port) {
            const Output& source = node.input_value(port);
            out.OpenElement("edge");
            attribute(out, "from-layer", std::to_string(m_ids.at(source.get_node())));
            attribute(out, "from-port",
                      std::to_string(source.get_node()->get_input_size() + source.get_index()));
            attribute(out, "to-layer", std::to_string(i));
            attribute(out, "to-port", std::to_string(port));
            out.CloseElement();
        }
    }
    out.CloseElement();
}

void IrWriter::write_layer(XMLPrinter& out, const Node& node, size_t id) {
    const bool constant = node.get_type_name() == "Constant";
    const OpDef& def = node.get_op_def();
    out.OpenElement("layer");
    attribute(out, "id", std::to_string(id));
    attribute(out, "name", node.get_friendly_name());
    attribute(out, "type", constant ? "Const" : node.get_type_name());
    attribute(out, "version",
              def.domain.empty() ? "opset" + std::to_string(def.version) : def.domain);
    const bool subgraph = !node.get_bodies().empty();
    if (constant) {
        write_constant_data(out, node);
    } else if (!node.get_attributes().empty() && !subgraph) {  // a sub-graph op's are its port maps
        out.OpenElement("data");
        for (const auto& [name, value] : node.get_attributes())
            attribute(out, name.c_str(), attr_to_string(value));
        out.CloseElement();
    }
    const size_t inputs = node.get_input_size();
    if (inputs > 0) {
        out.OpenElement("input");
        for (size_t i = 0; i < inputs; ++i) {
            const Output& source = node.input_value(i);
            out.OpenElement("port");
            attribute(out, "id", std::to_string(i));
            attribute(out, "precision", std::string(source.get_element_type().precision()));
            write_dims(out, source.get_partial_shape());
            out.CloseElement();
        }
        out.CloseElement();
    }
    // A Result's output is its input's tensor; IR lists no output port for it.
    if (node.get_type_name() != "Result" && node.get_output_size() > 0) {
        out.OpenElement("output");
        for (size_t i = 0; i < node.get_output_size(); ++i) {
            const TensorDesc& desc = node.get_output_desc(i);
            out.OpenElement("port");
            attribute(out, "id", std::to_string(inputs + i));
            attribute(out, "precision", std::string(desc.type.precision()));
            if (!desc.names.empty()) attribute(out, "names", format_tensor_names(desc.names));
            write_dims(out, desc.shape);
            // The port's layout, as IR v11 writes it (other port rt_info is not serialized).
            if (auto layout = desc.rt_info.find("layout"); layout != desc.rt_info.end()) {
                out.OpenElement("rt_info");
                out.OpenElement("attribute");
                attribute(out, "name", "layout");
                attribute(out, "version", "0");
                attribute(out, "layout", layout->second.to_string());
                out.CloseElement();
                out.CloseElement();
            }
            out.CloseElement();
        }
        out.CloseElement();
    }
    if (subgraph) write_subgraph(out, node);
    out.CloseElement();
}

void IrWriter::write_constant_data(XMLPrinter& out, const Node& node) {
    Tensor value = node.get_constant_value();
    if (!value)
        throw_error<InvalidArgument>("cannot serialize ", node.describe(), ": it has no value");
    if (value.is_remote())
        throw_error<InvalidArgument>("cannot serialize ", node.describe(),
                                     ": its value is a remote tensor");
    if (!value.is_continuous()) value = value.clone();
    const uint64_t size = value.get_byte_size();
    const uint64_t offset = size == 0 ? 0 : place_constant(value);
    std::string shape;
    for (size_t i = 0; i < value.get_shape().size(); ++i)
        shape += (i ? "," : "") + std::to_string(value.get_shape()[i]);
    out.OpenElement("data");
    attribute(out, "element_type", std::string(value.get_element_type().name()));
    attribute(out, "shape", shape);
    attribute(out, "offset", std::to_string(offset));
    attribute(out, "size", std::to_string(size));
    out.CloseElement();
}

uint64_t IrWriter::place_constant(const Tensor& value) {
    const size_t size = value.get_byte_size();
    const char* bytes = static_cast<const char*>(value.data());
    auto& candidates = m_placed[dedup_key(bytes, size)];
    for (const auto& placed : candidates)
        if (placed.value.get_byte_size() == size &&
            std::memcmp(placed.value.data(), bytes, size) == 0)
            return placed.offset;
    static const char kZeros[kAlignment] = {};
    const uint64_t offset = (m_bin_size + kAlignment - 1) / kAlignment * kAlignment;
    m_bin->write(kZeros, static_cast<std::streamsize>(offset - m_bin_size));
    m_bin->write(bytes, static_cast<std::streamsize>(size));
    m_bin_size = offset + size;
    candidates.push_back({offset, value});
    return offset;
}

// Model rt_info as nested elements ("a/b" -> <a><b value=".."/></a>), values as text. "version"
// is the IR version, written on <net> and set again by the reader; keys starting with "__" are the
// process's own bookkeeping (such as "__source_files", the files the model was read from) and
// are not written. Keys that are not XML names
// (or nest too deep) use OpenVINO's <attribute name="key" value=".."/> form.
void IrWriter::write_rt_info(XMLPrinter& out) const {
    const auto& rt_info = m_model.get_rt_info();
    std::map<std::string, std::string> values;
    for (const auto& [key, value] : rt_info)
        if (key != "version" && key.rfind("__", 0) != 0) values.emplace(key, value.to_string());
    if (values.empty()) return;
    RtNode root;
    std::vector<std::pair<const std::string*, const std::string*>> flat;
    for (const auto& [key, value] : values) {
        std::vector<std::string> parts;
        size_t start = 0;
        while (true) {
            const size_t slash = key.find('/', start);
            parts.push_back(
                key.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
            if (slash == std::string::npos) break;
            start = slash + 1;
        }
        bool nestable = parts.size() <= kMaxRtInfoDepth && parts.front() != "attribute";
        for (const auto& part : parts) nestable = nestable && is_xml_name(part);
        if (!nestable) {
            flat.emplace_back(&key, &value);
            continue;
        }
        RtNode* node = &root;
        for (const auto& part : parts) node = &node->children[part];
        node->value = &value;
    }
    out.OpenElement("rt_info");
    for (const auto& [name, child] : root.children) write_rt_node(out, name, child);
    for (const auto& [key, value] : flat) {
        out.OpenElement("attribute");
        attribute(out, "name", *key);
        attribute(out, "value", *value);
        out.CloseElement();
    }
    out.CloseElement();
}

}  // namespace vireo::ir
