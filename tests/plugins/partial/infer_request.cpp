// PARTIAL's requests: the host stage evaluates the graph and submits the job, the device wait
// stage waits for its completion and writes the outputs.
#include <thread>
#include <unordered_map>

#include "partial_plugin.hpp"
#include "vireo/reference/kernel.hpp"
#include "vireo/sdk/itask_executor.hpp"

namespace partial {
namespace {

using namespace vireo;
using Clock = std::chrono::steady_clock;

ProfilingInfo row(const std::string& name, const std::string& type, Clock::time_point start,
                  ProfilingInfo::Status status = ProfilingInfo::Status::EXECUTED) {
    ProfilingInfo info;
    info.status = status;
    info.node_name = name;
    info.node_type = type;
    info.exec_type = "partial";
    info.real_time = info.cpu_time =
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
    return info;
}

}  // namespace

SyncRequest::SyncRequest(const std::shared_ptr<const CompiledModel>& compiled)
    : sdk::ISyncInferRequest(compiled), m_compiled(compiled) {}

void SyncRequest::host_stage() {
    m_cancel = false;
    m_rows.clear();
    const auto start = Clock::now();
    convert_batched_tensors();
    std::unordered_map<const Node*, std::vector<Tensor>> values;
    const auto& parameters = m_compiled->graph()->get_parameters();
    for (size_t i = 0; i < parameters.size(); ++i) {
        Tensor input = get_tensor(get_inputs()[i]);
        if (input.is_remote() || !input.is_continuous()) input = input.clone();
        values[parameters[i].get()] = {input};
    }
    m_rows.push_back(row(kStageInputPreprocessing, "Stage", start));
    const bool perf_count = m_compiled->perf_count();
    const auto execution = Clock::now();
    for (const auto& node : m_compiled->graph()->get_ordered_ops()) {
        const std::string& type = node->get_type_name();
        if (type == "Parameter" || type == "Result") continue;
        if (type == "Constant") {
            values[node.get()] = {node->get_constant_value()};
            continue;
        }
        if (m_cancel) throw_error<Cancelled>(kDeviceName, ": cancelled before ", node->describe());
        std::vector<Tensor> inputs;
        for (const auto& source : node->input_values())
            inputs.push_back(values.at(source.get_node()).at(source.get_index()));
        const auto op_start = Clock::now();
        values[node.get()] = reference::evaluate(*node, inputs);
        if (perf_count) m_rows.push_back(row(node->get_friendly_name(), type, op_start));
    }
    m_rows.insert(m_rows.begin() + 1, row(kStageExecution, "Stage", execution));
    m_results.clear();
    for (const auto& result : m_compiled->graph()->get_results()) {
        const Output& source = result->input_value(0);
        m_results.push_back(values.at(source.get_node()).at(source.get_index()));
    }
    m_done_at = Clock::now() + m_compiled->device_time();  // the job is on the device
}

void SyncRequest::device_wait() {
    const auto start = Clock::now();
    std::this_thread::sleep_until(m_done_at);
    if (m_cancel) throw_error<Cancelled>(kDeviceName, ": cancelled while on the device");
    m_rows.insert(m_rows.begin() + 1,
                  row(kStageInputTransfer, "Stage", start, ProfilingInfo::Status::OPTIMIZED_OUT));
    m_rows.insert(m_rows.begin() + 3, row(kStageOutputTransfer, "Stage", start));
    const auto post = Clock::now();
    for (size_t i = 0; i < m_results.size(); ++i) {
        Tensor destination = get_tensor(get_outputs()[i]);
        if (destination.impl() != m_results[i].impl()) m_results[i].copy_to(destination);
    }
    m_rows.insert(m_rows.begin() + 4, row(kStageOutputPostprocessing, "Stage", post));
    m_results.clear();
    m_profiling = m_rows;
}

void SyncRequest::infer() {
    host_stage();
    device_wait();
}

std::vector<ProfilingInfo> SyncRequest::get_profiling_info() const {
    return m_profiling;
}

std::vector<std::shared_ptr<sdk::IVariableState>> SyncRequest::query_state() const {
    return {};
}

AsyncRequest::AsyncRequest(const std::shared_ptr<SyncRequest>& request,
                           const std::shared_ptr<sdk::ITaskExecutor>& task_executor,
                           const std::shared_ptr<sdk::ITaskExecutor>& wait_executor,
                           const std::shared_ptr<sdk::ITaskExecutor>& callback_executor)
    : sdk::IAsyncInferRequest(request, task_executor, callback_executor) {
    // The request outlives the stages: the destructor waits for the pipeline.
    SyncRequest* sync = request.get();
    m_pipeline = {{task_executor, [sync] { sync->host_stage(); }},
                  {wait_executor, [sync] { sync->device_wait(); }}};
    auto inline_executor = std::make_shared<sdk::ImmediateExecutor>();
    m_sync_pipeline = {{inline_executor, [sync] { sync->host_stage(); }},
                       {inline_executor, [sync] { sync->device_wait(); }}};
}

}  // namespace partial
