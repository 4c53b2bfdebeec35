// Implements AsyncInferRequest: the default pipeline plus the cancel probe.
#include "async_infer_request.hpp"

namespace batch_plugin {

AsyncInferRequest::AsyncInferRequest(
    const std::shared_ptr<SyncInferRequest>& request,
    const std::shared_ptr<vireo::sdk::ITaskExecutor>& task_executor,
    const std::shared_ptr<vireo::sdk::ITaskExecutor>& callback_executor)
    : IAsyncInferRequest(request, task_executor, callback_executor) {
    request->set_cancel_probe([this] { return is_cancelled(); });
}

AsyncInferRequest::~AsyncInferRequest() {
    m_destroying.store(true);
    cancel();
    stop_and_wait();
}

void AsyncInferRequest::set_callback(Callback callback) {
    if (!callback) {
        IAsyncInferRequest::set_callback(nullptr);
        return;
    }
    IAsyncInferRequest::set_callback([this, user = std::move(callback)](std::exception_ptr error) {
        if (!m_destroying.load()) user(error);
    });
}

}  // namespace batch_plugin
