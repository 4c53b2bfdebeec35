// Declares SubgraphRunner: CPU's If/Loop step — the SDK's sub-graph semantics
// (reference::SubgraphRunner) over the compiled graphs of its bodies, each with its own executor.
#pragma once

#include <functional>
#include <list>
#include <map>
#include <memory>
#include <vector>

#include "graph.hpp"
#include "seen_shapes.hpp"
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

    /// Which graphs the last run()'s body runs took: "compiled body" (each a graph compiled for
    /// its input shapes, or a static body), "generic body" (each the body's dynamic graph) or
    /// "compiled and generic bodies", or "no body run" (a Loop of no iteration); for the step's
    /// profile row.
    const char* last_run_bodies() const;
    /// Resets what last_run_bodies() reports (before a run).
    void start_run() { m_compiled_runs = m_generic_runs = 0; }

  private:
    /// Runs body `b` on `inputs` (one per body Parameter) and returns copies of its Results.
    std::vector<Tensor> run_body(size_t b, const std::vector<Tensor>& inputs,
                                 const std::function<bool()>& stop) override;
    /// The executor for body `b` on inputs of these shapes: a body compiled with dynamic shapes
    /// (its ops on reference kernels) is compiled again for the shapes it meets, so its
    /// convolutions, MatMuls and RNNs run on oneDNN as the main graph's do; like the model's own
    /// shapes (CompiledModel::graph_for), at their second use — a Loop whose body sees new shapes
    /// at every iteration compiles nothing — and kept for the last kMaxBodyShapes shape sets per
    /// body, least recently used out (an evicted set is compiled again at its next use).
    GraphExecutor& executor_for(size_t b, const std::vector<Tensor>& inputs);
    static constexpr size_t kMaxBodyShapes = 8;

    const Step& m_step;
    int m_threads;
    std::vector<std::unique_ptr<GraphExecutor>> m_bodies;  // the generic body graphs
    struct Specialized {
        std::unique_ptr<GraphExecutor> executor;      // null: these shapes are not specializable
        std::list<std::vector<Shape>>::iterator use;  // its place in BodyShapes::recent
    };
    struct BodyShapes {
        std::map<std::vector<Shape>, Specialized> compiled;
        std::list<std::vector<Shape>> recent;  // compiled shape sets, most recently used first
        SeenShapes seen{2 * kMaxBodyShapes};   // met once (or evicted)
    };
    std::vector<BodyShapes> m_specialized;  // per body
    size_t m_compiled_runs = 0, m_generic_runs = 0;
};

}  // namespace vireo::cpu_plugin
