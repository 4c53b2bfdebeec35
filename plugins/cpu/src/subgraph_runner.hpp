// Declares SubgraphRunner: CPU's If/Loop step — the SDK's sub-graph semantics
// (reference::SubgraphRunner) over the compiled graphs of its bodies, each with its own executor.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "graph.hpp"
#include "vireo/reference/subgraph_runner.hpp"

namespace vireo::cpu_plugin {

class GraphExecutor;

/// Runs one If or Loop step for one request (see reference::SubgraphRunner for the semantics).
/// Body executors are made on first use and kept, so their memory is reused by later runs and
/// iterations; a body's results are copies. Not thread-safe (one request).
class SubgraphRunner final : public reference::SubgraphRunner {
  public:
    SubgraphRunner(const Step& step, int omp_threads);
    ~SubgraphRunner() override;

    /// Why the compiler cannot run `node` (If or Loop) with this runner, or "" when it can.
    static std::string unsupported_reason(const Node& node);

  private:
    /// Runs body `b` on `inputs` (one per body Parameter) and returns copies of its Results.
    std::vector<Tensor> run_body(size_t b, const std::vector<Tensor>& inputs,
                                 const std::function<bool()>& stop) override;
    /// The executor for body `b` on inputs of these shapes: a body compiled with dynamic shapes
    /// (its ops on reference kernels) is compiled again for the shapes it meets, so its
    /// convolutions, MatMuls and RNNs run on oneDNN as the main graph's do (CompiledModel::
    /// graph_for); up to kMaxBodyShapes shapes per body, then the generic body.
    GraphExecutor& executor_for(size_t b, const std::vector<Tensor>& inputs);
    static constexpr size_t kMaxBodyShapes = 8;

    const Step& m_step;
    int m_threads;
    std::vector<std::unique_ptr<GraphExecutor>> m_bodies;  // the generic body graphs
    /// Per body: executors of the body specialized to input shapes (null: not specializable).
    std::vector<std::map<std::vector<Shape>, std::unique_ptr<GraphExecutor>>> m_specialized;
};

}  // namespace vireo::cpu_plugin
