// Declares CompiledModel: a model compiled for TEMPLATE — the transformed graph, its execution
// plan, the streams executor its requests run on, and its properties.
#pragma once

#include <atomic>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "config.hpp"
#include "execution_plan.hpp"
#include "plan_executor.hpp"
#include "vireo/sdk/icompiled_model.hpp"

namespace vireo::template_plugin {

class Plugin;

/// A compiled model. Holds the transformed model and its plan (kernels created once, shared by
/// every request) and its own streams executor named "TemplateStreams" with the configured
/// streams and threads per stream.
///
/// Properties (get_property): OPTIMAL_NUMBER_OF_INFER_REQUESTS (= streams), NETWORK_NAME,
/// EXECUTION_DEVICES {"TEMPLATE"}, LOADED_FROM_CACHE, PERF_COUNT (also settable),
/// NUM_STREAMS, PERFORMANCE_HINT, INFERENCE_NUM_THREADS, PERFORMANCE_HINT_NUM_REQUESTS,
/// DEVICE_ID, SUPPORTED_PROPERTIES, and TEMPLATE_ARENA_ALLOCATIONS / TEMPLATE_ARENA_BYTES.
///
/// Thread safety: as ICompiledModel; the per-op statistics are atomics.
class CompiledModel : public sdk::ICompiledModel {
  public:
    /// `model` is the transformed private copy `plan` was built from. `weights` (may be empty)
    /// is memory the model's Constants may point into (an imported blob's weights).
    CompiledModel(std::shared_ptr<Model> model, std::shared_ptr<const ExecutionPlan> plan,
                  const std::shared_ptr<const Plugin>& plugin, const Config& config,
                  bool loaded_from_cache, Tensor weights = {});
    ~CompiledModel() override;

    std::shared_ptr<sdk::IAsyncInferRequest> create_infer_request() const override;
    /// Writes the blob Plugin::import_model reads (see blob_format.hpp).
    void export_model(std::ostream& blob) const override;
    std::shared_ptr<const Model> get_runtime_model() const override;
    /// From a property table: only PERF_COUNT may change after compilation; other known keys ->
    /// InvalidArgument (read only), unknown keys -> NotFound listing the supported ones.
    void set_property(const AnyMap& properties) override;
    Any get_property(const std::string& name) const override;

    const std::shared_ptr<const ExecutionPlan>& plan() const { return m_plan; }
    const Config& config() const { return m_config; }
    bool profiling_enabled() const;
    /// Adds one inference's per-step times to the averages the runtime model reports.
    void record_step_times(const std::vector<StepTiming>& timings) const;
    /// Average time of step `s` in microseconds, or -1 if it never ran with profiling on.
    double average_step_time(size_t s) const;
    void count_allocation() const { m_allocations.fetch_add(1, std::memory_order_relaxed); }

  protected:
    std::shared_ptr<sdk::ISyncInferRequest> create_sync_infer_request() const override;

  private:
    struct StepStats {
        std::atomic<uint64_t> total_us{0};
        std::atomic<uint64_t> runs{0};
    };

    std::shared_ptr<Model> m_model;
    std::shared_ptr<const ExecutionPlan> m_plan;
    Config m_config;
    bool m_loaded_from_cache;
    Tensor m_weights;
    std::atomic<bool> m_profiling;  // PERF_COUNT, as the table holds it
    std::unique_ptr<sdk::PropertyTable> m_properties;
    mutable std::atomic<uint64_t> m_allocations{0};
    std::unique_ptr<StepStats[]> m_step_stats;
};

}  // namespace vireo::template_plugin
