// Declares the MOCK_REMOTE compiled model: an execution plan for one device instance, its weights
// in device memory, its settings and the per-model execution counter faults are keyed on.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "config.hpp"
#include "device.hpp"
#include "execution_plan.hpp"
#include "vireo/sdk/icompiled_model.hpp"

namespace vireo::mock_remote {

class Plugin;

/// One model compiled for one instance. Weights are uploaded to the device at construction and
/// freed with the model. Requests share the plan and the weights.
/// Thread-safe (set_property included: settings are read as a snapshot per execution).
class CompiledModel : public sdk::ICompiledModel {
  public:
    /// What the next execution of this model runs with, decided at submission in submission
    /// order, so faults and jitter are deterministic for a given seed.
    struct Execution {
        uint64_t number = 0;  // from 1
        JobFault fault = JobFault::kNone;
        std::chrono::nanoseconds fixed_time{0};  // latency + jitter
        Config config;
    };

    /// Throws NotImplemented when the plan cannot be built (see ExecutionPlan).
    CompiledModel(const std::shared_ptr<const Model>& model,
                  const std::shared_ptr<const Plugin>& plugin, std::shared_ptr<Device> device,
                  std::string device_id, const Config& config, bool loaded_from_cache);
    ~CompiledModel() override;

    std::shared_ptr<sdk::IAsyncInferRequest> create_infer_request() const override;
    /// Blob: magic, format version, plugin version, settings, IR xml and weights.
    void export_model(std::ostream& blob) const override;
    std::shared_ptr<const Model> get_runtime_model() const override;
    /// Timing, fault and profiling settings may change; other keys are read-only here.
    void set_property(const AnyMap& properties) override;
    Any get_property(const std::string& name) const override;

    const std::shared_ptr<Device>& device() const { return m_device; }
    const std::shared_ptr<const ExecutionPlan>& plan() const { return m_plan; }
    /// Device buffers of the constants, by constant index.
    const std::vector<BufferHandle>& weights() const { return m_weights; }
    Config config() const;
    Execution next_execution() const;

  protected:
    std::shared_ptr<sdk::ISyncInferRequest> create_sync_infer_request() const override;

  private:
    std::shared_ptr<Device> m_device;
    std::string m_device_id;
    std::shared_ptr<const ExecutionPlan> m_plan;
    std::vector<BufferHandle> m_weights;
    const bool m_loaded_from_cache;

    std::unique_ptr<sdk::PropertyTable> m_properties;
    mutable std::mutex m_mutex;
    Config m_config;
    mutable uint64_t m_executions = 0;
    mutable std::mt19937_64 m_rng;
};

}  // namespace vireo::mock_remote
