// Declares ExecutionPlan: a compiled model as the simulated device runs it — values with static
// shapes, one prepared reference kernel per op, and the modelled cost of each op.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "config.hpp"
#include "device_memory.hpp"
#include "vireo/model.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::mock_remote {

/// One tensor of the plan: a model input, a constant (weights, uploaded once per compiled
/// model) or an op output (a per-request device buffer).
struct PlanValue {
    enum class Kind { kInput, kConstant, kIntermediate };
    Kind kind = Kind::kIntermediate;
    element::Type type;
    Shape shape;
    size_t bytes = 0;
    size_t index = 0;  // input index for kInput, constant index for kConstant
};

/// One op: its kernel and the value ids it reads and writes.
struct PlanStep {
    NodePtr node;
    std::unique_ptr<reference::Kernel> kernel;
    std::vector<size_t> inputs;
    std::vector<size_t> outputs;
};

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

    /// Why each op of `model` cannot run here (friendly name -> reason); empty when all can.
    static std::vector<std::pair<std::string, std::string>> unsupported_ops(const Model& model);

    const std::shared_ptr<const Model>& model() const { return m_model; }
    const std::vector<PlanValue>& values() const { return m_values; }
    const std::vector<PlanStep>& steps() const { return m_steps; }
    /// Value id of each model input, in parameter order.
    const std::vector<size_t>& input_values() const { return m_input_values; }
    /// Value id feeding each model output, in result order.
    const std::vector<size_t>& output_values() const { return m_output_values; }
    /// Host values of the constants, by constant index.
    const std::vector<Tensor>& constants() const { return m_constants; }

    /// Runs every op on device storage and copies the results into `outputs` (one per model
    /// output). `values` holds the storage of every value id. Returns the modelled device time
    /// of the ops and copies; fills `timings` (one per step) when given.
    std::chrono::nanoseconds execute(const std::vector<std::shared_ptr<DeviceStorage>>& values,
                                     const std::vector<std::shared_ptr<DeviceStorage>>& outputs,
                                     const TimingModel& timing,
                                     std::vector<OpTiming>* timings) const;

  private:
    std::shared_ptr<const Model> m_model;
    std::vector<PlanValue> m_values;
    std::vector<PlanStep> m_steps;
    std::vector<size_t> m_input_values;
    std::vector<size_t> m_output_values;
    std::vector<Tensor> m_constants;
};

}  // namespace vireo::mock_remote
