// Declares AsyncInferRequest: AUTO/MULTI's asynchronous request, one stage on the compiled
// model's executor that runs the whole inference (lend, run, fall back).
#pragma once

#include <memory>

#include "sync_infer_request.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"

namespace auto_plugin {

/// The SDK's state machine with the default one-stage pipeline; it gives the sync request a
/// probe of its cancel flag (see SyncInferRequest). The stage blocks a thread of the compiled
/// model's executor while the worker runs, so the executor has more threads than the requests
/// the devices can run at once (CompiledModel).
///
/// Destroying a running request cancels it first (a worker that hangs would otherwise block the
/// destructor forever), without calling the user's callback.
class AsyncInferRequest : public vireo::sdk::IAsyncInferRequest {
  public:
    AsyncInferRequest(const std::shared_ptr<SyncInferRequest>& request,
                      const std::shared_ptr<vireo::sdk::ITaskExecutor>& task_executor,
                      const std::shared_ptr<vireo::sdk::ITaskExecutor>& callback_executor);
    ~AsyncInferRequest() override;
};

}  // namespace auto_plugin
