// Implements HETERO's AsyncInferRequest: each stage starts a part asynchronously and continues
// from the part's callback.
#include "async_infer_request.hpp"

#include <mutex>

namespace hetero {
using namespace vireo;

namespace {

// The "executor" of part i's stage: run(task) binds the part and starts it; the part's callback
// records its error and runs `task` (which rethrows it, or lets the pipeline go on).
class PartExecutor : public sdk::ITaskExecutor {
  public:
    PartExecutor(std::shared_ptr<SyncInferRequest> request, size_t part)
        : m_request(std::move(request)), m_part(part) {
        m_request->part_request(part).impl()->set_callback([this](std::exception_ptr error) {
            if (!error) {
                try {
                    m_request->collect(m_part);
                } catch (...) {
                    error = std::current_exception();
                }
            }
            sdk::Task task;
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_error = error;
                task = std::move(m_task);
            }
            task();  // may start the next part, or complete the HETERO run
        });
    }

    void run(sdk::Task task) override {
        if (m_request->cancelled()) {  // the run was cancelled: the task ends it
            task();
            return;
        }
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_task = std::move(task);
            m_error = nullptr;
        }
        m_request->bind(m_part);
        m_request->part_request(m_part).call(
            "start_async", [](sdk::IAsyncInferRequest& request) { request.start_async(); });
    }

    void rethrow_error() {
        std::exception_ptr error;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            error = m_error;
        }
        if (error)
            rethrow_with_context(error, "HETERO: submodel #" + std::to_string(m_part) + " on " +
                                            std::static_pointer_cast<const CompiledModel>(
                                                m_request->get_compiled_model())
                                                ->parts()[m_part]
                                                .device);
    }

  private:
    std::shared_ptr<SyncInferRequest> m_request;
    size_t m_part;
    std::mutex m_mutex;  // m_task is set on the starting thread and taken on the part's
    sdk::Task m_task;
    std::exception_ptr m_error;
};

}  // namespace

AsyncInferRequest::AsyncInferRequest(const std::shared_ptr<SyncInferRequest>& request,
                                     const std::shared_ptr<sdk::ITaskExecutor>& callback_executor)
    : sdk::IAsyncInferRequest(request, std::make_shared<sdk::ImmediateExecutor>(),
                              callback_executor),
      m_request(request) {
    auto compiled = std::static_pointer_cast<const CompiledModel>(request->get_compiled_model());
    m_pipeline.clear();
    m_pipeline.emplace_back(nullptr, [request](sdk::RunContext& run) {
        request->begin_run(run);
        request->prepare_inputs();
    });
    for (size_t i = 0; i < request->part_count(); ++i) {
        auto executor = std::make_shared<PartExecutor>(request, i);
        m_pipeline.emplace_back(executor, [executor] { executor->rethrow_error(); });
    }
}

// Cancelled, not only waited for: a part whose device hangs would otherwise block the
// destructor forever. The run in flight ends Cancelled without its callback.
AsyncInferRequest::~AsyncInferRequest() {
    cancel_and_stop();
}

}  // namespace hetero
