// Declares the REMOTE compiled model: a model served by one server, and what its requests share.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "config.hpp"
#include "plugin.hpp"
#include "vireo/sdk/icompiled_model.hpp"

namespace vireo::remote {

/// A model on a server: its served name and port binding, the instance's channel (kserve::Client)
/// and executors (host stages on "<instance>/host", waits on "<instance>/wait"), and the
/// settings of the compile. Requests are three-stage pipelines (infer_request.hpp).
///
/// Properties: the SDK's compiled-model keys (OPTIMAL_NUMBER_OF_INFER_REQUESTS: 4 under a
/// THROUGHPUT hint, else 1), PERF_COUNT (settable), and read-only REMOTE_URL, REMOTE_MODEL_NAME,
/// REMOTE_MODEL_VERSION (the model as the server serves it), REMOTE_TIMEOUT_MS, REMOTE_RETRIES.
/// The destructor unloads a model it loaded when REMOTE_UNLOAD_ON_RELEASE is set and no other
/// compiled model of the plugin uses it.
class CompiledModel : public sdk::ICompiledModel {
  public:
    CompiledModel(std::shared_ptr<Model> model, const std::shared_ptr<const Plugin>& plugin,
                  std::shared_ptr<kserve::Client> client,
                  std::shared_ptr<sdk::ITaskExecutor> host_executor,
                  std::shared_ptr<sdk::ITaskExecutor> wait_executor, Config config,
                  ServedModel served, std::string instance_name, std::string instance_id);
    ~CompiledModel() override;

    std::shared_ptr<sdk::IAsyncInferRequest> create_infer_request() const override;
    std::shared_ptr<const Model> get_runtime_model() const override;
    void set_property(const AnyMap& properties) override;
    Any get_property(const std::string& name) const override;

    const Config& config() const { return m_config; }
    const ServedModel& served() const { return m_served; }
    kserve::Client& client() const { return *m_client; }
    /// "REMOTE.0 (host:port), model 'name'": how errors start.
    const std::string& where() const { return m_where; }
    bool profiling_enabled() const { return m_profiling.load(std::memory_order_relaxed); }
    /// For a model this plugin loaded, after an inference found the server without it (a
    /// restarted server): loads it again, once for the requests that saw the same loss together
    /// (`seen` is the reload count the caller saw before its call). False in repository mode or
    /// when the load fails.
    bool reload(uint64_t seen) const;
    uint64_t reloads() const { return m_reloads.load(); }

  protected:
    std::shared_ptr<sdk::ISyncInferRequest> create_sync_infer_request() const override;

  private:
    std::shared_ptr<Model> m_model;
    std::shared_ptr<const Plugin> m_plugin;
    std::shared_ptr<kserve::Client> m_client;
    std::shared_ptr<sdk::ITaskExecutor> m_wait_executor;
    Config m_config;
    ServedModel m_served;
    std::string m_where;
    std::atomic<bool> m_profiling;
    mutable std::mutex m_reload_mutex;
    mutable std::atomic<uint64_t> m_reloads{0};
    std::unique_ptr<sdk::PropertyTable> m_properties;
};

}  // namespace vireo::remote
