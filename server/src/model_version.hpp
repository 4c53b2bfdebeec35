// Declares ModelVersion: one loaded version of a served model — its compiled model, the pool of
// infer requests running it and the bounded queue of requests waiting for one.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "infer_job.hpp"
#include "metrics.hpp"
#include "server_config.hpp"
#include "vireo/compiled_model.hpp"
#include "vireo/core.hpp"

namespace vireo::server {

/// Cumulative statistics in Triton's ModelStatistics terms.
struct VersionStats {
    uint64_t success_count = 0, success_ns = 0;
    uint64_t fail_count = 0, fail_ns = 0;
    uint64_t queue_count = 0, queue_ns = 0;
    uint64_t infer_count = 0, infer_ns = 0;
    uint64_t output_count = 0, output_ns = 0;
    uint64_t last_inference_ms = 0;  // since the epoch
    uint64_t inference_items = 0;    // batch items inferred (requests' dimension 0 when batching)
};

/// A loaded, ready model version.
///
/// Scheduling: `nireq` infer requests run jobs with start_async; the completion callback (a
/// device thread) copies the outputs, completes the job and starts the next queued job on the
/// same infer request, so no thread waits for an inference. A job submitted while every request
/// is busy waits in a FIFO queue of at most `max_queue_size`; past that submit() refuses it with
/// kResourceExhausted. A queued job whose deadline has passed is completed with
/// kDeadlineExceeded when it reaches the front.
///
/// Dynamic batching (config.dynamic_batching.max_batch_size > 0): dimension 0 of every input
/// becomes the batch (bounded 1..max_batch_size at compile time). A batcher thread gathers queued
/// requests, in order and with equal other dimensions, into one inference of at most
/// max_batch_size items; it starts a batch once it reaches the largest preferred_batch_size (or
/// max_batch_size), when the next request does not fit, or when the oldest request has waited
/// max_queue_delay_microseconds. The completion splits the outputs back along dimension 0.
/// Statistics then count executions (infer_count) apart from requests (success_count).
///
/// Thread safety: all methods may be called from any thread. Lifetime: held by shared_ptr; the
/// callbacks hold a weak reference, and stop() + the destructor wait for running jobs.
class ModelVersion : public std::enable_shared_from_this<ModelVersion> {
  public:
    /// Reads and compiles `model_file` (IR .xml or .onnx) for `config.target_device` with its
    /// plugin_config. Throws vireo::Exception on failure.
    static std::shared_ptr<ModelVersion> load(Core& core, const ModelConfig& config,
                                              int64_t version, const std::string& model_file,
                                              Metrics& metrics);
    ~ModelVersion();

    /// Queues or starts `job`. Returns non-OK (and does not call on_done) when the queue is full
    /// or the version is stopping.
    Status submit(const std::shared_ptr<InferJob>& job);
    /// Completes `job` with `code` (kCancelled by default): removed from the queue, or its infer
    /// request cancelled (the slot returns to the pool when the device's callback comes, which
    /// may complete the job first, with the device's Cancelled error). Does nothing to a job
    /// already completed.
    void cancel(const std::shared_ptr<InferJob>& job, StatusCode code = StatusCode::kCancelled,
                const std::string& why = "request cancelled by the client");
    /// Refuses new jobs; queued and running ones still complete.
    void stop_accepting();
    /// Waits until no job is queued or running, or `until` passes. Returns whether drained.
    bool wait_idle(Clock::time_point until);

    const std::string& model_name() const { return m_model_name; }
    int64_t version() const { return m_version; }
    const std::vector<TensorInfo>& inputs() const { return m_inputs; }
    const std::vector<TensorInfo>& outputs() const { return m_outputs; }
    size_t nireq() const { return m_requests.size(); }
    size_t max_queue_size() const { return m_max_queue; }
    const std::string& model_file() const { return m_model_file; }
    const std::string& device() const { return m_device; }
    VersionStats stats() const;

  private:
    ModelVersion() = default;
    void on_complete(size_t slot, std::exception_ptr error);
    /// Starts jobs on `slot` until one starts or none is left; marks the slot idle then.
    void run_next(size_t slot, std::shared_ptr<InferJob> job);
    void account(const InferJob& job, bool ok);
    Status submit_unbatched(const std::shared_ptr<InferJob>& job);
    // Dynamic batching.
    Status submit_batched(const std::shared_ptr<InferJob>& job);
    void batcher_loop();
    void dispatch_batch(size_t slot, std::vector<std::shared_ptr<InferJob>> batch);
    void complete_batch(size_t slot, std::exception_ptr error);
    // Cancels queued and running jobs whose deadline passed (the "timeout" parameter; a gRPC
    // deadline also arrives as the RPC's cancellation).
    void watch_deadlines();

    std::string m_model_name;
    int64_t m_version = 0;
    std::string m_model_file;
    std::string m_device;
    CompiledModel m_compiled;
    std::vector<TensorInfo> m_inputs, m_outputs;
    // Shared with the server's Metrics: a completion callback still running when the server (or a
    // test) has destroyed its Metrics keeps writing to a live object.
    std::shared_ptr<VersionMetrics> m_metrics;

    mutable std::mutex m_mutex;
    std::condition_variable m_idle_cv;
    std::vector<InferRequest> m_requests;
    std::vector<std::shared_ptr<InferJob>> m_running;  // per slot
    std::vector<Clock::time_point> m_started;          // per slot
    std::vector<size_t> m_idle;
    std::deque<std::shared_ptr<InferJob>> m_queue;
    size_t m_max_queue = 0;
    bool m_accepting = true;
    VersionStats m_stats;

    DynamicBatching m_batching;
    std::vector<std::vector<std::shared_ptr<InferJob>>> m_batches;  // per slot, while running
    std::condition_variable m_batch_cv;
    bool m_stopping = false;
    std::thread m_batcher;
    std::condition_variable m_deadline_cv;
    std::thread m_deadline_watcher;
};

}  // namespace vireo::server
