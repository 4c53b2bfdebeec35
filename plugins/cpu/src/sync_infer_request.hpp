// Declares InferRequest, the CPU plugin's synchronous request: binds tensors, runs the compiled
// graph, delivers outputs, keeps variable states and per-step timings.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "graph_executor.hpp"
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
/// model's working memory is allocated once, at creation. Not thread-safe: the async request
/// serialises use; cancel() may come from any thread.
class InferRequest : public sdk::ISyncInferRequest {
  public:
    explicit InferRequest(const std::shared_ptr<const CompiledModel>& compiled_model);
    ~InferRequest() override;

    void infer() override;
    /// Stage rows, then (with profiling on) one row per step: node_name is the fused name
    /// ("conv1+bias+relu"), node_type the op types, exec_type the oneDNN implementation and layout
    /// ("brgconv:avx512_core nhwc") or "ref".
    std::vector<ProfilingInfo> get_profiling_info() const override;
    std::vector<std::shared_ptr<sdk::IVariableState>> query_state() const override;
    void cancel() override;

    /// A second cancellation source polled between steps (the async request's cancelled state).
    void set_cancel_check(std::function<bool()> check) { m_cancel_check = std::move(check); }

  private:
    std::shared_ptr<const CompiledModel> m_model;
    GraphExecutor m_executor;  // the compiled graph (for a dynamic model: reference kernels)
    // A dynamic model's executors per input shapes seen (CompiledModel::graph_for); null: no
    // static graph for those shapes, m_executor runs them.
    std::map<std::vector<Shape>, std::unique_ptr<GraphExecutor>> m_specialized;
    GraphExecutor* m_last = nullptr;  // the executor of the last run
    std::vector<std::shared_ptr<VariableState>> m_states;
    std::atomic<bool> m_cancel_requested{false};
    std::function<bool()> m_cancel_check;
    std::function<bool()> m_stop;
    std::chrono::microseconds m_run_time{0}, m_output_time{0};
    bool m_ran = false, m_finished = false;
    bool m_profiled = false;
    std::vector<StepTiming> m_step_timings;
};

}  // namespace vireo::cpu_plugin
