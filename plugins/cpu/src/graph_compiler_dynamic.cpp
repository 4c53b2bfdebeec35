// Implements the dynamic graph's fusions of GraphCompiler: LayerNorm/RMSNorm and the rotary
// embedding matched before the walk (match_dynamic_fusions) and each compiled as one step on the
// plugin's own kernel (add_norm_step, add_rotary_step), and drop_unused_steps, which removes the
// steps whose outputs nothing reads once those fusions have taken their readers.
#include <algorithm>

#include "graph_compiler_impl.hpp"
#include "norm_kernel.hpp"
#include "rotary_kernel.hpp"

namespace vireo::cpu_plugin::detail {

void GraphCompiler::match_dynamic_fusions(const NodeVector& nodes) {
    for (const auto& node : nodes) {
        if (node->get_type_name() == "Add") {
            auto r = match_rotary(*node, m_consumers);
            if (!r) continue;
            bool free = true;
            for (const auto& n : r->nodes)
                free &= !m_absorbed.count(n.get()) && !m_skipped.count(n.get());
            if (!free) continue;
            for (const auto& n : r->nodes)
                if (n != node) m_absorbed.insert(n.get());
            m_rotaries.emplace(node.get(), std::move(*r));
            continue;
        }
        const std::string& type = node->get_type_name();
        if (type != "ReduceMean" && type != "MVN") continue;
        auto m =
            type == "MVN" ? match_mvn(*node, m_consumers) : match_layer_norm(*node, m_consumers);
        if (!m && type == "ReduceMean") m = match_rms_norm(*node, m_consumers);
        if (!m) continue;
        bool free = true;
        for (const auto& n : m->nodes)
            free &= !m_absorbed.count(n.get()) && !m_skipped.count(n.get());
        if (!free) continue;
        Node* last = m->output.get_node();
        for (const auto& n : m->nodes)
            if (n.get() != last) m_absorbed.insert(n.get());
        m_norms.emplace(last, std::move(*m));
    }
}

void GraphCompiler::add_norm_step(const NodePtr& node, const LayerNormMatch& m) {
    Step step;
    step.kind = StepKind::kReference;
    step.node = node;
    step.fused = {node};
    std::string types;
    for (const auto& n : m.nodes) {
        if (n != node) step.fused.push_back(n);
        types += (types.empty() ? "" : "+") + n->get_type_name();
    }
    step.name = node->get_friendly_name();
    step.type = node->get_type_name();
    step.exec_type = m.subtract_mean ? "layer_norm" : "rms_norm";
    NormSpec spec;
    spec.what = node->describe() + " (" + types + ")";
    spec.subtract_mean = m.subtract_mean;
    spec.epsilon = m.epsilon;
    spec.axes = m.axes;
    spec.gamma = m.gamma != nullptr;
    spec.beta = m.beta != nullptr;
    step.kernel = norm_kernel(std::move(spec));
    // The result has the input's shape (the matchers check that the scale and shift widen nothing).
    step.output_shapes = [](const std::vector<Tensor>& ins) {
        return std::vector<Shape>{ins.at(0).get_shape()};
    };
    step.inputs.push_back(in_layout(value_of(m.input), Layout::kPlain));
    for (const auto& affine : {m.gamma, m.beta})
        if (affine) step.inputs.push_back(in_layout(value_of(affine->output(0)), Layout::kPlain));
    step.outputs.push_back(add_value(m.output, ValueKind::kComputed));
    m_graph->steps.push_back(std::move(step));
}

void GraphCompiler::drop_unused_steps() {
    Graph& g = *m_graph;
    std::vector<size_t> readers(g.values.size(), 0);
    for (const Step& step : g.steps)
        for (size_t id : step.inputs) ++readers[id];
    for (size_t id : g.result_values) ++readers[id];
    for (const Value& v : g.values)
        if (v.alias != SIZE_MAX) ++readers[v.alias];
    // Last first, so that what only a dropped step read goes too.
    std::vector<bool> keep(g.steps.size(), true);
    for (size_t s = g.steps.size(); s-- > 0;) {
        const Step& step = g.steps[s];
        if (step.kind != StepKind::kReference || step.outputs.empty()) continue;
        bool read = false;
        for (size_t id : step.outputs) read |= readers[id] != 0;
        if (read) continue;
        keep[s] = false;
        for (size_t id : step.inputs) --readers[id];
    }
    // Step indices after the drop: new_index[s] counts the kept steps before s.
    std::vector<size_t> new_index(g.steps.size() + 1, 0);
    for (size_t s = 0; s < g.steps.size(); ++s) new_index[s + 1] = new_index[s] + keep[s];
    std::vector<Step> kept;
    for (size_t s = 0; s < g.steps.size(); ++s)
        if (keep[s]) kept.push_back(std::move(g.steps[s]));
    g.steps = std::move(kept);
    for (Value& v : g.values) v.producer = new_index[std::min(v.producer, new_index.size() - 1)];
    for (size_t& s : g.assign_steps) s = new_index[s];
}

void GraphCompiler::add_rotary_step(const NodePtr& node, const RotaryMatch& m) {
    Step step;
    step.kind = StepKind::kReference;
    step.node = node;
    step.fused = {node};
    for (const auto& n : m.nodes)
        if (n != node) step.fused.push_back(n);
    step.name = node->get_friendly_name();
    step.type = node->get_type_name();
    step.exec_type = "rotary";
    step.kernel = rotary_kernel(node->describe() + " (rotary embedding)");
    step.output_shapes = [](const std::vector<Tensor>& ins) {
        return std::vector<Shape>{ins.at(0).get_shape()};
    };
    for (const auto& port : {m.input, m.cos, m.sin})
        step.inputs.push_back(in_layout(value_of(port), Layout::kPlain));
    step.outputs.push_back(add_value(m.output, ValueKind::kComputed));
    m_graph->steps.push_back(std::move(step));
}

}  // namespace vireo::cpu_plugin::detail
