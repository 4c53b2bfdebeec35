// Declares InferRequest, the TEMPLATE plugin's synchronous request: binds tensors, runs the
// execution plan, delivers outputs, keeps variable states and timings.
#pragma once

#include <memory>
#include <vector>

#include "plan_executor.hpp"
#include "vireo/sdk/isync_infer_request.hpp"

namespace vireo::template_plugin {

class CompiledModel;

/// One request of a TEMPLATE compiled model. infer() runs four stages, as a device plugin's
/// pipeline would: infer_preprocess (bind tensors; contiguous host inputs are used in
/// place, others copied), start_pipeline (execute the plan, checking the run's cancel token
/// between ops), wait_pipeline (nothing to wait for on the host) and infer_postprocess (copy the
/// outputs not written in place, size dynamic outputs, commit variables). Each stage records
/// its time in the run's profiling sink, and with profiling on one row per plan step follows
/// (get_profiling_info is the SDK's default).
///
/// Validation: the async request runs check_tensors() before a run starts, so infer() does not
/// repeat it; binding re-checks only element types and static shapes (InvalidArgument).
///
/// Memory: a static model's working memory is allocated once, here; nothing is allocated per
/// inference. Port tensors are the SDK's lazy ones, shaped for a dynamic port to the smallest
/// shape it allows. Not thread-safe: the async request serialises use.
class InferRequest : public sdk::ISyncInferRequest {
  public:
    explicit InferRequest(const std::shared_ptr<const CompiledModel>& compiled_model);
    ~InferRequest() override;

    void infer(sdk::RunContext& run) override;
    std::vector<std::shared_ptr<sdk::IVariableState>> query_state() const override;

    void infer_preprocess(sdk::RunContext& run);
    void start_pipeline(sdk::RunContext& run);
    void wait_pipeline(sdk::RunContext& run);
    void infer_postprocess(sdk::RunContext& run);

  protected:
    Tensor create_port_tensor(const Output& port, bool is_input) const override;

  private:
    std::shared_ptr<const CompiledModel> m_model;
    PlanExecutor m_executor;
    std::vector<std::shared_ptr<sdk::HostVariableState>> m_states;
    std::vector<StepTiming> m_step_timings;  // of the last profiled inference
};

}  // namespace vireo::template_plugin
