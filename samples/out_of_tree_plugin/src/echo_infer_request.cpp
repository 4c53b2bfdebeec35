// ECHO's synchronous request: evaluates the compiled graph op by op with the reference kernels
// and writes the outputs into the request's output tensors; the SDK's default async pipeline
// runs it on the compiled model's task executor.
#include <chrono>
#include <unordered_map>

#include "echo_plugin.hpp"
#include "vireo/reference/kernel.hpp"

namespace echo {
namespace {

using namespace vireo;
using Clock = std::chrono::steady_clock;

std::chrono::microseconds since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
}

ProfilingInfo row(const std::string& name, const std::string& type, std::chrono::microseconds time,
                  ProfilingInfo::Status status = ProfilingInfo::Status::EXECUTED) {
    ProfilingInfo info;
    info.status = status;
    info.node_name = name;
    info.node_type = type;
    info.exec_type = "ref";
    info.real_time = time;
    info.cpu_time = time;
    return info;
}

}  // namespace

InferRequest::InferRequest(const std::shared_ptr<const CompiledModel>& compiled_model)
    : sdk::ISyncInferRequest(compiled_model), m_compiled(compiled_model) {}

void InferRequest::infer() {
    m_cancel = false;
    const bool perf_count = m_compiled->perf_count();
    std::vector<ProfilingInfo> op_rows;
    const Model& graph = *m_compiled->graph();
    std::unordered_map<const Node*, std::vector<Tensor>> values;

    // Inputs: used in place when they are contiguous host tensors, copied otherwise.
    const auto start = Clock::now();
    convert_batched_tensors();
    const auto& parameters = graph.get_parameters();
    for (size_t i = 0; i < parameters.size(); ++i) {
        Tensor input = get_tensor(get_inputs()[i]);
        if (input.is_remote() || !input.is_continuous()) input = input.clone();
        values[parameters[i].get()] = {input};
    }
    const auto preprocessing = since(start);

    const auto execution_start = Clock::now();
    for (const auto& node : graph.get_ordered_ops()) {
        const std::string& type = node->get_type_name();
        if (type == "Parameter" || type == "Result") continue;
        if (type == "Constant") {
            values[node.get()] = {node->get_constant_value()};
            continue;
        }
        if (m_cancel)
            throw_error<Cancelled>(kDeviceName, ": inference cancelled before ", node->describe());
        std::vector<Tensor> inputs;
        for (const auto& source : node->input_values())
            inputs.push_back(values.at(source.get_node()).at(source.get_index()));
        const auto op_start = Clock::now();
        values[node.get()] = reference::evaluate(*node, inputs);
        if (perf_count) op_rows.push_back(row(node->get_friendly_name(), type, since(op_start)));
    }
    const auto execution = since(execution_start);

    // Outputs: written into the request's output tensors (a user's buffer, or the request's own
    // tensor, which is resized for a dynamic output).
    const auto post_start = Clock::now();
    const auto& results = graph.get_results();
    for (size_t i = 0; i < results.size(); ++i) {
        const Output& source = results[i]->input_value(0);
        const Tensor& value = values.at(source.get_node()).at(source.get_index());
        Tensor destination = get_tensor(get_outputs()[i]);
        if (destination.impl() == value.impl()) continue;  // an input passed straight through
        value.copy_to(destination);
    }
    const auto postprocessing = since(post_start);

    std::vector<ProfilingInfo> rows{row(kStageInputPreprocessing, "Stage", preprocessing),
                                    row(kStageInputTransfer, "Stage", std::chrono::microseconds(0),
                                        ProfilingInfo::Status::OPTIMIZED_OUT),
                                    row(kStageExecution, "Stage", execution),
                                    row(kStageOutputTransfer, "Stage", std::chrono::microseconds(0),
                                        ProfilingInfo::Status::OPTIMIZED_OUT),
                                    row(kStageOutputPostprocessing, "Stage", postprocessing)};
    rows.insert(rows.end(), op_rows.begin(), op_rows.end());
    m_profiling = std::move(rows);
}

std::vector<ProfilingInfo> InferRequest::get_profiling_info() const {
    return m_profiling;
}

std::vector<std::shared_ptr<sdk::IVariableState>> InferRequest::query_state() const {
    return {};
}

}  // namespace echo
