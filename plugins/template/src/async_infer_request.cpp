// Implements AsyncInferRequest: the default one-stage pipeline, and infer() on a stream.
#include "async_infer_request.hpp"

#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::template_plugin {

AsyncInferRequest::AsyncInferRequest(const std::shared_ptr<InferRequest>& request,
                                     const std::shared_ptr<sdk::ITaskExecutor>& task_executor,
                                     const std::shared_ptr<sdk::ITaskExecutor>& callback_executor)
    : IAsyncInferRequest(request, task_executor, callback_executor), m_request(request) {
    // Synchronous infer(): with several threads per stream, run on a stream so the kernels'
    // parallel_for can use its threads; inline when already on a stream's thread (a callback
    // calling infer()), where waiting for the same executor could deadlock.
    auto* streams = dynamic_cast<sdk::CPUStreamsExecutor*>(task_executor.get());
    if (streams && streams->get_config().threads_per_stream > 1) {
        std::weak_ptr<sdk::ITaskExecutor> executor = task_executor;
        m_sync_pipeline = {{nullptr, [request = m_request.get(), executor](sdk::RunContext& run) {
                                auto target = executor.lock();
                                if (!target || sdk::CPUStreamsExecutor::current_stream_id() >= 0) {
                                    request->infer(run);
                                } else {
                                    target->run_and_wait(
                                        {[request, &run] { request->infer(run); }});
                                }
                            }}};
    }
}

AsyncInferRequest::~AsyncInferRequest() {
    stop_and_wait();
}

}  // namespace vireo::template_plugin
