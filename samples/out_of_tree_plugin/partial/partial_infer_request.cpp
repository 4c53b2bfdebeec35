// PARTIAL's requests: the host stage evaluates the graph and submits the job, the device wait
// stage waits for its completion and writes the outputs.
#include <condition_variable>
#include <mutex>
#include <unordered_map>

#include "partial_plugin.hpp"
#include "vireo/reference/kernel.hpp"
#include "vireo/sdk/itask_executor.hpp"

namespace partial {

using namespace vireo;
using sdk::PipelineStage;
using Clock = std::chrono::steady_clock;

SyncRequest::SyncRequest(const std::shared_ptr<const CompiledModel>& compiled)
    : sdk::ISyncInferRequest(compiled), m_compiled(compiled) {}

void SyncRequest::host_stage(sdk::RunContext& run) {
    std::unordered_map<const Node*, std::vector<Tensor>> values;
    {
        auto timer = run.time_stage(PipelineStage::kInputPreprocessing);
        convert_batched_tensors();
        const auto& parameters = m_compiled->graph()->get_parameters();
        for (size_t i = 0; i < parameters.size(); ++i) {
            Tensor input = input_tensor(i);
            if (input.is_remote() || !input.is_continuous()) input = input.clone();
            values[parameters[i].get()] = {input};
        }
    }
    run.stage(PipelineStage::kInputTransfer, {}, ProfilingInfo::Status::OPTIMIZED_OUT);
    const bool perf_count = m_compiled->perf_count();
    auto timer = run.time_stage(PipelineStage::kExecution, "partial");
    for (const auto& node : m_compiled->graph()->get_ordered_ops()) {
        const std::string& type = node->get_type_name();
        if (type == "Parameter" || type == "Result") continue;
        if (type == "Constant") {
            values[node.get()] = {node->get_constant_value()};
            continue;
        }
        run.throw_if_cancelled(std::string(kDeviceName) + " before " + node->describe());
        std::vector<Tensor> inputs;
        for (const auto& source : node->input_values())
            inputs.push_back(values.at(source.get_node()).at(source.get_index()));
        const auto start = Clock::now();
        values[node.get()] = reference::evaluate(*node, inputs);
        if (!perf_count) continue;
        ProfilingInfo row;
        row.status = ProfilingInfo::Status::EXECUTED;
        row.node_name = node->get_friendly_name();
        row.node_type = type;
        row.exec_type = "partial";
        row.real_time = row.cpu_time =
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
        run.op(std::move(row));
    }
    m_results.clear();
    for (const auto& result : m_compiled->graph()->get_results()) {
        const Output& source = result->input_value(0);
        m_results.push_back(values.at(source.get_node()).at(source.get_index()));
    }
    m_done_at = Clock::now() + m_compiled->device_time();  // the job is on the device
}

void SyncRequest::device_wait(sdk::RunContext& run) {
    {
        auto timer = run.time_stage(PipelineStage::kOutputTransfer, "partial");
        // The device's wait; a cancel ends it early.
        std::mutex mutex;
        std::condition_variable woken;
        auto wake = run.on_cancel([&] {
            std::lock_guard<std::mutex> lock(mutex);
            woken.notify_all();
        });
        std::unique_lock<std::mutex> lock(mutex);
        woken.wait_until(lock, m_done_at, [&] { return run.cancelled(); });
    }
    run.throw_if_cancelled(std::string(kDeviceName) + " while on the device");
    auto timer = run.time_stage(PipelineStage::kOutputPostprocessing);
    for (size_t i = 0; i < m_results.size(); ++i) {
        Tensor destination = output_tensor(i);
        if (destination.impl() != m_results[i].impl()) m_results[i].copy_to(destination);
    }
    m_results.clear();
}

void SyncRequest::infer(sdk::RunContext& run) {
    host_stage(run);
    device_wait(run);
}

AsyncRequest::AsyncRequest(const std::shared_ptr<SyncRequest>& request,
                           const std::shared_ptr<sdk::ITaskExecutor>& task_executor,
                           const std::shared_ptr<sdk::ITaskExecutor>& wait_executor,
                           const std::shared_ptr<sdk::ITaskExecutor>& callback_executor)
    : sdk::IAsyncInferRequest(request, task_executor, callback_executor) {
    // The request outlives the stages: the destructor waits for the pipeline.
    SyncRequest* sync = request.get();
    auto host = [sync](sdk::RunContext& run) { sync->host_stage(run); };
    auto wait = [sync](sdk::RunContext& run) { sync->device_wait(run); };
    m_pipeline = {{task_executor, host}, {wait_executor, wait}};
    auto inline_executor = std::make_shared<sdk::ImmediateExecutor>();
    m_sync_pipeline = {{inline_executor, host}, {inline_executor, wait}};
}

}  // namespace partial
