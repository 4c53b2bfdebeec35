// Implements Model: construction, topological order, validation, cloning and reshaping.
#include "vireo/model.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "vireo/op_registry.hpp"

namespace vireo {
namespace {

void check_type(const NodePtr& node, const char* type, const char* role) {
    if (!node) throw_error<InvalidArgument>("model: empty ", role);
    if (node->get_type_name() != type)
        throw_error<InvalidArgument>("model: ", node->describe(), " was given as a ", role,
                                     " but is not a ", type);
}

}  // namespace

Model::Model(const OutputVector& outputs, const ParameterVector& parameters,
             const std::string& name)
    : m_name(name), m_parameters(parameters) {
    for (const auto& out : outputs) {
        if (!out) throw_error<InvalidArgument>("model: empty output");
        if (out.get_node()->get_type_name() == "Result") {
            m_results.push_back(out.get_node_shared_ptr());
        } else {
            m_results.push_back(make_node("Result", {out}));
        }
    }
    for (const auto& p : m_parameters) check_type(p, "Parameter", "parameter");
    get_ordered_ops();  // checks parameters and cycles
}

Model::Model(const ResultVector& results, const SinkVector& sinks,
             const ParameterVector& parameters, const std::string& name)
    : m_name(name), m_parameters(parameters), m_results(results), m_sinks(sinks) {
    for (const auto& r : m_results) check_type(r, "Result", "result");
    for (const auto& p : m_parameters) check_type(p, "Parameter", "parameter");
    for (const auto& s : m_sinks)
        if (!s) throw_error<InvalidArgument>("model: empty sink");
    get_ordered_ops();
}

std::shared_ptr<Model> Model::make(const ResultVector& results, const SinkVector& sinks,
                                   const ParameterVector& parameters, const std::string& name) {
    auto model = std::make_shared<Model>(results, sinks, parameters, name);
    model->validate();
    return model;
}

OutputVector Model::inputs() const {
    OutputVector out;
    for (const auto& p : m_parameters) out.emplace_back(p, 0);
    return out;
}

OutputVector Model::outputs() const {
    OutputVector out;
    for (const auto& r : m_results) out.emplace_back(r, 0);
    return out;
}

Output Model::input(size_t i) const {
    if (i >= m_parameters.size())
        throw_error<NotFound>("model '", m_name, "' has no input ", i, " (it has ",
                              m_parameters.size(), ")");
    return Output(m_parameters[i], 0);
}

Output Model::output(size_t i) const {
    if (i >= m_results.size())
        throw_error<NotFound>("model '", m_name, "' has no output ", i, " (it has ",
                              m_results.size(), ")");
    return Output(m_results[i], 0);
}

namespace {
Output find_by_name(const OutputVector& ports, const std::string& name, const std::string& model,
                    const char* what) {
    std::string known;
    for (const auto& p : ports) {
        if (p.get_names().count(name)) return p;
        for (const auto& n : p.get_names()) known += (known.empty() ? "" : ", ") + n;
    }
    throw_error<NotFound>("model '", model, "' has no ", what, " named '", name, "' (", what,
                          "s: ", known.empty() ? "none named" : known, ")");
}
}  // namespace

Output Model::input(const std::string& name) const {
    return find_by_name(inputs(), name, m_name, "input");
}
Output Model::output(const std::string& name) const {
    return find_by_name(outputs(), name, m_name, "output");
}

NodeVector Model::get_ordered_ops() const {
    NodeVector order;
    std::unordered_map<const Node*, int> state;  // 1 = on stack, 2 = done
    for (const auto& p : m_parameters) {
        if (state[p.get()] == 2) continue;
        state[p.get()] = 2;
        order.push_back(p);
    }
    std::vector<NodePtr> roots(m_results.begin(), m_results.end());
    roots.insert(roots.end(), m_sinks.begin(), m_sinks.end());
    // Iterative DFS: each stack entry is a node and the next input to visit.
    std::vector<std::pair<Node*, size_t>> stack;
    std::unordered_map<const Node*, NodePtr> owner;
    for (const auto& root : roots) {
        if (state[root.get()] == 2) continue;
        owner[root.get()] = root;
        stack.emplace_back(root.get(), 0);
        state[root.get()] = 1;
        while (!stack.empty()) {
            auto& [node, next] = stack.back();
            if (next < node->get_input_size()) {
                const Output& src = node->input_value(next++);
                Node* child = src.get_node();
                int& s = state[child];
                if (s == 1)
                    throw_error<InvalidArgument>("model '", m_name, "' has a cycle through ",
                                                 child->describe());
                if (s == 0) {
                    if (child->get_type_name() == "Parameter")
                        throw_error<InvalidArgument>("model '", m_name, "' uses ",
                                                     child->describe(),
                                                     " which is not among its parameters");
                    s = 1;
                    owner[child] = src.get_node_shared_ptr();
                    stack.emplace_back(child, 0);
                }
            } else {
                state[node] = 2;
                order.push_back(owner[node]);
                stack.pop_back();
            }
        }
    }
    return order;
}

void Model::validate() {
    for (const auto& node : get_ordered_ops()) node->validate_and_infer_types();
}

std::shared_ptr<Model> Model::clone() const {
    std::unordered_map<const Node*, NodePtr> copies;
    for (const auto& node : get_ordered_ops()) {
        OutputVector inputs;
        for (const auto& in : node->input_values())
            inputs.emplace_back(copies.at(in.get_node()), in.get_index());
        copies[node.get()] = node->clone_with_new_inputs(inputs);
    }
    auto map_all = [&](const NodeVector& nodes) {
        NodeVector out;
        for (const auto& n : nodes) out.push_back(copies.at(n.get()));
        return out;
    };
    auto model = std::make_shared<Model>(map_all(m_results), map_all(m_sinks),
                                         map_all(m_parameters), m_name);
    model->m_rt_info = m_rt_info;
    model->m_so = m_so;
    return model;
}

void Model::reshape(const std::map<Output, PartialShape>& shapes) {
    std::map<Node*, PartialShape> previous;
    for (const auto& [port, shape] : shapes) {
        Node* node = port.get_node();
        if (!node || node->get_type_name() != "Parameter" ||
            std::none_of(m_parameters.begin(), m_parameters.end(),
                         [&](const NodePtr& p) { return p.get() == node; }))
            throw_error<NotFound>("reshape: the port is not an input of model '", m_name, "'");
        previous.emplace(node, node->get_attribute<PartialShape>("shape"));
        node->set_attribute("shape", shape);
    }
    try {
        validate();
    } catch (...) {
        for (auto& [node, shape] : previous) node->set_attribute("shape", shape);
        try {
            validate();
        } catch (...) {
        }
        throw;
    }
}

void Model::reshape(const std::map<std::string, PartialShape>& shapes) {
    std::map<Output, PartialShape> by_port;
    for (const auto& [name, shape] : shapes) by_port[input(name)] = shape;
    reshape(by_port);
}

void Model::reshape(const PartialShape& shape) {
    if (m_parameters.size() != 1)
        throw_error<InvalidArgument>("reshape(shape) needs a model with one input; model '", m_name,
                                     "' has ", m_parameters.size());
    reshape(std::map<Output, PartialShape>{{input(0), shape}});
}

std::vector<VariableInfo> Model::get_variables() const {
    std::map<std::string, VariableInfo> vars;
    for (const auto& node : get_ordered_ops()) {
        if (node->get_type_name() != "ReadValue") continue;
        const auto& id = node->get_attribute<std::string>("variable_id");
        vars[id] =
            VariableInfo{id, node->get_output_element_type(0), node->get_output_partial_shape(0)};
    }
    std::vector<VariableInfo> out;
    for (auto& [id, v] : vars) out.push_back(v);
    return out;
}

void Model::add_results(const ResultVector& results) {
    for (const auto& r : results) check_type(r, "Result", "result");
    m_results.insert(m_results.end(), results.begin(), results.end());
}

void Model::add_parameters(const ParameterVector& parameters) {
    for (const auto& p : parameters) check_type(p, "Parameter", "parameter");
    m_parameters.insert(m_parameters.end(), parameters.begin(), parameters.end());
}

void Model::add_sinks(const SinkVector& sinks) {
    m_sinks.insert(m_sinks.end(), sinks.begin(), sinks.end());
}

void Model::remove_result(const NodePtr& result) {
    m_results.erase(std::remove(m_results.begin(), m_results.end(), result), m_results.end());
}

void Model::remove_parameter(const NodePtr& parameter) {
    m_parameters.erase(std::remove(m_parameters.begin(), m_parameters.end(), parameter),
                       m_parameters.end());
}

}  // namespace vireo
