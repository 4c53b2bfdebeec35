// Declares SyncInferRequest: one BATCH inference, handed to the Batcher with the caller's
// tensors.
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include "batcher.hpp"
#include "vireo/sdk/isync_infer_request.hpp"

namespace batch_plugin {

class CompiledModel;

/// Cancel: a request still waiting for its batch leaves it and throws Cancelled; one already
/// in a running batch finishes with it (the async base still reports Cancelled). The async
/// request installs a probe of its cancel flag, read once when a run starts.
class SyncInferRequest : public vireo::sdk::ISyncInferRequest {
  public:
    explicit SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled_model);

    void infer() override;
    /// The device request's rows of the last run (the whole batch's, when it ran in one).
    std::vector<vireo::ProfilingInfo> get_profiling_info() const override { return m_profiling; }
    std::vector<std::shared_ptr<vireo::sdk::IVariableState>> query_state() const override {
        return {};
    }
    void cancel() override;

    void set_cancel_probe(std::function<bool()> probe) { m_cancel_probe = std::move(probe); }

  private:
    std::shared_ptr<Batcher> m_batcher;
    std::function<bool()> m_cancel_probe;
    std::atomic<bool> m_cancelled{false};
    std::vector<vireo::ProfilingInfo> m_profiling;
};

}  // namespace batch_plugin
