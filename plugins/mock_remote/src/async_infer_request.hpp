// Declares the MOCK_REMOTE asynchronous request: the three-stage remote pipeline with the device
// instance's wait executor in the middle.
#pragma once

#include <atomic>
#include <memory>

#include "sync_infer_request.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"

namespace vireo::mock_remote {

/// Pipeline of start_async():
///   1. task executor:  preprocess + upload + submit the job to the device queue;
///   2. wait executor:  block until the device completes the job (one executor per instance);
///   3. task executor:  download + postprocess;
/// then the SDK base runs the completion (callback). Host threads never block on the device,
/// so with two or more requests in flight the device always has the next job queued.
/// infer() runs the same steps inline. cancel() drops the device job if it is still queued,
/// aborts it if it hangs, and otherwise lets it finish; wait() then throws Cancelled.
///
/// Destroying a running request cancels it (as cancel()) and waits for its pipeline to end;
/// its callback is not called for that cancellation. So a request may be dropped whatever
/// its device job is doing, a hung one included.
class AsyncInferRequest : public sdk::IAsyncInferRequest {
  public:
    AsyncInferRequest(const std::shared_ptr<SyncInferRequest>& request,
                      const std::shared_ptr<sdk::ITaskExecutor>& task_executor,
                      const std::shared_ptr<sdk::ITaskExecutor>& wait_executor,
                      const std::shared_ptr<sdk::ITaskExecutor>& callback_executor);
    ~AsyncInferRequest() override;

    /// As the base, but the callback is skipped once the request is being destroyed.
    void set_callback(Callback callback) override;

  private:
    std::shared_ptr<SyncInferRequest> m_request;
    std::atomic<bool> m_destroying{false};
};

}  // namespace vireo::mock_remote
