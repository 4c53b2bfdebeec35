// ECHO, the out-of-tree example plugin: a device with no latency of its own that runs the SDK's
// graph plan (reference kernels prepared once per compiled model). Declares its plugin, compiled
// model and sync request.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vireo/reference/graph_plan.hpp"
#include "vireo/reference/plan_runner.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"
#include "vireo/sdk/isync_infer_request.hpp"
#include "vireo/sdk/property_table.hpp"

namespace echo {

inline constexpr const char* kDeviceName = "ECHO";

/// The device: properties (an sdk::PropertyTable) PERFORMANCE_HINT and PERF_COUNT (RW) and
/// DEVICE_ID (RW, "" or "0"); capabilities FP32,
/// DYNAMIC_SHAPES, PROFILING. compile_model refuses models with ops the reference kernels do
/// not run (NotImplemented listing them) and stateful models. No export, no remote memory.
/// Thread safety: every method may be called concurrently (the table locks its values).
class Plugin : public vireo::sdk::IPlugin {
  public:
    Plugin();
    std::shared_ptr<vireo::sdk::ICompiledModel> compile_model(
        const std::shared_ptr<const vireo::Model>& model,
        const vireo::AnyMap& properties) const override;
    using vireo::sdk::IPlugin::compile_model;
    std::shared_ptr<vireo::sdk::ICompiledModel> import_model(
        std::istream& blob, const vireo::AnyMap& properties) const override;
    vireo::sdk::SupportedOpsMap query_model(const std::shared_ptr<const vireo::Model>& model,
                                            const vireo::AnyMap& properties) const override;
    void set_property(const vireo::AnyMap& properties) override;
    vireo::Any get_property(const std::string& name, const vireo::AnyMap& arguments) const override;

  private:
    vireo::sdk::PropertyTable m_properties;
};

/// A model compiled for ECHO: a copy of the caller's graph (friendly names kept) and its
/// reference::GraphPlan (kernels created once, shared by every request). Properties: NETWORK_NAME,
/// EXECUTION_DEVICES, OPTIMAL_NUMBER_OF_INFER_REQUESTS (RO), PERF_COUNT (RW).
class CompiledModel : public vireo::sdk::ICompiledModel {
  public:
    CompiledModel(const std::shared_ptr<const vireo::Model>& model,
                  const std::shared_ptr<const Plugin>& plugin, bool perf_count);
    std::shared_ptr<const vireo::Model> get_runtime_model() const override;
    void set_property(const vireo::AnyMap& properties) override;
    vireo::Any get_property(const std::string& name) const override;

    const std::shared_ptr<vireo::Model>& graph() const { return m_graph; }
    const std::shared_ptr<const vireo::reference::GraphPlan>& plan() const { return m_plan; }
    bool perf_count() const;

  protected:
    std::shared_ptr<vireo::sdk::ISyncInferRequest> create_sync_infer_request() const override;

  private:
    std::shared_ptr<vireo::Model> m_graph;
    std::shared_ptr<const vireo::reference::GraphPlan> m_plan;  // of m_graph
    vireo::sdk::PropertyTable m_properties;
};

/// One request: infer() runs the plan with a reference::PlanRunner (its own memory; shapes
/// re-inferred at run time, so any shape the model allows works), checking the run's cancel
/// token between ops, and writes the outputs into the output tensors (user-provided ones
/// included). Profiling rows go to the run context (the SDK's get_profiling_info); no states.
class InferRequest : public vireo::sdk::ISyncInferRequest {
  public:
    explicit InferRequest(const std::shared_ptr<const CompiledModel>& compiled_model);
    void infer(vireo::sdk::RunContext& run) override;

  private:
    std::shared_ptr<const CompiledModel> m_compiled;
    vireo::reference::PlanRunner m_runner;
    std::vector<vireo::reference::StepTiming> m_timings;
};

}  // namespace echo
