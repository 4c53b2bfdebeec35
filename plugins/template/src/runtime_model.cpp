// Implements CompiledModel::get_runtime_model: a copy of the executed graph with execution
// information in each node's rt_info.
#include <map>
#include <sstream>

#include "compiled_model.hpp"
#include "vireo/reference/constant_folding.hpp"

namespace vireo::template_plugin {

std::shared_ptr<const Model> CompiledModel::get_runtime_model() const {
    // Clone node by node in plan order, so each copy is known to stand for its plan node.
    std::map<const Node*, NodePtr> copies;
    const NodeVector& nodes = m_plan->nodes();
    for (size_t order = 0; order < nodes.size(); ++order) {
        const NodePtr& node = nodes[order];
        OutputVector inputs;
        for (const auto& in : node->input_values())
            inputs.emplace_back(copies.at(in.get_node()), in.get_index());
        NodePtr copy = node->clone_with_new_inputs(inputs);
        RTMap& info = copy->get_rt_info();
        info["layerType"] = node->get_type_name();
        info["execOrder"] = static_cast<int64_t>(order);
        info["primitiveType"] = std::string("ref");
        if (!info.count(reference::kOriginalLayersNames))
            info[reference::kOriginalLayersNames] = node->get_friendly_name();
        const long step = m_plan->step_of(node.get());
        const double average = step < 0 ? -1 : average_step_time(static_cast<size_t>(step));
        if (average < 0) {
            info["execTimeMcs"] = std::string("not_executed");
        } else {
            std::ostringstream text;
            text << average;
            info["execTimeMcs"] = text.str();
        }
        copies[node.get()] = copy;
    }
    auto map_all = [&](const NodeVector& list) {
        NodeVector out;
        for (const auto& n : list) out.push_back(copies.at(n.get()));
        return out;
    };
    auto runtime =
        std::make_shared<Model>(map_all(m_model->get_results()), map_all(m_model->get_sinks()),
                                map_all(m_model->get_parameters()), m_model->get_name());
    runtime->get_rt_info() = m_model->get_rt_info();
    return runtime;
}

}  // namespace vireo::template_plugin
