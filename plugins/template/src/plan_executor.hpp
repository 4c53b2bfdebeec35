// Declares PlanExecutor: the SDK's PlanRunner (vireo/reference/plan_runner.hpp) with what is
// TEMPLATE's own: ReadValue/Assign on the request's variable states and If/Loop bodies.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "execution_plan.hpp"
#include "subgraph_runner.hpp"
#include "vireo/reference/plan_runner.hpp"
#include "vireo/sdk/host_variable_state.hpp"

namespace vireo::template_plugin {

using reference::StepTiming;

/// Runs an ExecutionPlan for one request: memory, binding, shapes and the step loop are the
/// SDK's PlanRunner; this class adds the variable states (a ReadValue reads its state, or its
/// init input after a reset; Assign values are committed by finish()) and the sub-graph steps
/// (one SubgraphRunner each, made on first use). Not thread-safe: one request uses it at a time.
class PlanExecutor : public reference::PlanRunner {
  public:
    PlanExecutor(std::shared_ptr<const ExecutionPlan> plan, std::function<void()> on_allocation);
    ~PlanExecutor() override;

    /// Runs every step (PlanRunner::run) with `states` as the variables' values.
    void run(const std::function<bool()>& stop, std::vector<StepTiming>* timings,
             const std::vector<std::shared_ptr<sdk::HostVariableState>>& states);
    /// After a successful run: delivers the outputs (PlanRunner::finish) and commits Assign
    /// values to `states`.
    void finish(const std::vector<std::shared_ptr<sdk::HostVariableState>>& states);

  protected:
    std::vector<Shape> special_output_shapes(size_t step,
                                             const std::vector<Tensor>& inputs) override;
    void run_special_step(size_t step, const std::vector<Tensor>& inputs,
                          std::vector<Tensor>& outputs) override;
    std::vector<Tensor> run_subgraph(size_t step, const std::vector<Tensor>& inputs,
                                     const std::function<bool()>& stop) override;

  private:
    Tensor read_value_source(const PlanStep& step, const std::vector<Tensor>& ins) const;

    // The current run's states (null outside run(): the list may be a temporary).
    const std::vector<std::shared_ptr<sdk::HostVariableState>>* m_states = nullptr;
    std::vector<std::unique_ptr<SubgraphRunner>> m_subgraphs;
};

}  // namespace vireo::template_plugin
