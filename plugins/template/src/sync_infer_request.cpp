// Implements InferRequest: the four stages of a TEMPLATE inference, states and profiling rows.
#include "sync_infer_request.hpp"

#include "compiled_model.hpp"

namespace vireo::template_plugin {
namespace {

using Status = ProfilingInfo::Status;
using sdk::PipelineStage;

}  // namespace

InferRequest::InferRequest(const std::shared_ptr<const CompiledModel>& compiled_model)
    : ISyncInferRequest(compiled_model),
      m_model(compiled_model),
      m_executor(compiled_model->plan(),
                 [model = compiled_model.get()] { model->count_allocation(); }) {
    for (const auto& variable : m_model->plan()->variables())
        m_states.push_back(std::make_shared<sdk::HostVariableState>(variable));
}

InferRequest::~InferRequest() = default;

Tensor InferRequest::create_port_tensor(const Output& port, bool /*is_input*/) const {
    return smallest_port_tensor(port);
}

void InferRequest::infer(sdk::RunContext& run) {
    infer_preprocess(run);
    start_pipeline(run);
    wait_pipeline(run);
    infer_postprocess(run);
}

void InferRequest::infer_preprocess(sdk::RunContext& run) {
    auto timer = run.time_stage(PipelineStage::kInputPreprocessing);
    // The async request validated every tensor before the run started (check_tensors() in the
    // base); the executor re-checks only what memory safety needs (type, static shape), which
    // costs no string formatting per inference.
    convert_batched_tensors();  // set_tensors(): one input tensor of the whole batch
    for (size_t i = 0; i < get_inputs().size(); ++i) m_executor.bind_input(i, input_tensor(i));
    for (size_t j = 0; j < get_outputs().size(); ++j) m_executor.bind_output(j, output_tensor(j));
    // Host memory is the device's memory: there is nothing to transfer.
    run.stage(PipelineStage::kInputTransfer, {}, Status::OPTIMIZED_OUT);
}

void InferRequest::start_pipeline(sdk::RunContext& run) {
    const bool profiled = m_model->profiling_enabled();
    // Rows built when asked for, also for a run a cancel or an error ends.
    if (profiled) reference::record_step_rows(run, m_model->plan(), &m_step_timings, "ref");
    auto timer = run.time_stage(PipelineStage::kExecution);
    m_executor.run([&run] { return run.cancelled(); }, profiled ? &m_step_timings : nullptr,
                   m_states);
    if (profiled) m_model->record_step_times(m_step_timings);
}

void InferRequest::wait_pipeline(sdk::RunContext& run) {
    // The host computed everything in start_pipeline; a device plugin would wait here.
    run.stage(PipelineStage::kOutputTransfer, {}, Status::OPTIMIZED_OUT);
}

void InferRequest::infer_postprocess(sdk::RunContext& run) {
    auto timer = run.time_stage(PipelineStage::kOutputPostprocessing);
    m_executor.finish(m_states);
}

std::vector<std::shared_ptr<sdk::IVariableState>> InferRequest::query_state() const {
    return {m_states.begin(), m_states.end()};
}

}  // namespace vireo::template_plugin
