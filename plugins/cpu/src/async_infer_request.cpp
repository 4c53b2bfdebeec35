// Implements AsyncInferRequest: the default one-stage pipeline.
#include "async_infer_request.hpp"

#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::cpu_plugin {

AsyncInferRequest::AsyncInferRequest(const std::shared_ptr<InferRequest>& request,
                                     const std::shared_ptr<sdk::ITaskExecutor>& task_executor,
                                     const std::shared_ptr<sdk::ITaskExecutor>& callback_executor,
                                     bool infer_on_stream)
    : IAsyncInferRequest(request, task_executor, callback_executor), m_request(request) {
    // A synchronous infer() of a static model runs inline on the caller's thread (the SDK
    // default): oneDNN forks its OpenMP team from that thread. Hopping to a stream thread instead
    // cost a small model more than it computes (the caller's wait spins while the stream thread and
    // its OpenMP worker run). A dynamic model may run its reference-kernel graph, whose
    // parallel_for splits work only on a stream's threads (on the caller's it runs serially: one
    // core at any thread count, the stateful decoders of issue 33): its infer() runs the same
    // stage on the task executor and waits.
    if (!infer_on_stream) return;
    // The hop, unless the caller already is a stream thread (a request run from another
    // executor's task, or from this one's): then inline, as before, never waiting on a stream
    // the caller may itself be holding.
    class StreamHop final : public sdk::ITaskExecutor {
      public:
        explicit StreamHop(std::shared_ptr<sdk::ITaskExecutor> streams)
            : m_streams(std::move(streams)) {}
        void run(sdk::Task task) override { m_streams->run(std::move(task)); }
        void run_and_wait(const std::vector<sdk::Task>& tasks) override {
            if (sdk::CPUStreamsExecutor::current_stream_id() >= 0) {
                for (const auto& task : tasks) task();
                return;
            }
            m_streams->run_and_wait(tasks);
        }

      private:
        std::shared_ptr<sdk::ITaskExecutor> m_streams;
    };
    auto hop = std::make_shared<StreamHop>(task_executor);
    m_sync_pipeline = {{hop, m_pipeline.front().task}};
}

AsyncInferRequest::~AsyncInferRequest() {
    stop_and_wait();
}

}  // namespace vireo::cpu_plugin
