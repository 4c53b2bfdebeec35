// Declares AsyncInferRequest: the TEMPLATE request's asynchronous side — the SDK's single-stage
// pipeline on the compiled model's streams executor, plus forwarding of cancel().
#pragma once

#include <memory>

#include "sync_infer_request.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"

namespace vireo::template_plugin {

/// The SDK default pipeline: one stage {task executor, request->infer()}; infer() runs the same
/// task inline. Everything runs on the host, so there is no wait stage. The base's cancel()
/// forwards to InferRequest::cancel(), which stops the plan before its next op; the request
/// also polls the base's cancelled state, so a cancel that lands between the stage starting and
/// infer() clearing its own flag is not lost. Thread safety as IAsyncInferRequest.
class AsyncInferRequest : public sdk::IAsyncInferRequest {
  public:
    AsyncInferRequest(const std::shared_ptr<InferRequest>& request,
                      const std::shared_ptr<sdk::ITaskExecutor>& task_executor,
                      const std::shared_ptr<sdk::ITaskExecutor>& callback_executor);
    ~AsyncInferRequest() override;

  private:
    std::shared_ptr<InferRequest> m_request;
};

}  // namespace vireo::template_plugin
