// ECHO's synchronous request: runs the compiled model's graph plan with the SDK's PlanRunner and
// writes the outputs into the request's output tensors; the SDK's default async pipeline runs it
// on the compiled model's task executor.
#include <chrono>

#include "echo_plugin.hpp"

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
    : sdk::ISyncInferRequest(compiled_model),
      m_compiled(compiled_model),
      m_runner(compiled_model->plan(), nullptr) {}

void InferRequest::infer() {
    m_cancel = false;
    const bool perf_count = m_compiled->perf_count();

    // Inputs: used in place when they are contiguous host tensors, copied otherwise (the runner).
    const auto start = Clock::now();
    convert_batched_tensors();
    for (size_t i = 0; i < get_inputs().size(); ++i)
        m_runner.bind_input(i, get_tensor(get_inputs()[i]));
    for (size_t i = 0; i < get_outputs().size(); ++i)
        m_runner.bind_output(i, get_tensor(get_outputs()[i]));
    const auto preprocessing = since(start);

    const auto execution_start = Clock::now();
    m_runner.run([this] { return m_cancel.load(); }, perf_count ? &m_timings : nullptr);
    const auto execution = since(execution_start);

    // Outputs: written into the request's output tensors (a user's buffer, or the request's own
    // tensor, which is resized for a dynamic output) unless the run wrote them in place.
    const auto post_start = Clock::now();
    m_runner.finish();
    const auto postprocessing = since(post_start);

    std::vector<ProfilingInfo> rows{row(kStageInputPreprocessing, "Stage", preprocessing),
                                    row(kStageInputTransfer, "Stage", std::chrono::microseconds(0),
                                        ProfilingInfo::Status::OPTIMIZED_OUT),
                                    row(kStageExecution, "Stage", execution),
                                    row(kStageOutputTransfer, "Stage", std::chrono::microseconds(0),
                                        ProfilingInfo::Status::OPTIMIZED_OUT),
                                    row(kStageOutputPostprocessing, "Stage", postprocessing)};
    const auto& steps = m_compiled->plan()->steps();
    for (size_t s = 0; perf_count && s < steps.size(); ++s)
        rows.push_back(row(steps[s].node->get_friendly_name(), steps[s].node->get_type_name(),
                           m_timings[s].real));
    m_profiling = std::move(rows);
}

std::vector<ProfilingInfo> InferRequest::get_profiling_info() const {
    return m_profiling;
}

std::vector<std::shared_ptr<sdk::IVariableState>> InferRequest::query_state() const {
    return {};
}

}  // namespace echo
