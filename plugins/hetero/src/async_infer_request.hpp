// Declares HETERO's AsyncInferRequest: a pipeline whose stages are the parts' own asynchronous
// runs, so that several HETERO requests in flight keep every device busy.
#pragma once

#include <memory>

#include "sync_infer_request.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"

namespace hetero {

/// Stage 0 runs inline (SyncInferRequest::begin_run, which ties cancel to the run context, and
/// prepare_inputs: batched inputs, pass-through outputs); then one stage per part whose "executor"
/// binds the part and calls its start_async(), and whose task runs from the part's callback: it
/// rethrows the part's error (which ends the run: later parts never start, the error is reported
/// once) or lets the next stage start. The completion (the user's callback) runs on HETERO's
/// callback thread, never inside a part's callback. cancel() cancels the running part; parts not
/// started are skipped.
class AsyncInferRequest : public vireo::sdk::IAsyncInferRequest {
  public:
    AsyncInferRequest(const std::shared_ptr<SyncInferRequest>& request,
                      const std::shared_ptr<vireo::sdk::ITaskExecutor>& callback_executor);
    ~AsyncInferRequest() override;

  private:
    std::shared_ptr<SyncInferRequest> m_request;
};

}  // namespace hetero
