// Implements the MOCK_REMOTE asynchronous request: the stages of the remote pipeline, and
// cancel-on-destroy.
#include "async_infer_request.hpp"

namespace vireo::mock_remote {

AsyncInferRequest::AsyncInferRequest(const std::shared_ptr<SyncInferRequest>& request,
                                     const std::shared_ptr<sdk::ITaskExecutor>& task_executor,
                                     const std::shared_ptr<sdk::ITaskExecutor>& wait_executor,
                                     const std::shared_ptr<sdk::ITaskExecutor>& callback_executor)
    : IAsyncInferRequest(request, task_executor, callback_executor), m_request(request) {
    // `this` outlives every stage: the destructor waits for the pipeline (stop_and_wait).
    auto submit = [this](sdk::RunContext& run) {
        m_request->infer_preprocess();
        m_request->start_pipeline(run);
    };
    auto wait = [this] { m_request->wait_pipeline(); };
    auto finish = [this] { m_request->infer_postprocess(); };
    m_pipeline = {{task_executor, submit}, {wait_executor, wait}, {task_executor, finish}};
    auto inline_executor = std::make_shared<sdk::ImmediateExecutor>();
    m_sync_pipeline = {
        {inline_executor, submit}, {inline_executor, wait}, {inline_executor, finish}};
}

AsyncInferRequest::~AsyncInferRequest() {
    // Without the cancel, a request whose job hangs (or waits behind a hung one) would block its
    // destructor forever. The flag keeps the user's callback out of it.
    m_destroying = true;
    cancel();
    stop_and_wait();
}

void AsyncInferRequest::set_callback(Callback callback) {
    if (!callback) {
        IAsyncInferRequest::set_callback(nullptr);
        return;
    }
    auto user = std::make_shared<Callback>(std::move(callback));
    IAsyncInferRequest::set_callback([this, user](std::exception_ptr error) {
        // A completion that started before the destructor may still call it; the destructor
        // waits for that call to return (stop_and_wait), so `this` is valid here.
        if (m_destroying.load()) return;
        (*user)(std::move(error));
    });
}

}  // namespace vireo::mock_remote
