// Declares AsyncInferRequest: the TEMPLATE request's asynchronous side — the SDK's single-stage
// pipeline on the compiled model's streams executor.
#pragma once

#include <memory>

#include "sync_infer_request.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"

namespace vireo::template_plugin {

/// The SDK default pipeline: one stage {task executor, request->infer(run)}; infer() runs the
/// same task inline (on a stream when streams have several threads). Everything runs on the
/// host, so there is no wait stage. Cancel is the run context's token, which the plan polls
/// before each op. Thread safety as IAsyncInferRequest.
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
