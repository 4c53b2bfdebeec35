// Implements AsyncInferRequest: the default one-stage pipeline and the cancel hook.
#include "async_infer_request.hpp"

#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::cpu_plugin {

AsyncInferRequest::AsyncInferRequest(const std::shared_ptr<InferRequest>& request,
                                     const std::shared_ptr<sdk::ITaskExecutor>& task_executor,
                                     const std::shared_ptr<sdk::ITaskExecutor>& callback_executor)
    : IAsyncInferRequest(request, task_executor, callback_executor), m_request(request) {
    m_request->set_cancel_check([this] { return is_cancelled(); });
    // A synchronous infer() with a multi-thread OpenMP team runs on a stream thread, not the
    // caller's: libgomp keeps a team's worker threads per calling thread until that thread exits,
    // and stream threads end when the plugin is unloaded, while the caller's would keep idle
    // workers (with thread-local data of unloaded modules) for the life of the process. Inline when
    // already on a stream thread (a callback calling infer()), where waiting could deadlock.
    auto* streams = dynamic_cast<sdk::CPUStreamsExecutor*>(task_executor.get());
    if (streams && streams->get_config().threads_per_stream > 1) {
        std::weak_ptr<sdk::ITaskExecutor> executor = task_executor;
        m_sync_pipeline = {{nullptr, [request = m_request.get(), executor] {
                                auto target = executor.lock();
                                if (!target || sdk::CPUStreamsExecutor::current_stream_id() >= 0) {
                                    request->infer();
                                } else {
                                    target->run_and_wait({[request] { request->infer(); }});
                                }
                            }}};
    }
}

AsyncInferRequest::~AsyncInferRequest() {
    stop_and_wait();
    m_request->set_cancel_check(nullptr);
}

}  // namespace vireo::cpu_plugin
