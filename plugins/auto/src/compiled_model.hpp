// Declares CompiledModel: an AUTO or MULTI compiled model, which owns the Scheduler (the
// devices' compiled copies and worker requests) and makes requests that run on them.
#pragma once

#include <memory>
#include <string>

#include "scheduler.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/property_table.hpp"

namespace auto_plugin {

class Plugin;

/// Properties: NETWORK_NAME, EXECUTION_DEVICES and OPTIMAL_NUMBER_OF_INFER_REQUESTS (live: they
/// change with the hand-over and after a fallback), MULTI_DEVICE_PRIORITIES (the devices able to
/// run the model, most preferred first), PERFORMANCE_HINT, ENABLE_STARTUP_FALLBACK (read-only),
/// ENABLE_RUNTIME_FALLBACK (read-write), AUTO_COMPILES and AUTO_FAILOVERS.
///
/// Requests run on an executor of its own whose streams only wait for workers (no compute), so
/// it has more streams (4 x the optimal number, at least 16, at most 256) than the devices run
/// requests at once: a request waiting for a free worker never holds up another one.
class CompiledModel : public vireo::sdk::ICompiledModel {
  public:
    /// `scheduler` is started (something is compiled) already.
    CompiledModel(const std::shared_ptr<const vireo::Model>& model,
                  const std::shared_ptr<const Plugin>& plugin, std::shared_ptr<Scheduler> scheduler,
                  vireo::hint::PerformanceMode hint, bool startup_fallback);
    ~CompiledModel() override;

    std::shared_ptr<vireo::sdk::IAsyncInferRequest> create_infer_request() const override;
    /// The serving device's runtime model.
    std::shared_ptr<const vireo::Model> get_runtime_model() const override;
    void set_property(const vireo::AnyMap& properties) override;
    vireo::Any get_property(const std::string& name) const override;

    const std::shared_ptr<Scheduler>& scheduler() const { return m_scheduler; }

  protected:
    std::shared_ptr<vireo::sdk::ISyncInferRequest> create_sync_infer_request() const override;

  private:
    std::shared_ptr<Scheduler> m_scheduler;
    std::unique_ptr<vireo::sdk::PropertyTable> m_properties;
};

}  // namespace auto_plugin
