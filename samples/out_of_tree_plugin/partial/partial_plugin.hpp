// PARTIAL: a deliberately partial device built on the SDK kit only — it runs Add, Multiply,
// Relu, MatMul and Convolution, has a two-stage async pipeline (host stage, device wait stage)
// and one custom property. It proves that the op-aware conformance suite tests such a device.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "vireo/sdk/iasync_infer_request.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"
#include "vireo/sdk/isync_infer_request.hpp"
#include "vireo/sdk/property_table.hpp"

namespace partial {

inline constexpr const char* kDeviceName = "PARTIAL";
/// The custom property: how long the device takes per inference, in microseconds (0..1e6,
/// default 0); the device wait stage waits that long after the host stage submitted the job.
inline constexpr vireo::Property<uint32_t> device_time_us{"PARTIAL_DEVICE_TIME_US"};

/// The device: compile_model refuses models with other ops (NotImplemented naming them), and
/// query_model leaves them out — both from one sdk::OpSupport predicate. No export, no states.
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

/// A compiled model: a copy of the graph, its own wait executor, and its property table.
class CompiledModel : public vireo::sdk::ICompiledModel {
  public:
    CompiledModel(const std::shared_ptr<const vireo::Model>& model,
                  const std::shared_ptr<const Plugin>& plugin,
                  const vireo::sdk::PropertyValues& values);
    std::shared_ptr<vireo::sdk::IAsyncInferRequest> create_infer_request() const override;
    std::shared_ptr<const vireo::Model> get_runtime_model() const override;
    void set_property(const vireo::AnyMap& properties) override;
    vireo::Any get_property(const std::string& name) const override;

    const std::shared_ptr<vireo::Model>& graph() const { return m_graph; }
    bool perf_count() const;
    std::chrono::microseconds device_time() const;

  protected:
    std::shared_ptr<vireo::sdk::ISyncInferRequest> create_sync_infer_request() const override;

  private:
    std::shared_ptr<vireo::Model> m_graph;
    std::shared_ptr<vireo::sdk::ITaskExecutor> m_wait_executor;
    vireo::sdk::PropertyTable m_properties;
};

/// The synchronous request: host_stage() computes the graph with the reference kernels and
/// "submits" the job (its completion time); device_wait() waits for it, then writes outputs.
/// Cancel and profiling rows go through the run context; no states.
class SyncRequest : public vireo::sdk::ISyncInferRequest {
  public:
    explicit SyncRequest(const std::shared_ptr<const CompiledModel>& compiled);
    void infer(vireo::sdk::RunContext& run) override;
    void host_stage(vireo::sdk::RunContext& run);
    void device_wait(vireo::sdk::RunContext& run);

  private:
    std::shared_ptr<const CompiledModel> m_compiled;
    std::vector<vireo::Tensor> m_results;
    std::chrono::steady_clock::time_point m_done_at;
};

/// Two stages: {task executor: host_stage}, {wait executor: device_wait}.
class AsyncRequest : public vireo::sdk::IAsyncInferRequest {
  public:
    AsyncRequest(const std::shared_ptr<SyncRequest>& request,
                 const std::shared_ptr<vireo::sdk::ITaskExecutor>& task_executor,
                 const std::shared_ptr<vireo::sdk::ITaskExecutor>& wait_executor,
                 const std::shared_ptr<vireo::sdk::ITaskExecutor>& callback_executor);
    ~AsyncRequest() override { stop_and_wait(); }
};

}  // namespace partial
