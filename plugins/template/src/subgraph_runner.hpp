// Declares SubgraphRunner: TEMPLATE's If/Loop step — the SDK's sub-graph semantics
// (reference::SubgraphRunner) over the plans of its bodies, each with its own PlanExecutor.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "execution_plan.hpp"
#include "vireo/reference/subgraph_runner.hpp"

namespace vireo::template_plugin {

class PlanExecutor;

/// Runs one If or Loop step for one request (see reference::SubgraphRunner for the semantics).
/// The body executors are made on first use and kept, so their memory is reused by later runs and
/// iterations; a body's results are views of its memory. Not thread-safe (one request).
class SubgraphRunner final : public reference::SubgraphRunner {
  public:
    SubgraphRunner(const PlanStep& step, std::function<void()> on_allocation);
    ~SubgraphRunner() override;

  private:
    /// Binds `inputs` to body `b`'s Parameters, runs it and returns its Results (views).
    std::vector<Tensor> run_body(size_t b, const std::vector<Tensor>& inputs,
                                 const std::function<bool()>& stop) override;

    const PlanStep& m_step;
    std::function<void()> m_on_allocation;
    std::vector<std::unique_ptr<PlanExecutor>> m_bodies;
};

}  // namespace vireo::template_plugin
