// Declares SyncInferRequest: one BATCH inference, handed to the Batcher with the caller's
// tensors.
#pragma once

#include <memory>

#include "batcher.hpp"
#include "vireo/sdk/isync_infer_request.hpp"

namespace batch_plugin {

class CompiledModel;

/// Cancel (the run context's token): a request still waiting for its batch leaves it and throws
/// Cancelled; one already in a running batch finishes with it (the async base still reports
/// Cancelled).
class SyncInferRequest : public vireo::sdk::ISyncInferRequest {
  public:
    explicit SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled_model);

    void infer(vireo::sdk::RunContext& run) override;
    /// The device request's rows of the last run (the whole batch's, when it ran in one).
    std::vector<vireo::ProfilingInfo> get_profiling_info() const override { return m_profiling; }

  private:
    std::shared_ptr<Batcher> m_batcher;
    std::vector<vireo::ProfilingInfo> m_profiling;
};

}  // namespace batch_plugin
