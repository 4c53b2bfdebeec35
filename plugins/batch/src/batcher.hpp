// Declares Batcher: gathers BATCH requests N at a time onto one request of the batched model,
// and runs a request alone on the unbatched model when the batch does not fill in time.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vireo/profiling_info.hpp"
#include "vireo/sdk/device_handles.hpp"
#include "vireo/sdk/run_context.hpp"
#include "vireo/tensor.hpp"

namespace batch_plugin {

/// A batch being run: its device request, so that a cancel of any of its jobs reaches the device
/// (the batch then ends Cancelled; jobs that were not cancelled run again alone).
struct RunningBatch {
    /// Cancels the device request if it runs, and marks the batch so it does not start.
    void cancel();
    /// Before the device run: false when the batch was cancelled already.
    bool start(const vireo::sdk::InferRequestHandle& worker);
    void finish();
    bool cancelled();

  private:
    std::mutex m_mutex;
    vireo::sdk::InferRequestHandle m_worker;  // set while the device request runs
    bool m_cancelled = false;
};

/// One inference waiting to be batched: the caller's tensors (inputs read, outputs written in
/// place, all of batch 1) and its outcome.
struct BatchJob {
    std::vector<vireo::Tensor> inputs;
    std::vector<vireo::Tensor> outputs;
    bool taken = false;                   ///< in a batch being run
    std::shared_ptr<RunningBatch> batch;  ///< set with `taken`
    bool done = false;
    std::exception_ptr error;
    std::vector<vireo::ProfilingInfo> profiling;  ///< the device request's rows of the run
};

/// The device's compiled models and requests are its own SDK objects (sdk::CompiledModelHandle,
/// sdk::InferRequestHandle: each keeps the device's library loaded), driven directly.
///
/// Thread safety: every method may be called from several threads at once. The thread whose
/// job fills the batch runs it (copy in, one inference of the batched model, scatter out); the
/// others wait for it.
class Batcher {
  public:
    /// `batched` empty: the model is not batchable and every request runs alone at once.
    Batcher(std::string owner, vireo::sdk::CompiledModelHandle batched,
            vireo::sdk::CompiledModelHandle single, uint32_t batch_size, uint32_t timeout_ms);

    /// Runs `job` in a batch of N, or alone on the unbatched model when N jobs have not gathered
    /// within the timeout (counted from this call). Throws the batch's (or the lone run's) error,
    /// or Cancelled when `run` is cancelled (call wake() then): a waiting job leaves the queue; a
    /// job in a running batch cancels the batch's device request (the other jobs of that batch
    /// then run again alone); a job running alone cancels its device request.
    void run(BatchJob& job, vireo::sdk::RunContext& run);
    void wake();

    uint32_t batch_size() const { return m_batch_size; }
    uint32_t timeout_ms() const { return m_timeout_ms.load(); }
    void set_timeout_ms(uint32_t ms) { m_timeout_ms.store(ms); }
    /// Batches run full, and jobs that ran alone after the timeout (for tests and tuning).
    uint64_t batches_run() const { return m_batches.load(); }
    uint64_t ran_alone() const { return m_alone.load(); }
    /// The batched model, else the unbatched one.
    const vireo::sdk::CompiledModelHandle& batched() const {
        return m_batched ? m_batched : m_single;
    }

  private:
    void run_batch(std::vector<BatchJob*> jobs, const std::shared_ptr<RunningBatch>& batch);
    void run_alone(BatchJob& job, vireo::sdk::RunContext& run);
    vireo::sdk::InferRequestHandle take(std::vector<vireo::sdk::InferRequestHandle>& pool,
                                        const vireo::sdk::CompiledModelHandle& model);
    void give_back(std::vector<vireo::sdk::InferRequestHandle>& pool,
                   vireo::sdk::InferRequestHandle request);

    std::string m_owner;
    vireo::sdk::CompiledModelHandle m_batched;
    vireo::sdk::CompiledModelHandle m_single;
    uint32_t m_batch_size;
    std::atomic<uint32_t> m_timeout_ms;
    std::atomic<uint64_t> m_batches{0};
    std::atomic<uint64_t> m_alone{0};

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<BatchJob*> m_pending;
    std::mutex m_pool_mutex;
    std::vector<vireo::sdk::InferRequestHandle> m_batched_pool;
    std::vector<vireo::sdk::InferRequestHandle> m_single_pool;
};

}  // namespace batch_plugin
