// Declares InferRequest, the TEMPLATE plugin's synchronous request: binds tensors, runs the
// execution plan, delivers outputs, keeps variable states and timings.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "plan_executor.hpp"
#include "vireo/sdk/isync_infer_request.hpp"

namespace vireo::template_plugin {

class CompiledModel;

/// One request of a TEMPLATE compiled model. infer() runs four stages, as a device plugin's
/// pipeline would: infer_preprocess (bind tensors; contiguous host inputs are used in
/// place, others copied), start_pipeline (execute the plan, checking for cancel between ops),
/// wait_pipeline (nothing to wait for on the host) and infer_postprocess (copy the outputs not
/// written in place, size dynamic outputs, commit variables).
///
/// Validation: the async request runs check_tensors() before a run starts, so infer() does not
/// repeat it; binding re-checks only element types and static shapes (InvalidArgument).
///
/// Memory: a static model's working memory is allocated once, here; nothing is allocated per
/// inference. Not thread-safe: the async request serialises use; cancel() may come from any
/// thread.
class InferRequest : public sdk::ISyncInferRequest {
  public:
    explicit InferRequest(const std::shared_ptr<const CompiledModel>& compiled_model);
    ~InferRequest() override;

    void infer() override;
    std::vector<ProfilingInfo> get_profiling_info() const override;
    std::vector<std::shared_ptr<sdk::IVariableState>> query_state() const override;
    /// Asks a running inference to stop before its next op; it then throws Cancelled.
    void cancel() override;

    void infer_preprocess();
    void start_pipeline();
    void wait_pipeline();
    void infer_postprocess();

    /// A second cancellation source polled between ops (the async request's cancelled state),
    /// so a cancel that arrives just before infer() starts is not lost.
    void set_cancel_check(std::function<bool()> check) { m_cancel_check = std::move(check); }

  private:
    std::shared_ptr<const CompiledModel> m_model;
    PlanExecutor m_executor;
    std::vector<std::shared_ptr<VariableState>> m_states;
    std::atomic<bool> m_cancel_requested{false};
    std::function<bool()> m_cancel_check;
    std::function<bool()> m_stop;
    // Profiling of the last inference.
    enum Stage { kPreprocess, kExecution, kPostprocess, kStages };
    std::chrono::microseconds m_stage_time[kStages]{};
    bool m_stage_ran[kStages]{};
    bool m_profiled = false;  // per-op timings were collected by the last inference
    std::vector<StepTiming> m_step_timings;
};

}  // namespace vireo::template_plugin
