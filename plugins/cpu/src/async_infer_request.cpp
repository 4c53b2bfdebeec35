// Implements AsyncInferRequest: the default one-stage pipeline.
#include "async_infer_request.hpp"

namespace vireo::cpu_plugin {

AsyncInferRequest::AsyncInferRequest(const std::shared_ptr<InferRequest>& request,
                                     const std::shared_ptr<sdk::ITaskExecutor>& task_executor,
                                     const std::shared_ptr<sdk::ITaskExecutor>& callback_executor)
    : IAsyncInferRequest(request, task_executor, callback_executor), m_request(request) {
    // A synchronous infer() runs inline on the caller's thread (the SDK default): oneDNN forks its
    // OpenMP team from that thread. Hopping to a stream thread instead cost a small model more than
    // it computes (the caller's wait spins while the stream thread and its OpenMP worker run).
}

AsyncInferRequest::~AsyncInferRequest() {
    stop_and_wait();
}

}  // namespace vireo::cpu_plugin
