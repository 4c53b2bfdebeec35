// Declares AsyncInferRequest: the CPU request's asynchronous side — the SDK's single-stage
// pipeline on the compiled model's streams executor.
#pragma once

#include <memory>

#include "sync_infer_request.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"

namespace vireo::cpu_plugin {

/// One stage {task executor, request->infer()}. A synchronous infer() runs on the caller's thread
/// (oneDNN forks its OpenMP team from whichever thread calls it, sized per run by the request), or
/// with `infer_on_stream` (dynamic models, which may run reference kernels, with more than one
/// thread per stream) on the task executor.
/// The request polls the run context's cancel token. Thread safety as IAsyncInferRequest.
class AsyncInferRequest : public sdk::IAsyncInferRequest {
  public:
    AsyncInferRequest(const std::shared_ptr<InferRequest>& request,
                      const std::shared_ptr<sdk::ITaskExecutor>& task_executor,
                      const std::shared_ptr<sdk::ITaskExecutor>& callback_executor,
                      bool infer_on_stream);
    ~AsyncInferRequest() override;

  private:
    std::shared_ptr<InferRequest> m_request;
};

}  // namespace vireo::cpu_plugin
