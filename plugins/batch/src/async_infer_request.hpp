// Declares AsyncInferRequest: BATCH's asynchronous request, one stage on the compiled
// model's executor that waits for (or runs) the batch.
#pragma once

#include <memory>

#include "sync_infer_request.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"

namespace batch_plugin {

/// The SDK's state machine with the default one-stage pipeline; it gives the sync request a
/// probe of its cancel flag. The stage blocks a thread of the compiled model's executor while the
/// request waits for its batch (CompiledModel sizes the executor for that).
///
/// Destroying a request cancels it first (a request waiting for its batch leaves at once instead
/// of at its timeout), without calling the user's callback.
class AsyncInferRequest : public vireo::sdk::IAsyncInferRequest {
  public:
    AsyncInferRequest(const std::shared_ptr<SyncInferRequest>& request,
                      const std::shared_ptr<vireo::sdk::ITaskExecutor>& task_executor,
                      const std::shared_ptr<vireo::sdk::ITaskExecutor>& callback_executor);
    ~AsyncInferRequest() override;
};

}  // namespace batch_plugin
