// Implements NodeContext's attribute getters and constant-input helpers.
#include "node_context.hpp"

#include <type_traits>

#include "graph_importer.hpp"
#include "tensor_proto.hpp"
#include "vireo/op_registry.hpp"

namespace vireo::onnx_import {

using AP = onnx::AttributeProto;

NodeContext::NodeContext(const onnx::NodeProto& node, OutputVector inputs, int64_t opset,
                         GraphImporter& graph)
    : m_node(node), m_inputs(std::move(inputs)), m_opset(opset), m_graph(graph) {}

std::string NodeContext::name() const {
    if (!m_node.name().empty()) return m_node.name();
    for (const auto& out : m_node.output())
        if (!out.empty()) return out;
    return m_node.op_type();
}

std::string NodeContext::describe() const {
    std::string d =
        m_node.domain().empty() ? m_node.op_type() : m_node.domain() + "." + m_node.op_type();
    return d + "-" + std::to_string(m_opset) + " '" + name() + "'";
}

const Output& NodeContext::input(size_t i) const {
    if (!has_input(i)) fail("input ", i, " is required but missing");
    return m_inputs[i];
}

const AP* NodeContext::find(const std::string& name) const {
    for (const auto& a : m_node.attribute())
        if (a.name() == name) return &a;
    return nullptr;
}

const AP& NodeContext::expect(const std::string& name, AP::AttributeType type) const {
    const AP* a = find(name);
    if (!a) fail("attribute '", name, "' is required");
    // Old exporters leave `type` unset; accept that when the matching field is filled.
    if (a->type() != type && a->type() != AP::UNDEFINED)
        fail("attribute '", name, "' has type ", AP::AttributeType_Name(a->type()), ", expected ",
             AP::AttributeType_Name(type));
    return *a;
}

int64_t NodeContext::attr_int(const std::string& name, int64_t fallback) const {
    return has_attribute(name) ? attr_int(name) : fallback;
}
int64_t NodeContext::attr_int(const std::string& name) const {
    return expect(name, AP::INT).i();
}

double NodeContext::attr_float(const std::string& name, double fallback) const {
    const AP* a = find(name);
    if (!a) return fallback;
    if (a->type() == AP::INT) return static_cast<double>(a->i());
    return expect(name, AP::FLOAT).f();
}

std::string NodeContext::attr_string(const std::string& name, const std::string& fallback) const {
    return has_attribute(name) ? expect(name, AP::STRING).s() : fallback;
}

std::vector<int64_t> NodeContext::attr_ints(const std::string& name,
                                            const std::vector<int64_t>& fallback) const {
    if (!has_attribute(name)) return fallback;
    const auto& a = expect(name, AP::INTS);
    return {a.ints().begin(), a.ints().end()};
}

std::vector<double> NodeContext::attr_floats(const std::string& name,
                                             const std::vector<double>& fallback) const {
    if (!has_attribute(name)) return fallback;
    const auto& a = expect(name, AP::FLOATS);
    return {a.floats().begin(), a.floats().end()};
}

Tensor NodeContext::attr_tensor(const std::string& name) const {
    const auto& a = expect(name, AP::TENSOR);
    return m_graph.tensor(a.t(), describe() + " attribute '" + name + "'");
}

const onnx::GraphProto* NodeContext::attr_graph(const std::string& name) const {
    const AP* a = find(name);
    return a && a->has_g() ? &a->g() : nullptr;
}

std::optional<std::vector<int64_t>> NodeContext::const_ints(size_t i) const {
    return has_input(i) ? constant_ints(m_inputs[i]) : std::nullopt;
}
std::optional<std::vector<double>> NodeContext::const_floats(size_t i) const {
    return has_input(i) ? constant_floats(m_inputs[i]) : std::nullopt;
}

namespace {
template <typename T>
std::optional<std::vector<T>> constant_values(const Output& value) {
    if (!value || value.get_node()->get_type_name() != "Constant") return std::nullopt;
    const Tensor& t = value.get_node()->get_constant_value();
    const size_t n = shape_size(t.get_shape());
    std::vector<T> out(n);
    const void* p = t.data();
    for (size_t i = 0; i < n; ++i) {
        switch (t.get_element_type().id()) {
            case element::TypeId::i64:
                out[i] = static_cast<T>(static_cast<const int64_t*>(p)[i]);
                break;
            case element::TypeId::i32:
                out[i] = static_cast<T>(static_cast<const int32_t*>(p)[i]);
                break;
            case element::TypeId::u64:
                out[i] = static_cast<T>(static_cast<const uint64_t*>(p)[i]);
                break;
            case element::TypeId::u32:
                out[i] = static_cast<T>(static_cast<const uint32_t*>(p)[i]);
                break;
            case element::TypeId::i16:
                out[i] = static_cast<T>(static_cast<const int16_t*>(p)[i]);
                break;
            case element::TypeId::i8:
                out[i] = static_cast<T>(static_cast<const int8_t*>(p)[i]);
                break;
            case element::TypeId::u8:
                out[i] = static_cast<T>(static_cast<const uint8_t*>(p)[i]);
                break;
            case element::TypeId::boolean:
                out[i] = static_cast<T>(static_cast<const bool*>(p)[i]);
                break;
            case element::TypeId::f32:
            case element::TypeId::f64: {
                const double v = t.get_element_type() == element::f32
                                     ? static_cast<const float*>(p)[i]
                                     : static_cast<const double*>(p)[i];
                // A real that does not fit the integer type is not a usable integer constant.
                if constexpr (std::is_integral_v<T>)
                    if (!(v >= -9.2e18 && v <= 9.2e18)) return std::nullopt;
                out[i] = static_cast<T>(v);
                break;
            }
            default:
                return std::nullopt;
        }
    }
    return out;
}
}  // namespace

std::optional<std::vector<int64_t>> constant_ints(const Output& value) {
    return constant_values<int64_t>(value);
}
std::optional<std::vector<double>> constant_floats(const Output& value) {
    return constant_values<double>(value);
}

}  // namespace vireo::onnx_import
