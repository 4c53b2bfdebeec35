// ECHO's synchronous request: runs the compiled model's graph plan with the SDK's PlanRunner and
// writes the outputs into the request's output tensors; the SDK's default async pipeline runs it
// on the compiled model's task executor.

#include "echo_plugin.hpp"

namespace echo {

using namespace vireo;
using sdk::PipelineStage;

InferRequest::InferRequest(const std::shared_ptr<const CompiledModel>& compiled_model)
    : sdk::ISyncInferRequest(compiled_model),
      m_compiled(compiled_model),
      m_runner(compiled_model->plan(), nullptr) {}

void InferRequest::infer(sdk::RunContext& run) {
    const bool perf_count = m_compiled->perf_count();
    {
        // Inputs: used in place when they are contiguous host tensors, copied otherwise (the
        // runner).
        auto timer = run.time_stage(PipelineStage::kInputPreprocessing);
        convert_batched_tensors();
        for (size_t i = 0; i < get_inputs().size(); ++i) m_runner.bind_input(i, input_tensor(i));
        for (size_t i = 0; i < get_outputs().size(); ++i) m_runner.bind_output(i, output_tensor(i));
    }
    run.stage(PipelineStage::kInputTransfer, {}, ProfilingInfo::Status::OPTIMIZED_OUT);
    // One row per op, built when asked for (also for a run a cancel or an error ends).
    if (perf_count) reference::record_step_rows(run, m_compiled->plan(), &m_timings, "ref");
    {
        auto timer = run.time_stage(PipelineStage::kExecution, "ref");
        m_runner.run([&run] { return run.cancelled(); }, perf_count ? &m_timings : nullptr);
    }
    run.stage(PipelineStage::kOutputTransfer, {}, ProfilingInfo::Status::OPTIMIZED_OUT);
    // Outputs: written into the request's output tensors (a user's buffer, or the request's own
    // tensor, which is resized for a dynamic output) unless the run wrote them in place.
    auto timer = run.time_stage(PipelineStage::kOutputPostprocessing);
    m_runner.finish();
}

}  // namespace echo
