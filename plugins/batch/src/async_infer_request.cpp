// Implements AsyncInferRequest: the default pipeline, cancelled when destroyed.
#include "async_infer_request.hpp"

namespace batch_plugin {

AsyncInferRequest::AsyncInferRequest(
    const std::shared_ptr<SyncInferRequest>& request,
    const std::shared_ptr<vireo::sdk::ITaskExecutor>& task_executor,
    const std::shared_ptr<vireo::sdk::ITaskExecutor>& callback_executor)
    : IAsyncInferRequest(request, task_executor, callback_executor) {}

// The SDK's cancel_and_stop(): cancel the running request without its callback, then wait.
AsyncInferRequest::~AsyncInferRequest() {
    cancel_and_stop();
}

}  // namespace batch_plugin
