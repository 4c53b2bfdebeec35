// Declares the running side of a GraphPlan: run_steps(), the kernel-running loop every plugin
// shares (cancel checks, per-op timing), and PlanRunner, one request's host memory for a plan
// (arena or slots, bound inputs and outputs, run-time shape re-inference) with hooks for the
// steps a plugin runs itself (variables, If/Loop).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vireo/reference/graph_plan.hpp"
#include "vireo/sdk/run_context.hpp"

namespace vireo::reference {

/// Timing of one step of the last run (filled only when asked for).
struct StepTiming {
    bool executed = false;
    std::chrono::microseconds real{0};  ///< wall time of the step
    std::chrono::microseconds cpu{0};   ///< CPU time of the running thread during the step
};

/// What run_steps() asks of its caller around each step.
struct StepCallbacks {
    /// Called before a step with its inputs gathered; must leave the tensors the step writes in
    /// `values` (a dynamic plan resizes them here). Empty: the outputs are already in place.
    std::function<void(size_t step, const std::vector<Tensor>& inputs)> prepare;
    /// Runs a step that is not a kernel (kReadValue, kAssign, kSubgraph) with its inputs and
    /// outputs as they are in `values` after prepare. Empty: such a step throws NotImplemented.
    std::function<void(size_t step, const std::vector<Tensor>& inputs,
                       std::vector<Tensor>& outputs)>
        special;
};

/// Reusable per-step tensor lists of run_steps(): kept by a caller that runs a plan often, so
/// that a run allocates nothing (one per nesting level: a body's run needs its own).
struct StepScratch {
    std::vector<Tensor> inputs;
    std::vector<Tensor> outputs;
};

/// The loop every executor shares. For each step of `plan` in order: polls `stop` (when it
/// returns true the run ends with Cancelled naming the step, before the step runs), gathers the
/// step's input and output tensors from `values` (one per value id), runs its kernel (or
/// `callbacks.special`), and when `timings` is given records one row per step (resized to
/// steps(); steps not reached stay not executed). `executed` (may be null) counts the steps
/// that completed, also when a step throws. `scratch` (may be null: a local one) holds the
/// step's tensor lists.
void run_steps(const GraphPlan& plan, std::vector<Tensor>& values, const StepCallbacks& callbacks,
               const std::function<bool()>& stop, std::vector<StepTiming>* timings,
               size_t* executed = nullptr, StepScratch* scratch = nullptr);

/// Registers with the run's profiling sink one op row per step of `plan` (RunContext::op_rows:
/// built only when the rows are asked for): the node's friendly name and type, `exec_type` (a
/// literal), the step's wall and CPU time, NOT_RUN for a step the run did not reach. `timings`
/// is read then: pass the request's own vector that run_steps() fills (it outlives the run's
/// context). Register before the run, so a cancelled or failed run reports its steps too.
void record_step_rows(sdk::RunContext& run, std::shared_ptr<const GraphPlan> plan,
                      const std::vector<StepTiming>* timings, const char* exec_type);

/// Runs a GraphPlan (built with plan_memory) for one request on host memory.
///
/// Memory: a static plan gets one arena of plan.arena_bytes() allocated in the constructor and
/// never again; every computed value is a fixed view into it. A dynamic plan keeps one growable
/// buffer per slot and re-infers the shapes of a step only when its inputs' shapes (or small
/// inputs' values, which may drive shapes) differ from the previous run. `on_allocation` is
/// called for every allocation or growth of that memory.
///
/// Inputs are used in place when they are contiguous host tensors, else (ROI views, remote
/// tensors) copied to staging memory; outputs are written straight into their tensors when those
/// are contiguous host tensors of the right shape, else copied by finish().
///
/// Hooks: a subclass runs the steps the plan cannot run alone (ReadValue/Assign with the
/// plugin's variable states, If/Loop bodies); the defaults throw NotImplemented naming the node.
///
/// Not thread-safe: one request uses it at a time.
class PlanRunner {
  public:
    PlanRunner(std::shared_ptr<const GraphPlan> plan, std::function<void()> on_allocation);
    virtual ~PlanRunner();
    PlanRunner(const PlanRunner&) = delete;
    PlanRunner& operator=(const PlanRunner&) = delete;

    const std::shared_ptr<const GraphPlan>& plan() const { return m_plan; }

    /// How bind_input takes a tensor.
    enum class InputBinding {
        kInPlace,  ///< read in place when it is a contiguous host tensor, else copied (default)
        kCopy,     ///< always copied into the runner's own memory (a device that models an
                   ///< upload; a caller that may change the tensor while the run is in flight)
    };
    /// Sets the tensor of model input `index` for the next run (see InputBinding: by default a
    /// contiguous host tensor is read in place, so it must stay unchanged until the run ends).
    /// Throws InvalidArgument naming the input when the tensor's type (or, static plans, shape)
    /// does not match.
    void bind_input(size_t index, const Tensor& tensor,
                    InputBinding binding = InputBinding::kInPlace);
    /// Sets the tensor that receives model output `index` in the next run (written in place
    /// when it is a contiguous host tensor of the right type and shape, else by finish()).
    /// Optional: an output never bound (or bound to an empty Tensor) is only left in result().
    void bind_output(size_t index, const Tensor& tensor);
    /// Runs every step (run_steps). `stop` is polled before each step; when it returns true the
    /// run ends with Cancelled. `timings` (or null) receives one row per step.
    void run(const std::function<bool()>& stop, std::vector<StepTiming>* timings);
    /// After a successful run: copies the outputs that were not written in place into their
    /// bound tensors (resizing them for dynamic shapes; unbound outputs are skipped). Throws
    /// InvalidArgument naming the output when its tensor cannot take the result's shape.
    void finish();

    /// After a run: the value of model output `index` as computed, without copying it to the
    /// bound tensor (sub-graph bodies read their Results this way). Valid until the next run.
    const Tensor& result(size_t index) const {
        return m_values.at(m_plan->result_values().at(index));
    }
    /// After a run: the current tensor of value `id`.
    const Tensor& value(size_t id) const { return m_values.at(id); }

    /// Steps executed by the last run (less than steps().size() if it was cancelled or failed).
    size_t executed_steps() const { return m_executed; }
    /// Outputs written in place by the last run.
    bool output_in_place(size_t index) const { return m_out_in_place.at(index); }

  protected:
    /// Dynamic plans: the output shapes of a kReadValue or kAssign step for these inputs.
    virtual std::vector<Shape> special_output_shapes(size_t step,
                                                     const std::vector<Tensor>& inputs);
    /// Runs a kReadValue or kAssign step.
    virtual void run_special_step(size_t step, const std::vector<Tensor>& inputs,
                                  std::vector<Tensor>& outputs);
    /// Runs a kSubgraph step: returns its output tensors (they may be views of the bodies'
    /// memory, valid until the next run; the runner copies them). `stop` is the run's.
    virtual std::vector<Tensor> run_subgraph(size_t step, const std::vector<Tensor>& inputs,
                                             const std::function<bool()>& stop);
    const std::function<void()>& on_allocation() const { return m_on_allocation; }

  private:
    void prepare_step(size_t s, const std::vector<Tensor>& ins);
    void special_step(size_t s, const std::vector<Tensor>& ins, std::vector<Tensor>& outs);
    Tensor& storage_for(size_t value, const Shape& shape);
    bool needs_shape_inference(size_t s, const std::vector<Tensor>& ins);
    void* grow_slot(size_t slot, size_t bytes);

    std::shared_ptr<const GraphPlan> m_plan;
    std::function<void()> m_on_allocation;
    StepCallbacks m_callbacks;
    StepScratch m_scratch;
    std::shared_ptr<void> m_arena;               // static plans
    std::vector<std::shared_ptr<void>> m_slots;  // dynamic plans
    std::vector<size_t> m_slot_bytes;
    std::vector<Tensor> m_values;   // current tensor of each value
    std::vector<Tensor> m_views;    // static plans: the arena view of each planned value
    std::vector<Tensor> m_staging;  // dynamic plans: contiguous copies of strided/remote inputs
    std::vector<Tensor> m_inputs;   // bound input tensors
    std::vector<Tensor> m_outputs;  // bound output tensors
    std::vector<bool> m_out_in_place;
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
    const std::function<bool()>* m_stop = nullptr;  // the current run's
};

}  // namespace vireo::reference
