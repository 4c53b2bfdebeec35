// Declares SubgraphRunner: one request's execution of a sub-graph step (If, Loop) by running the
// plans of its bodies, each with its own PlanExecutor and buffers.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "execution_plan.hpp"

namespace vireo::template_plugin {

class PlanExecutor;

/// Runs one If or Loop step for one request. The body executors are made on first use and kept,
/// so their memory is reused by later runs and iterations. Not thread-safe (one request).
class SubgraphRunner {
  public:
    SubgraphRunner(const PlanStep& step, std::function<void()> on_allocation);
    ~SubgraphRunner();

    /// Computes the node's outputs from its input tensors. The returned tensors may be views of
    /// a body's memory: valid until the next run. `stop` is polled before each body run (and by
    /// the bodies' steps); when it returns true the run ends with Cancelled. Throws
    /// InvalidArgument naming the node when a condition or trip count is not a scalar, a slice
    /// is out of range, or a Loop output has no value after zero iterations.
    std::vector<Tensor> run(const std::vector<Tensor>& inputs, const std::function<bool()>& stop);

  private:
    std::vector<Tensor> run_if(const std::vector<Tensor>& inputs,
                               const std::function<bool()>& stop);
    std::vector<Tensor> run_loop(const std::vector<Tensor>& inputs,
                                 const std::function<bool()>& stop);
    /// Binds `inputs` to body `b`'s Parameters, runs it and returns its Results.
    std::vector<Tensor> run_body(size_t b, const std::vector<Tensor>& inputs,
                                 const std::function<bool()>& stop);

    const PlanStep& m_step;
    std::function<void()> m_on_allocation;
    std::vector<std::unique_ptr<PlanExecutor>> m_bodies;
};

}  // namespace vireo::template_plugin
