// Implements constant folding and dead-code removal for the TEMPLATE plugin.
#include "transformations.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "vireo/ops.hpp"
#include "vireo/reference/kernel.hpp"
#include "vireo/sdk/memory_limits.hpp"

namespace vireo::template_plugin {
namespace {

using Consumers = std::map<std::pair<const Node*, size_t>, std::vector<std::pair<Node*, size_t>>>;

bool is_boundary_or_stateful(const std::string& type) {
    return type == "Parameter" || type == "Constant" || type == "Result" || type == "ReadValue" ||
           type == "Assign";
}

// The original layer names a node stands for: its own rt_info entry if it was folded before,
// else its friendly name.
std::string original_names(const Node& node) {
    auto it = node.get_rt_info().find(kOriginalLayersNames);
    if (it != node.get_rt_info().end()) return it->second.as<std::string>();
    return node.get_friendly_name();
}

// The value ShapeOf produces for a static shape, in the node's output type (i32 or i64).
Tensor shape_value(const Node& shape_of, const Shape& shape) {
    const element::Type type = shape_of.get_output_element_type(0);
    Tensor value(type, Shape{shape.size()});
    for (size_t i = 0; i < shape.size(); ++i) {
        if (type == element::i32) {
            value.data<int32_t>()[i] = static_cast<int32_t>(shape[i]);
        } else {
            value.data<int64_t>()[i] = static_cast<int64_t>(shape[i]);
        }
    }
    return value;
}

// Replaces every use of output `index` of `node` by a new Constant holding `value`.
void replace_with_constant(Node& node, size_t index, const Tensor& value, const std::string& names,
                           Consumers& consumers) {
    NodePtr constant = op::constant(value);
    constant->set_friendly_name(node.get_output_size() == 1
                                    ? node.get_friendly_name()
                                    : node.get_friendly_name() + "." + std::to_string(index));
    constant->get_rt_info()[kOriginalLayersNames] = names;
    const Output folded(node.shared_from_this(), index);
    Output replacement(constant, 0);
    replacement.set_names(folded.get_names());
    replacement.get_rt_info() = folded.get_rt_info();
    auto& uses = consumers[{&node, index}];
    for (auto& [consumer, input] : uses) {
        consumer->set_argument(input, replacement);
        consumers[{constant.get(), 0}].emplace_back(consumer, input);
    }
    uses.clear();
}

}  // namespace

size_t folding_budget_bytes() {
    return std::min<size_t>(size_t{256} << 20, sdk::physical_memory_bytes() / 8);
}

TransformStats transform_model(Model& model) {
    TransformStats stats;
    size_t budget_left = folding_budget_bytes();
    const NodeVector before = model.get_ordered_ops();
    Consumers consumers;
    for (const auto& node : before)
        for (size_t i = 0; i < node->get_input_size(); ++i) {
            const Output& src = node->input_value(i);
            consumers[{src.get_node(), src.get_index()}].emplace_back(node.get(), i);
        }

    for (const auto& node : before) {
        const std::string& type = node->get_type_name();
        if (is_boundary_or_stateful(type)) continue;
        if (type == "ShapeOf") {
            const PartialShape& shape = node->input_value(0).get_partial_shape();
            if (!shape.is_static() || !node->get_output_element_type(0).is_integral_number())
                continue;
            replace_with_constant(*node, 0, shape_value(*node, shape.to_shape()),
                                  original_names(*node), consumers);
            ++stats.folded;
            continue;
        }
        if (node->get_input_size() == 0) continue;
        std::vector<Tensor> inputs;
        std::string names = original_names(*node);
        bool all_constant = true;
        for (const auto& in : node->input_values()) {
            Node* src = in.get_node();
            if (src->get_type_name() != "Constant") {
                all_constant = false;
                break;
            }
            inputs.push_back(src->get_constant_value());
            names += "," + original_names(*src);
        }
        if (!all_constant) continue;
        // What the fold would create, from the inferred output shapes, before evaluating.
        size_t output_bytes = 0;
        bool fits = true;
        for (size_t o = 0; o < node->get_output_size() && fits; ++o) {
            const PartialShape& shape = node->get_output_partial_shape(o);
            if (!shape.is_static()) {
                fits = false;
                break;
            }
            try {
                const size_t bytes =
                    node->get_output_element_type(o).bytes_for(shape_size(shape.to_shape()));
                fits = bytes <= budget_left - output_bytes;
                output_bytes += fits ? bytes : 0;
            } catch (const Exception&) {
                fits = false;  // the size overflows
            }
        }
        if (!fits) {
            ++stats.over_budget;
            continue;
        }
        std::vector<Tensor> outputs;
        try {
            outputs = reference::evaluate(*node, inputs);
        } catch (const Exception&) {
            continue;  // no kernel for this configuration: left for the plan to report
        }
        for (size_t i = 0; i < outputs.size(); ++i)
            replace_with_constant(*node, i, outputs[i], names, consumers);
        budget_left -= output_bytes;
        ++stats.folded;
    }
    model.validate();
    std::set<const Node*> alive;
    for (const auto& node : model.get_ordered_ops()) alive.insert(node.get());
    for (const auto& node : before) stats.removed += alive.count(node.get()) ? 0 : 1;
    return stats;
}

}  // namespace vireo::template_plugin
