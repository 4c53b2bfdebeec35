// Declares ExecutionPlan: a compiled model as the simulated device runs it — the SDK's GraphPlan
// (values with static shapes, one prepared reference kernel per op) plus what is the device's own:
// the ops it accepts, every value in its own device buffer, and the modelled cost of each op.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "config.hpp"
#include "device_memory.hpp"
#include "vireo/model.hpp"
#include "vireo/reference/graph_plan.hpp"
#include "vireo/sdk/support_check.hpp"

namespace vireo::mock_remote {

using reference::PlanStep;
using reference::PlanValue;  // kParameter (index: input), kConstant (index: constant), kComputed
using reference::ValueKind;

/// Per-op timings of one execution, for profiling: modelled device time and the host time the
/// reference kernel really took.
struct OpTiming {
    std::string name;
    std::string type;
    std::chrono::nanoseconds modelled{0};
    std::chrono::nanoseconds host{0};
};

/// Built once per compiled model, shared (read-only) by its requests and their device jobs.
/// Static shapes only. Thread-safe for concurrent execute() calls on different storages.
class ExecutionPlan {
  public:
    /// Throws NotImplemented listing every op the device cannot run (dynamic shapes, variables,
    /// ops without a reference kernel).
    explicit ExecutionPlan(std::shared_ptr<const Model> model);

    /// Whether the device runs `node` (every node is asked, Parameters and Results included:
    /// dynamic shapes are refused wherever they appear), with the reason when it does not. The
    /// one predicate behind query_model and compile_model (sdk::check_supported).
    static sdk::Support runs(const Node& node);

    const std::shared_ptr<const Model>& model() const { return m_graph.model(); }
    /// The shared plan (built without a memory plan: the request gives each value a buffer).
    const reference::GraphPlan& graph() const { return m_graph; }
    const std::vector<PlanValue>& values() const { return m_graph.values(); }
    const std::vector<PlanStep>& steps() const { return m_graph.steps(); }
    /// Value id of each model input, in parameter order.
    const std::vector<size_t>& input_values() const { return m_graph.parameter_values(); }
    /// Value id feeding each model output, in result order.
    const std::vector<size_t>& output_values() const { return m_graph.result_values(); }
    /// Host values of the constants, by constant index.
    const std::vector<Tensor>& constants() const { return m_constants; }

    /// Runs every op on device storage and copies the results into `outputs` (one per model
    /// output). `values` holds the storage of every value id. The ops run in the SDK's loop
    /// (reference::run_steps). Returns the modelled device time of the ops and copies; fills
    /// `timings` (one per step) when given.
    std::chrono::nanoseconds execute(const std::vector<std::shared_ptr<DeviceStorage>>& values,
                                     const std::vector<std::shared_ptr<DeviceStorage>>& outputs,
                                     const TimingModel& timing,
                                     std::vector<OpTiming>* timings) const;

  private:
    /// Throws NotImplemented listing every node runs() refuses, with its reason; else returns
    /// `model`.
    static std::shared_ptr<const Model> checked(std::shared_ptr<const Model> model);

    reference::GraphPlan m_graph;
    std::vector<Tensor> m_constants;
};

}  // namespace vireo::mock_remote
