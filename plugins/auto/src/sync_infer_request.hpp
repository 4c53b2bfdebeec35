// Declares SyncInferRequest: one AUTO/MULTI inference, run whole on a worker request of one
// device and re-run on another after a device error (runtime fallback).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "scheduler.hpp"
#include "vireo/sdk/isync_infer_request.hpp"

namespace auto_plugin {

class CompiledModel;

/// The user's tensors live here (the SDK base's slots); infer() lends a worker request from the
/// scheduler (the device's own IAsyncInferRequest, driven directly), sets the inputs (zero copy)
/// and the static or preset outputs on it (the device writes straight into them), starts it and
/// waits. A dynamic output the user did not preset is
/// copied out of the worker after the run (the worker is shared with other requests).
///
/// Failure: an Unavailable from the worker, with runtime fallback on, is reported to the
/// scheduler and the inference re-runs on another device; any other error (and Unavailable
/// with fallback off, or when no device is left) is thrown once.
///
/// Cancel: infer() registers with the run context a function that cancels the running worker
/// and wakes a wait for a free worker; the run then throws Cancelled.
class SyncInferRequest : public vireo::sdk::ISyncInferRequest {
  public:
    explicit SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled_model);
    ~SyncInferRequest() override;

    void infer(vireo::sdk::RunContext& run) override;
    std::vector<vireo::ProfilingInfo> get_profiling_info() const override;
    std::vector<std::shared_ptr<vireo::sdk::IVariableState>> query_state() const override;

  private:
    /// Runs on the lent worker; throws what the worker threw (prefixed with its device name).
    void run_on(const vireo::sdk::InferRequestHandle& worker, const vireo::sdk::RunContext& run);

    std::shared_ptr<const CompiledModel> m_compiled;
    std::shared_ptr<Scheduler> m_scheduler;
    std::mutex m_worker_mutex;                 // guards m_running against the cancel function
    vireo::sdk::InferRequestHandle m_running;  // the worker of the run in progress, if any
    std::vector<vireo::ProfilingInfo> m_profiling;
};

}  // namespace auto_plugin
