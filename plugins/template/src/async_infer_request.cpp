// Implements AsyncInferRequest: the default one-stage pipeline and the cancel hook.
#include "async_infer_request.hpp"

namespace vireo::template_plugin {

AsyncInferRequest::AsyncInferRequest(const std::shared_ptr<InferRequest>& request,
                                     const std::shared_ptr<sdk::ITaskExecutor>& task_executor,
                                     const std::shared_ptr<sdk::ITaskExecutor>& callback_executor)
    : IAsyncInferRequest(request, task_executor, callback_executor), m_request(request) {
    // The base's state knows about a cancel that came before the stage started running.
    m_request->set_cancel_check([this] { return is_cancelled(); });
}

AsyncInferRequest::~AsyncInferRequest() {
    stop_and_wait();
    m_request->set_cancel_check(nullptr);
}

}  // namespace vireo::template_plugin
