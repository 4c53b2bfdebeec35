// Declares PlanExecutor: one request's working memory for an ExecutionPlan and the loop that
// runs the plan's steps over it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "execution_plan.hpp"
#include "subgraph_runner.hpp"
#include "variable_state.hpp"

namespace vireo::template_plugin {

/// Timing of one step of the last run (filled only when profiling is on).
struct StepTiming {
    bool executed = false;
    std::chrono::microseconds real{0};
    std::chrono::microseconds cpu{0};
};

/// Runs an ExecutionPlan for one request.
///
/// Memory: a static plan gets one arena of plan.arena_bytes() allocated in the constructor and
/// never again; every computed value is a fixed view into it. A dynamic plan keeps one growable
/// buffer per slot and re-infers the shapes of a step only when its inputs' shapes (or small
/// inputs' values, which may drive shapes) differ from the previous run. `on_allocation` is
/// called for every allocation or growth of that memory (the compiled model counts them).
///
/// Inputs are used in place when they are contiguous host tensors, else copied to staging
/// memory; outputs are written straight into their tensors when those are contiguous host
/// tensors of the right shape, else copied by finish().
///
/// Not thread-safe: one request uses it at a time.
class PlanExecutor {
  public:
    PlanExecutor(std::shared_ptr<const ExecutionPlan> plan, std::function<void()> on_allocation);
    ~PlanExecutor();

    /// Sets the tensor of model input `index` for the next run.
    void bind_input(size_t index, const Tensor& tensor);
    /// Sets the tensor that receives model output `index` in the next run.
    void bind_output(size_t index, const Tensor& tensor);
    /// Runs every step. `stop` is polled before each step; when it returns true the run ends
    /// with Cancelled. `timings` (size steps(), or null) receives per-step times.
    void run(const std::function<bool()>& stop, std::vector<StepTiming>* timings,
             const std::vector<std::shared_ptr<VariableState>>& states);
    /// After a successful run: copies the outputs that were not written in place into their
    /// tensors (resizing them for dynamic shapes) and commits Assign values to `states`.
    /// Throws InvalidArgument naming the output when its tensor cannot take the result's shape.
    void finish(const std::vector<std::shared_ptr<VariableState>>& states);

    /// After a run: the value of model output `index` as computed, without copying it to the
    /// bound tensor (sub-graph bodies read their Results this way). Valid until the next run.
    const Tensor& result(size_t index) const {
        return m_values.at(m_plan->result_values().at(index));
    }

    /// Steps executed by the last run (less than steps().size() if it was cancelled or failed).
    size_t executed_steps() const { return m_executed; }
    /// Outputs written in place by the last run.
    bool output_in_place(size_t index) const { return m_out_in_place.at(index); }

  private:
    void run_step(size_t s, const std::vector<std::shared_ptr<VariableState>>& states);
    void run_subgraph(size_t s);
    void prepare_dynamic_outputs(size_t s,
                                 const std::vector<std::shared_ptr<VariableState>>& states);
    Tensor& storage_for(size_t value, const Shape& shape);
    bool needs_shape_inference(size_t s);
    void* grow_slot(size_t slot, size_t bytes);

    std::shared_ptr<const ExecutionPlan> m_plan;
    std::function<void()> m_on_allocation;
    std::shared_ptr<void> m_arena;               // static plans
    std::vector<std::shared_ptr<void>> m_slots;  // dynamic plans
    std::vector<size_t> m_slot_bytes;
    std::vector<Tensor> m_values;   // current tensor of each value
    std::vector<Tensor> m_views;    // static plans: the arena view of each planned value
    std::vector<Tensor> m_staging;  // dynamic plans: contiguous copies of strided/remote inputs
    std::vector<Tensor> m_inputs;   // bound input tensors
    std::vector<Tensor> m_outputs;  // bound output tensors
    std::vector<bool> m_out_in_place;
    std::vector<std::vector<Tensor>> m_step_inputs;
    std::vector<std::vector<Tensor>> m_step_outputs;
    // Dynamic plans: per step, the input shapes and small input values of the last inference,
    // and the output shapes inferred from them.
    std::vector<std::vector<Shape>> m_seen_shapes;
    std::vector<std::vector<std::vector<uint8_t>>> m_seen_values;
    std::vector<std::vector<Shape>> m_out_shapes;
    std::vector<bool> m_shapes_known;
    // Per step: its output shapes depend on the values of an input larger than the remembered
    // ones (NonZero), so it is re-inferred on every run.
    std::vector<bool> m_large_value_driven;
    size_t m_executed = 0;
    // Sub-graph steps: one runner each, made on first use; the stop predicate of the current run.
    std::vector<std::unique_ptr<SubgraphRunner>> m_subgraphs;
    const std::function<bool()>* m_stop = nullptr;
};

}  // namespace vireo::template_plugin
