// Declares InferRequest, the CPU plugin's synchronous request: binds tensors, runs the compiled
// graph, delivers outputs, keeps variable states and per-step timings.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "graph_executor.hpp"
#include "team_choice.hpp"
#include "vireo/sdk/isync_infer_request.hpp"

namespace vireo::cpu_plugin {

class CompiledModel;

/// One request of a CPU compiled model. infer() binds the inputs (contiguous host tensors in
/// place), runs the graph's steps (polling cancel between them), copies the results into the
/// output tensors and commits variables.
///
/// A dynamic model whose shapes follow from its input shapes runs, for each new set of input
/// shapes, a static graph compiled for them (oneDNN primitives; kept for later runs with the
/// same shapes), so it re-plans only when a shape changes.
///
/// Validation: the async request runs check_tensors() before a run starts. Memory: a static
/// model's working memory is allocated once, at creation. Cancel: the run context's token,
/// polled between steps. Not thread-safe: the async request serialises use.
class InferRequest : public sdk::ISyncInferRequest {
  public:
    explicit InferRequest(const std::shared_ptr<const CompiledModel>& compiled_model);
    ~InferRequest() override;

    /// Records the stage rows in the run's profiling sink, then (with profiling on) one row per
    /// step: node_name is the fused name ("conv1+bias+relu"), node_type the op types, exec_type
    /// the oneDNN implementation and layout ("brgconv:avx512_core nhwc") or "ref"; then the ops
    /// that became views (OPTIMIZED_OUT, exec_type "view").
    void infer(sdk::RunContext& run) override;
    std::vector<std::shared_ptr<sdk::IVariableState>> query_state() const override;

  protected:
    /// The port's shape, or for a dynamic port the smallest shape it allows.
    Tensor create_port_tensor(const Output& port, bool is_input) const override;

  private:
    std::shared_ptr<const CompiledModel> m_model;
    GraphExecutor m_executor;  // the compiled graph (for a dynamic model: reference kernels)
    // A dynamic model's executors per input shapes that have a graph of their own
    // (CompiledModel::graph_for); m_executor runs any other shapes.
    std::map<std::vector<Shape>, std::unique_ptr<GraphExecutor>> m_specialized;
    std::vector<std::shared_ptr<sdk::HostVariableState>> m_states;
    std::vector<StepTiming> m_step_timings;
    // A static model on two or more threads: which runs go to the one-thread graph
    // (CompiledModel::one_thread_graph), and its executor, made on the first such run.
    bool m_choose_team = false;
    TeamChoice m_team;
    std::unique_ptr<GraphExecutor> m_one_thread;
};

}  // namespace vireo::cpu_plugin
