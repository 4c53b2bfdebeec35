// Implements fold_constants with the reference kernels' evaluate().
#include "constant_folding.hpp"

#include <map>

#include "vireo/ops.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::onnx_import {
namespace {

bool is_constant(const Output& v) {
    return v.get_node()->get_type_name() == "Constant";
}

// Ops never folded: graph boundaries and state.
bool never_folded(const std::string& type) {
    return type == "Parameter" || type == "Constant" || type == "Result" || type == "ReadValue" ||
           type == "Assign";
}

bool small_static_outputs(const Node& node) {
    for (size_t i = 0; i < node.get_output_size(); ++i) {
        const auto& shape = node.get_output_partial_shape(i);
        if (!shape.is_static() || !node.get_output_element_type(i).is_static()) return false;
        if (shape_size(shape.to_shape()) > kMaxFoldedElements) return false;
    }
    return true;
}

// The folded values of `node`, or an empty vector when it is not foldable.
std::vector<Tensor> try_fold(Node& node) {
    const std::string& type = node.get_type_name();
    if (never_folded(type)) return {};
    if (type == "ShapeOf") {
        const auto& shape = node.input_value(0).get_partial_shape();
        if (!shape.is_static()) return {};
        const auto dims = shape.to_shape();
        const element::Type t = node.get_output_element_type(0);
        std::vector<int64_t> values(dims.begin(), dims.end());
        return {op::constant<int64_t>(t, Shape{values.size()}, values)->get_constant_value()};
    }
    if (node.get_input_size() == 0) return {};
    std::vector<Tensor> inputs;
    for (const auto& in : node.input_values()) {
        if (!is_constant(in)) return {};
        inputs.push_back(in.get_node()->get_constant_value());
    }
    if (!small_static_outputs(node)) return {};
    try {
        return reference::evaluate(node, inputs);
    } catch (const InvalidArgument&) {
        throw;  // the constants themselves are wrong (an index out of range): the device would fail
    } catch (const Exception&) {
        return {};  // no kernel for this configuration: leave it to the device
    }
}

}  // namespace

OutputVector fold_constants(const OutputVector& outputs, const std::set<const Node*>& stop) {
    // Post-order walk from the outputs: producers before consumers.
    std::vector<Node*> order;
    std::set<const Node*> seen(stop.begin(), stop.end());
    std::vector<std::pair<Node*, size_t>> stack;
    for (const auto& out : outputs) {
        if (!out || seen.count(out.get_node())) continue;
        stack.emplace_back(out.get_node(), 0);
        seen.insert(out.get_node());
        while (!stack.empty()) {
            auto& [node, next] = stack.back();
            if (next < node->get_input_size()) {
                Node* producer = node->input_value(next++).get_node();
                if (!seen.count(producer)) {
                    seen.insert(producer);
                    stack.emplace_back(producer, 0);
                }
                continue;
            }
            order.push_back(node);
            stack.pop_back();
        }
    }
    std::map<Output, Output> replaced;
    for (Node* node : order) {
        bool changed = false;
        for (size_t i = 0; i < node->get_input_size(); ++i) {
            auto it = replaced.find(node->input_value(i));
            if (it != replaced.end()) {
                node->set_argument(i, it->second);
                changed = true;
            }
        }
        if (changed) node->validate_and_infer_types();
        std::vector<Tensor> values = try_fold(*node);
        if (values.size() != node->get_output_size()) continue;
        for (size_t i = 0; i < values.size(); ++i) {
            auto c = op::constant(values[i]);
            c->set_friendly_name(node->get_friendly_name() +
                                 (values.size() > 1 ? "/" + std::to_string(i) : ""));
            replaced[node->output(i)] = c->output(0);
        }
    }
    OutputVector result;
    for (const auto& out : outputs) {
        auto it = out ? replaced.find(out) : replaced.end();
        result.push_back(it == replaced.end() ? out : it->second);
    }
    return result;
}

}  // namespace vireo::onnx_import
