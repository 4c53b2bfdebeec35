// Implements GraphCompiler::add_static_region: in a dynamic graph, the ops whose shapes do not
// depend on any value computed at run time are compiled as a static graph of their own, so a
// detection network's backbone runs on oneDNN while its NonZero/NMS post-processing runs on the
// reference kernels.
#include <map>

#include "graph_compiler_impl.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_plugin::detail {
namespace {

// Ops that never join the region: their outputs change from run to run without their inputs
// changing (variables, random numbers) or they run bodies of their own.
bool region_candidate(const Node& node) {
    const std::string& type = node.get_type_name();
    if (type == "Parameter" || type == "Constant" || type == "Result" || type == "ReadValue" ||
        type == "Assign" || type == "If" || type == "Loop" || type.rfind("Random", 0) == 0 ||
        node.get_output_size() == 0)
        return false;
    for (size_t i = 0; i < node.get_output_size(); ++i)
        if (!node.get_output_partial_shape(i).is_static() ||
            node.get_output_element_type(i).is_dynamic())
            return false;
    return true;
}

// Ops whose oneDNN kernels make the region worth its own graph.
bool heavy(const Node& node) {
    const std::string& type = node.get_type_name();
    return type == "Convolution" || type == "GroupConvolution" || type == "MatMul" ||
           type == "ConvolutionBackpropData" || type == "LSTMSequence" || type == "GRUSequence" ||
           type == "RNNSequence";
}

}  // namespace

void GraphCompiler::add_static_region(const NodeVector& nodes) {
    // Classify in topological order: `constant` ops compute from constants only (the main graph
    // folds them), `region` ops read at least one static model input through static ops.
    std::set<const Node*> constant, region;
    std::set<const Node*> static_inputs;
    bool worth = false;
    for (const auto& node : nodes) {
        const std::string& type = node->get_type_name();
        if (type == "Constant") {
            constant.insert(node.get());
            continue;
        }
        if (type == "Parameter") {
            if (node->get_output_partial_shape(0).is_static() &&
                !node->get_output_element_type(0).is_dynamic())
                static_inputs.insert(node.get());
            continue;
        }
        if (!region_candidate(*node)) continue;
        bool all_constant = true, all_static = true;
        for (const auto& in : node->input_values()) {
            const Node* producer = in.get_node();
            if (constant.count(producer)) continue;
            all_constant = false;
            if (!region.count(producer) && !static_inputs.count(producer)) all_static = false;
        }
        if (all_constant) {
            constant.insert(node.get());
        } else if (all_static) {
            region.insert(node.get());
            worth |= heavy(*node);
        }
    }
    if (region.empty() || !worth) return;

    // The region's outputs: values of region ops read by anything outside the region.
    std::vector<Output> outputs;
    for (const auto& node : nodes) {
        if (!region.count(node.get())) continue;
        for (size_t i = 0; i < node->get_output_size(); ++i)
            for (const auto& c : consumers(node->output(i)))
                if (!region.count(c.node)) {
                    outputs.push_back(node->output(i));
                    break;
                }
    }
    if (outputs.empty()) return;  // nothing reads it (every output is unused)

    // The region as a model of its own: its ops cloned, with the constant ops they read (the
    // region's compile folds them again) and static model inputs as parameters. Marked backwards
    // first, cloned forwards: no recursion however long a chain.
    std::set<const Node*> cloned = region;
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        Node* node = it->get();
        if (!constant.count(node)) continue;
        for (size_t i = 0; i < node->get_output_size(); ++i)
            for (const auto& c : consumers(node->output(i)))
                if (cloned.count(c.node)) cloned.insert(node);
    }
    std::map<Output, Output> mapped;
    ParameterVector parameters;
    std::vector<size_t> input_values;  // per region parameter: the main graph's value
    for (const auto& node : nodes) {
        if (!cloned.count(node.get())) continue;
        OutputVector inputs;
        for (const auto& in : node->input_values()) {
            auto it = mapped.find(in);
            if (it == mapped.end()) {  // a static model input
                auto p = op::parameter(in.get_element_type(), in.get_partial_shape(),
                                       in.get_node()->get_friendly_name());
                parameters.push_back(p);
                input_values.push_back(value_of(in));
                it = mapped.emplace(in, p->output(0)).first;
            }
            inputs.push_back(it->second);
        }
        auto copy = node->clone_with_new_inputs(inputs);
        for (size_t i = 0; i < node->get_output_size(); ++i)
            mapped[node->output(i)] = copy->output(i);
    }
    OutputVector results;
    for (const auto& out : outputs) results.push_back(mapped.at(out));
    auto model =
        std::make_shared<Model>(results, parameters, m_model->get_name() + " (static region)");

    std::shared_ptr<const Graph> graph;
    try {
        graph = GraphCompiler(model, nullptr, m_bf16, m_dynamic_quantization, m_winograd).compile();
    } catch (const Exception&) {
        return;  // the ops run one by one in the main graph, which reports what is wrong
    }

    Step step;
    step.kind = StepKind::kRegion;
    step.type = "StaticRegion";
    step.exec_type = "region";
    size_t ops = 0;
    for (const auto& node : nodes)
        if (region.count(node.get())) {
            step.fused.push_back(node);
            step.region_copies.push_back(mapped.at(node->output(0)).get_node_shared_ptr());
            ++ops;
        }
    step.node = step.fused.front();
    step.name = "static region of " + std::to_string(ops) + " ops (" +
                step.fused.front()->get_friendly_name() + " .. " +
                step.fused.back()->get_friendly_name() + ")";
    step.bodies.push_back(std::move(graph));
    step.inputs = input_values;
    for (const auto& out : outputs) step.outputs.push_back(add_value(out, ValueKind::kComputed));
    m_graph->steps.push_back(std::move(step));
    m_graph->has_region = true;

    // The main graph skips the region and the constants only the region reads.
    m_skipped = region;
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        Node* node = it->get();
        if (!constant.count(node) || node->get_type_name() == "Constant") continue;
        bool only_region = node->get_output_size() != 0;
        for (size_t i = 0; i < node->get_output_size() && only_region; ++i) {
            const auto readers = consumers(node->output(i));
            if (readers.empty()) only_region = false;
            for (const auto& c : readers) only_region &= m_skipped.count(c.node) != 0;
        }
        if (only_region) m_skipped.insert(node);
    }
}

}  // namespace vireo::cpu_plugin::detail
