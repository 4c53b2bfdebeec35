// Implements GraphPlan: step list, kernel creation, value liveness and the memory plan.
#include "vireo/reference/graph_plan.hpp"

#include <algorithm>
#include <set>

#include "vireo/reference/memory_planner.hpp"

namespace vireo::reference {
namespace {

std::string port_name(const Node& node, size_t index) {
    return "output " + std::to_string(index) + " of " + node.describe();
}

}  // namespace

GraphPlan::GraphPlan(std::shared_ptr<const Model> model, GraphPlanOptions options)
    : m_model(std::move(model)), m_options(std::move(options)) {
    m_nodes = m_model->get_ordered_ops();
    m_variables = m_model->get_variables();
    build_steps();
    compute_liveness();
    plan_memory();
}

long GraphPlan::step_of(const Node* node) const {
    auto it = m_step_of.find(node);
    return it == m_step_of.end() ? -1 : it->second;
}

void GraphPlan::build_steps() {
    std::map<std::pair<const Node*, size_t>, size_t> value_of;
    auto add_value = [&](const Node& node, size_t index, ValueKind kind) {
        PlanValue v;
        v.kind = kind;
        v.type = node.get_output_element_type(index);
        v.shape = node.get_output_partial_shape(index);
        v.name = port_name(node, index);
        if (!v.type.is_static())
            throw_error<InvalidArgument>(m_options.device_name, ": ", v.name, " has element type ",
                                         v.type, " (expected a static element type)");
        value_of[{&node, index}] = m_values.size();
        m_values.push_back(std::move(v));
        return m_values.size() - 1;
    };
    auto variable_index = [&](const Node& node) {
        const auto& id = node.get_attribute<std::string>("variable_id");
        for (size_t i = 0; i < m_variables.size(); ++i)
            if (m_variables[i].id == id) return i;
        throw_error<InvalidArgument>(m_options.device_name, ": ", node.describe(),
                                     " uses variable '", id,
                                     "' which no ReadValue of the model reads");
    };

    const auto& parameters = m_model->get_parameters();
    std::vector<std::string> unsupported;
    bool has_subgraph = false;
    for (const auto& node : m_nodes) {
        const std::string& type = node->get_type_name();
        if (type == "Parameter") {
            const size_t id = add_value(*node, 0, ValueKind::kParameter);
            const auto it = std::find(parameters.begin(), parameters.end(), node);
            m_values[id].index = static_cast<size_t>(it - parameters.begin());
            continue;
        }
        if (type == "Constant") {
            const size_t id = add_value(*node, 0, ValueKind::kConstant);
            m_values[id].constant = node->get_constant_value();
            m_values[id].index = m_constant_values.size();
            m_constant_values.push_back(id);
            continue;
        }
        if (type == "Result") continue;
        PlanStep step;
        step.node = node;
        for (const auto& in : node->input_values())
            step.inputs.push_back(value_of.at({in.get_node(), in.get_index()}));
        if (type == "ReadValue") {
            step.kind = StepKind::kReadValue;
            step.variable = variable_index(*node);
        } else if (type == "Assign") {
            step.kind = StepKind::kAssign;
            step.variable = variable_index(*node);
            m_assign_steps.push_back(m_steps.size());
        } else if (type == "If" || type == "Loop") {
            step.kind = StepKind::kSubgraph;
            try {
                for (const auto& body : node->get_bodies()) {
                    auto plan = std::make_shared<const GraphPlan>(body, m_options);
                    // A body runs without the request's variables.
                    if (!plan->variables().empty())
                        throw_error<NotImplemented>(node->describe(),
                                                    ": its body uses variables (ReadValue/Assign), "
                                                    "which ",
                                                    m_options.device_name,
                                                    " does not support inside If or Loop");
                    step.bodies.push_back(std::move(plan));
                }
            } catch (const Exception& e) {
                unsupported.push_back(node->describe() + ", in its body: " + e.what());
            }
            has_subgraph = true;
        } else {
            try {
                step.kernel = KernelRegistry::instance().create(*node);
            } catch (const Exception& e) {
                // Keep going (its outputs still become values) so that one error lists them all.
                unsupported.push_back(std::string(e.what()));
            }
        }
        for (size_t i = 0; i < node->get_output_size(); ++i) {
            const size_t id = add_value(*node, i, ValueKind::kComputed);
            m_values[id].producer = m_steps.size();
            step.outputs.push_back(id);
            step.static_outputs = step.static_outputs && m_values[id].shape.is_static();
        }
        m_step_of[node.get()] = static_cast<long>(m_steps.size());
        m_steps.push_back(std::move(step));
    }
    if (!unsupported.empty()) {
        std::string list;
        for (const auto& u : unsupported) list += "\n  - " + u;
        throw_error<NotImplemented>(m_options.device_name, ": cannot compile model '",
                                    m_model->get_name(), "': ", unsupported.size(),
                                    " op(s) have no reference kernel:", list);
    }
    for (const auto& p : parameters) m_parameter_values.push_back(value_of.at({p.get(), 0}));
    std::set<size_t> seen;
    for (const auto& r : m_model->get_results()) {
        const Output& src = r->input_value(0);
        const size_t id = value_of.at({src.get_node(), src.get_index()});
        m_result_values.push_back(id);
        m_result_in_place.push_back(m_values[id].kind == ValueKind::kComputed &&
                                    seen.insert(id).second);
    }
    m_dynamic = has_subgraph;
    for (const auto& v : m_values) m_dynamic = m_dynamic || !v.shape.is_static();
}

void GraphPlan::compute_liveness() {
    const size_t end = m_steps.size();
    for (auto& v : m_values) {
        v.first = v.kind == ValueKind::kComputed ? v.producer : 0;
        v.last = v.first;
    }
    for (size_t s = 0; s < m_steps.size(); ++s)
        for (const size_t id : m_steps[s].inputs)
            m_values[id].last = std::max(m_values[id].last, s);
    // Outputs are read after the last step, and so are Assign inputs (committed at the end).
    for (const size_t id : m_result_values) m_values[id].last = end;
    for (const size_t s : m_assign_steps)
        for (const size_t id : m_steps[s].inputs) m_values[id].last = end;
}

void GraphPlan::plan_memory() {
    if (!m_dynamic) {
        for (PlanValue& v : m_values) {
            try {
                v.bytes = v.type.bytes_for(shape_size(v.shape.to_shape()));
            } catch (const Exception& e) {
                throw_error<InvalidArgument>(m_options.device_name, ": ", v.name, " (", v.type, " ",
                                             v.shape, "): ", e.what());
            }
            if (v.bytes > physical_memory_bytes())
                throw_error<InvalidArgument>(m_options.device_name, ": ", v.name, " (", v.type, " ",
                                             v.shape, ") needs ", v.bytes, " bytes, more than the ",
                                             physical_memory_bytes(),
                                             " bytes of memory this machine has");
        }
    }
    if (!m_options.plan_memory) return;
    std::vector<BufferUse> uses;
    std::vector<size_t> ids;
    for (size_t id = 0; id < m_values.size(); ++id) {
        const PlanValue& v = m_values[id];
        // Parameters need arena room only as staging for inputs that cannot be used in place.
        const bool planned =
            v.kind == ValueKind::kComputed || (!m_dynamic && v.kind == ValueKind::kParameter);
        if (!planned) continue;
        uses.push_back({v.bytes, v.first, v.last});
        ids.push_back(id);
    }
    if (m_dynamic) {
        const SlotAssignment slots = plan_slots(uses);
        for (size_t i = 0; i < ids.size(); ++i) m_values[ids[i]].slot = slots.slot_of[i];
        m_slot_count = slots.slot_count;
    } else {
        const ArenaLayout layout = plan_arena(uses);  // each use <= memory: no overflow
        if (layout.total_bytes > physical_memory_bytes())
            throw_error<InvalidArgument>(
                m_options.device_name, ": the values of model '", m_model->get_name(),
                "' need an arena of ", layout.total_bytes, " bytes, more than the ",
                physical_memory_bytes(), " bytes of memory this machine has");
        for (size_t i = 0; i < ids.size(); ++i) m_values[ids[i]].offset = layout.offsets[i];
        m_arena_bytes = layout.total_bytes;
    }
}

}  // namespace vireo::reference
