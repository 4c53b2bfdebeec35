// Declares the REMOTE requests: the synchronous request (one ModelInfer call per inference) and
// the asynchronous three-stage pipeline around it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "vireo/kserve/client.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"
#include "vireo/sdk/isync_infer_request.hpp"

namespace vireo::remote {

class CompiledModel;

/// One request of a REMOTE compiled model. Its inference is four steps, run by the pipeline:
/// - infer_preprocess (host): the inputs become the ModelInfer message's raw_input_contents —
///   one copy of each tensor's bytes into the message (a strided input is gathered first); the
///   message itself is built once and reused;
/// - start_pipeline (host): starts the asynchronous ModelInfer on the instance's channel, with
///   the REMOTE_TIMEOUT_MS deadline; a cancel of the run cancels the call;
/// - wait_pipeline (wait executor): waits for the call to end; a call that failed with
///   UNAVAILABLE is sent again, up to REMOTE_RETRIES times with backoff (50 ms doubling), never
///   otherwise; any other failure is thrown (protocol.hpp names the exception);
/// - infer_postprocess (host): raw_output_contents become the outputs (a dynamic output is
///   resized to the shape the server sent); byte counts and datatypes are checked.
/// Profiling rows: input preprocessing = serialisation, execution = network + server (exec type
/// "network+server"), output postprocessing = deserialisation; the transfers are part of the
/// network time (OPTIMIZED_OUT). With PERF_COUNT on and a server that reports its share
/// (vireo_server: vireo/kserve/parameters.hpp), three op rows follow: "server queue", "server run"
/// and "network" (the rest of the last attempt's round trip).
class SyncInferRequest : public sdk::ISyncInferRequest {
  public:
    explicit SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled_model);
    ~SyncInferRequest() override;

    void infer(sdk::RunContext& run) override;
    void infer_preprocess(sdk::RunContext& run);
    void start_pipeline(sdk::RunContext& run);
    void wait_pipeline(sdk::RunContext& run);
    void infer_postprocess(sdk::RunContext& run);

  private:
    /// One ModelInfer call; shared with gRPC's completion callback, which may outlive a cancelled
    /// run.
    struct Call {
        grpc::ClientContext context;
        inference::ModelInferResponse response;
        std::mutex mutex;
        std::condition_variable cv;
        bool done = false;
        grpc::Status status;
        void wait();
    };
    void send();
    /// Waits for a call still in flight from a run that ended early (cancelled between stages).
    void drain();

    std::shared_ptr<const CompiledModel> m_model;
    inference::ModelInferRequest m_message;
    std::mutex m_call_mutex;  // m_call, for the cancel function
    std::shared_ptr<Call> m_call;
    sdk::RunContext::CancelRegistration m_cancel;
    std::chrono::steady_clock::time_point m_sent;
    uint64_t m_reloads_seen = 0;  // the compiled model's reload count when the call was sent
};

/// The pipeline of start_async: {host: preprocess + send}, {wait executor: wait for the call},
/// {host: outputs}. Host threads never block on the network, so several requests of one
/// instance have their calls in flight at once on its channel. infer() runs the same steps
/// inline. Destroying a running request cancels its call and waits for the pipeline.
class AsyncInferRequest : public sdk::IAsyncInferRequest {
  public:
    AsyncInferRequest(const std::shared_ptr<SyncInferRequest>& request,
                      const std::shared_ptr<sdk::ITaskExecutor>& host_executor,
                      const std::shared_ptr<sdk::ITaskExecutor>& wait_executor,
                      const std::shared_ptr<sdk::ITaskExecutor>& callback_executor);
    ~AsyncInferRequest() override;

  private:
    std::shared_ptr<SyncInferRequest> m_request;
};

}  // namespace vireo::remote
