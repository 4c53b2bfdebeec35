// Implements Node, the Output/Input handles and make_node().
#include "vireo/node.hpp"

#include <atomic>
#include <sstream>

#include "vireo/float16.hpp"
#include "vireo/model.hpp"
#include "vireo/op_registry.hpp"

namespace vireo {
namespace {

std::atomic<uint64_t> g_next_instance_id{0};

const char* attr_type_name(AttrType t) {
    switch (t) {
        case AttrType::kBool:
            return "bool";
        case AttrType::kInt:
            return "integer";
        case AttrType::kFloat:
            return "number";
        case AttrType::kString:
            return "string";
        case AttrType::kIntList:
            return "list of integers";
        case AttrType::kFloatList:
            return "list of numbers";
        case AttrType::kStringList:
            return "list of strings";
        case AttrType::kElementType:
            return "element type";
        case AttrType::kShape:
            return "shape";
    }
    return "?";
}

// Converts a value to the spec's type where the conversion is lossless and obvious (an int for a
// float attribute, a single int for a list); returns false if it does not fit.
bool coerce(AttrValue& value, AttrType type) {
    switch (type) {
        case AttrType::kBool:
            return std::holds_alternative<bool>(value);
        case AttrType::kInt:
            return std::holds_alternative<int64_t>(value);
        case AttrType::kFloat:
            if (auto* i = std::get_if<int64_t>(&value)) value = static_cast<double>(*i);
            return std::holds_alternative<double>(value);
        case AttrType::kString:
            return std::holds_alternative<std::string>(value);
        case AttrType::kIntList:
            if (auto* i = std::get_if<int64_t>(&value)) value = std::vector<int64_t>{*i};
            return std::holds_alternative<std::vector<int64_t>>(value);
        case AttrType::kFloatList:
            if (auto* f = std::get_if<double>(&value)) value = std::vector<double>{*f};
            if (auto* l = std::get_if<std::vector<int64_t>>(&value))
                value = std::vector<double>(l->begin(), l->end());
            return std::holds_alternative<std::vector<double>>(value);
        case AttrType::kStringList:
            return std::holds_alternative<std::vector<std::string>>(value);
        case AttrType::kElementType:
            return std::holds_alternative<element::Type>(value);
        case AttrType::kShape:
            return std::holds_alternative<PartialShape>(value);
    }
    return false;
}

template <typename T>
void append_values(const Tensor& t, std::vector<int64_t>& out) {
    const T* p = static_cast<const T*>(t.data());
    const size_t n = t.get_size();
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<int64_t>(static_cast<double>(p[i])));
}

template <>
void append_values<int64_t>(const Tensor& t, std::vector<int64_t>& out) {
    const int64_t* p = static_cast<const int64_t*>(t.data());
    out.assign(p, p + t.get_size());
}

}  // namespace

// ---- Output / Input ----

Output::Output(NodePtr node, size_t index) : m_node(std::move(node)), m_index(index) {
    if (m_node && index >= m_node->get_output_size())
        throw_error<InvalidArgument>(m_node->describe(), " has no output ", index, " (it has ",
                                     m_node->get_output_size(), ")");
}

const element::Type& Output::get_element_type() const {
    return get_tensor_desc()->type;
}
const PartialShape& Output::get_partial_shape() const {
    return get_tensor_desc()->shape;
}

Shape Output::get_shape() const {
    const auto& ps = get_partial_shape();
    if (!ps.is_static())
        throw_error<InvalidArgument>("output ", m_index, " of ", m_node->describe(),
                                     " has dynamic shape ", ps);
    return ps.to_shape();
}

const std::set<std::string>& Output::get_names() const {
    return get_tensor_desc()->names;
}

std::string Output::get_any_name() const {
    const auto& names = get_names();
    if (names.empty())
        throw_error<NotFound>("output ", m_index, " of ", m_node->describe(),
                              " has no tensor names");
    return *names.begin();
}

void Output::set_names(const std::set<std::string>& names) const {
    get_tensor_desc()->names = names;
}
void Output::add_names(const std::set<std::string>& names) const {
    get_tensor_desc()->names.insert(names.begin(), names.end());
}
RTMap& Output::get_rt_info() const {
    return get_tensor_desc()->rt_info;
}

const std::shared_ptr<TensorDesc>& Output::get_tensor_desc() const {
    if (!m_node) throw_error<InvalidArgument>("empty output handle");
    return m_node->output_desc_ptr(m_index);
}

const Output& Input::get_source_output() const {
    return m_node->input_value(m_index);
}
void Input::replace_source_output(const Output& source) const {
    m_node->set_argument(m_index, source);
}

// ---- Node ----

Node::Node(const OpDef& def, const OutputVector& inputs,
           std::map<std::string, AttrValue> attributes)
    : m_def(&def), m_instance_id(g_next_instance_id++), m_inputs(inputs) {
    for (size_t i = 0; i < inputs.size(); ++i)
        if (!inputs[i]) throw_error<InvalidArgument>(describe(), ": input ", i, " is empty");
    if (inputs.size() < def.min_inputs || inputs.size() > def.max_inputs) {
        throw_error<InvalidArgument>(
            describe(), ": takes ", def.min_inputs,
            def.min_inputs == def.max_inputs ? "" : ".." + std::to_string(def.max_inputs),
            " inputs, got ", inputs.size());
    }
    for (auto& [name, value] : attributes) {
        const AttrSpec* spec = def.find_attribute(name);
        if (!spec) throw_error<InvalidArgument>(describe(), ": unknown attribute '", name, "'");
        if (!coerce(value, spec->type))
            throw_error<InvalidArgument>(describe(), ": attribute '", name, "' must be a ",
                                         attr_type_name(spec->type), ", got '",
                                         attr_to_string(value), "'");
        if (!spec->choices.empty()) {
            const auto& s = std::get<std::string>(value);
            bool ok = false;
            for (const auto& c : spec->choices) ok = ok || c == s;
            if (!ok) {
                std::string allowed;
                for (const auto& c : spec->choices) allowed += (allowed.empty() ? "" : ", ") + c;
                throw_error<InvalidArgument>(describe(), ": attribute '", name, "' is '", s,
                                             "', expected one of: ", allowed);
            }
        }
    }
    for (const auto& spec : def.attributes) {
        if (attributes.count(spec.name)) continue;
        if (!spec.default_value)
            throw_error<InvalidArgument>(describe(), ": required attribute '", spec.name,
                                         "' is missing");
        attributes.emplace(spec.name, *spec.default_value);
    }
    m_attributes = std::move(attributes);
}

// Dropping m_inputs may release the last reference to an input node, whose destructor drops its
// inputs, and so on: a 300k-node chain overflows the stack that way. Instead, every input node
// this destructor holds the last reference to has its inputs taken over here before it dies, so
// each node's destructor finds nothing left to release. A node still referenced elsewhere is
// simply let go. (Like every graph change, destruction is single-threaded.)
Node::~Node() {
    std::vector<NodePtr> dying;
    auto release = [&dying](OutputVector& inputs) {
        for (auto& input : inputs) {
            NodePtr node = input.get_node_shared_ptr();
            input = Output();
            if (node && node.use_count() == 1) dying.push_back(std::move(node));
        }
        inputs.clear();
    };
    release(m_inputs);
    while (!dying.empty()) {
        NodePtr node = std::move(dying.back());
        dying.pop_back();
        release(node->m_inputs);
    }
}

const std::string& Node::get_type_name() const {
    return m_def->type;
}
int Node::get_version() const {
    return m_def->version;
}

const std::string& Node::get_friendly_name() const {
    if (m_friendly_name.empty())
        m_friendly_name = m_def->type + "_" + std::to_string(m_instance_id);
    return m_friendly_name;
}

std::string Node::describe() const {
    return m_def->type + " '" + get_friendly_name() + "'";
}

Input Node::input(size_t i) {
    if (i >= m_inputs.size()) throw_error<InvalidArgument>(describe(), " has no input ", i);
    return Input(this, i);
}

const Output& Node::input_value(size_t i) const {
    if (i >= m_inputs.size()) throw_error<InvalidArgument>(describe(), " has no input ", i);
    return m_inputs[i];
}

void Node::set_argument(size_t i, const Output& source) {
    if (i >= m_inputs.size()) throw_error<InvalidArgument>(describe(), " has no input ", i);
    if (!source) throw_error<InvalidArgument>(describe(), ": input ", i, " cannot be empty");
    m_inputs[i] = source;
}

Output Node::output(size_t i) {
    return Output(shared_from_this(), i);
}

OutputVector Node::outputs() {
    OutputVector out;
    for (size_t i = 0; i < m_outputs.size(); ++i) out.emplace_back(shared_from_this(), i);
    return out;
}

const TensorDesc& Node::get_output_desc(size_t i) const {
    if (i >= m_outputs.size()) throw_error<InvalidArgument>(describe(), " has no output ", i);
    return *m_outputs[i];
}

std::shared_ptr<TensorDesc>& Node::output_desc_ptr(size_t i) {
    if (i >= m_outputs.size()) throw_error<InvalidArgument>(describe(), " has no output ", i);
    return m_outputs[i];
}

Shape Node::get_output_shape(size_t i) const {
    const auto& ps = get_output_partial_shape(i);
    if (!ps.is_static())
        throw_error<InvalidArgument>("output ", i, " of ", describe(), " has dynamic shape ", ps);
    return ps.to_shape();
}

void Node::set_attribute(const std::string& name, AttrValue value) {
    const AttrSpec* spec = m_def->find_attribute(name);
    if (!spec) throw_error<InvalidArgument>(describe(), ": unknown attribute '", name, "'");
    if (!coerce(value, spec->type))
        throw_error<InvalidArgument>(describe(), ": attribute '", name, "' must be a ",
                                     attr_type_name(spec->type));
    m_attributes[name] = std::move(value);
}

void Node::validate_and_infer_types() {
    std::vector<InferInput> inputs;
    inputs.reserve(m_inputs.size());
    for (const auto& in : m_inputs) {
        InferInput info{in.get_element_type(), in.get_partial_shape(), {}};
        if (in.get_node()->get_type_name() == "Constant") info.value = in.get_node()->m_constant;
        inputs.push_back(std::move(info));
    }
    std::vector<InferOutput> outs;
    try {
        outs = m_def->infer(*this, inputs);
    } catch (const Exception& e) {
        const std::string what = e.what();
        if (what.find(get_friendly_name()) != std::string::npos) throw;
        rethrow_with_context(std::current_exception(), describe());
    }
    if (m_def->type == "Result") {
        // A Result's output is its input's tensor: same descriptor, so names show on both.
        m_outputs.assign(1, m_inputs.at(0).get_tensor_desc());
        return;
    }
    if (m_outputs.size() != outs.size()) {
        m_outputs.resize(outs.size());
    }
    for (size_t i = 0; i < outs.size(); ++i) {
        if (!m_outputs[i]) m_outputs[i] = std::make_shared<TensorDesc>();
        m_outputs[i]->type = outs[i].type;
        m_outputs[i]->shape = outs[i].shape;
    }
}

NodePtr Node::clone_with_new_inputs(const OutputVector& inputs) const {
    auto node = std::make_shared<Node>(*m_def, inputs, m_attributes);
    // The copy answers to the same name, a default one included (it derives from the instance
    // id, which the copy does not share): plugins report the caller's layer names.
    node->m_friendly_name = get_friendly_name();
    node->m_rt_info = m_rt_info;
    node->m_constant = m_constant;
    for (const auto& body : m_bodies) node->m_bodies.push_back(body->clone());
    node->validate_and_infer_types();
    if (m_def->type != "Result") {
        for (size_t i = 0; i < m_outputs.size() && i < node->m_outputs.size(); ++i) {
            node->m_outputs[i]->names = m_outputs[i]->names;
            node->m_outputs[i]->rt_info = m_outputs[i]->rt_info;
        }
    }
    return node;
}

const Tensor& Node::get_constant_value() const {
    if (m_def->type != "Constant") throw_error<InvalidArgument>(describe(), " is not a Constant");
    return m_constant;
}

void Node::set_constant_value(Tensor value) {
    if (m_def->type != "Constant") throw_error<InvalidArgument>(describe(), " is not a Constant");
    if (!value) throw_error<InvalidArgument>(describe(), ": a Constant needs a value");
    m_constant = std::move(value);
    validate_and_infer_types();
}

NodePtr make_node(const std::string& type, const OutputVector& inputs,
                  std::map<std::string, AttrValue> attributes, int version) {
    auto& registry = OpRegistry::instance();
    const OpDef* def = version < 0 ? &registry.latest(type) : registry.find(type, version);
    if (!def) throw_error<NotFound>("op ", type, " version ", version, " is not registered");
    auto node = std::make_shared<Node>(*def, inputs, std::move(attributes));
    node->validate_and_infer_types();
    return node;
}

NodePtr make_node(const std::string& type, const OutputVector& inputs,
                  std::map<std::string, AttrValue> attributes,
                  std::vector<std::shared_ptr<Model>> bodies, int version) {
    auto& registry = OpRegistry::instance();
    const OpDef* def = version < 0 ? &registry.latest(type) : registry.find(type, version);
    if (!def) throw_error<NotFound>("op ", type, " version ", version, " is not registered");
    auto node = std::make_shared<Node>(*def, inputs, std::move(attributes));
    node->set_bodies(std::move(bodies));
    node->validate_and_infer_types();
    return node;
}

std::optional<std::vector<int64_t>> InferInput::int_values() const {
    if (!value) return std::nullopt;
    std::vector<int64_t> out;
    switch (value.get_element_type().id()) {
        case element::TypeId::boolean:
        case element::TypeId::u8:
            append_values<uint8_t>(value, out);
            break;
        case element::TypeId::i8:
            append_values<int8_t>(value, out);
            break;
        case element::TypeId::u16:
            append_values<uint16_t>(value, out);
            break;
        case element::TypeId::i16:
            append_values<int16_t>(value, out);
            break;
        case element::TypeId::u32:
            append_values<uint32_t>(value, out);
            break;
        case element::TypeId::i32:
            append_values<int32_t>(value, out);
            break;
        case element::TypeId::u64:
            append_values<uint64_t>(value, out);
            break;
        case element::TypeId::i64:
            append_values<int64_t>(value, out);
            break;
        case element::TypeId::f16:
            append_values<float16>(value, out);
            break;
        case element::TypeId::bf16:
            append_values<bfloat16>(value, out);
            break;
        case element::TypeId::f32:
            append_values<float>(value, out);
            break;
        case element::TypeId::f64:
            append_values<double>(value, out);
            break;
        default:
            return std::nullopt;
    }
    return out;
}

namespace {
std::string join(const std::vector<int64_t>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s;
}
}  // namespace

std::string attr_to_string(const AttrValue& value) {
    struct Printer {
        std::string operator()(bool v) const { return v ? "true" : "false"; }
        std::string operator()(int64_t v) const { return std::to_string(v); }
        std::string operator()(double v) const {
            std::ostringstream out;
            out.precision(17);
            out << v;
            return out.str();
        }
        std::string operator()(const std::string& v) const { return v; }
        std::string operator()(const std::vector<int64_t>& v) const { return join(v); }
        std::string operator()(const std::vector<double>& v) const {
            std::string s;
            for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + (*this)(v[i]);
            return s;
        }
        std::string operator()(const std::vector<std::string>& v) const {
            std::string s;
            for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
            return s;
        }
        std::string operator()(const element::Type& t) const { return std::string(t.name()); }
        std::string operator()(const PartialShape& p) const {
            if (!p.rank_is_static()) return "...";
            std::string s;
            for (size_t i = 0; i < p.size(); ++i) s += (i ? "," : "") + p[i].to_string();
            return s;
        }
    };
    return std::visit(Printer{}, value);
}

}  // namespace vireo
