// Declares Device: one simulated remote device instance ("MOCK_REMOTE.1") with its own worker
// thread, command queue, memory space, clock and wait executor.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "config.hpp"
#include "device_job.hpp"
#include "device_memory.hpp"
#include "device_queue.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::mock_remote {

/// The modelled cost of one host<->device transfer.
struct BusModel {
    double gbps = 8.0;
    uint32_t latency_us = 10;
    std::chrono::nanoseconds cost(size_t bytes) const;
};

/// A simulated device. Jobs run one at a time, in submission order, on the device's worker
/// thread; each takes at least its modelled time (the worker sleeps until the deadline). The
/// host moves data with upload()/download(), which block the calling thread for the modelled bus
/// time, and addresses device memory only through handles.
///
/// Lifetime: shared by the plugin, compiled models, contexts and remote tensors. Destruction
/// closes the queue, fails the jobs still queued (Unavailable) and joins the worker; it must not
/// run on the worker thread (jobs never hold the device, so it cannot). The wait executor is the
/// device's own: every compiled model on the instance waits on it, and requests hold it (their
/// pipeline stage), so it outlives any wait in flight.
///
/// Thread-safe.
class Device {
  public:
    /// `name` is the full name ("MOCK_REMOTE.0"). Starts the worker and the wait executor (where
    /// host stages block on this device's jobs), whose threads are "<name>/wait" (shortened by
    /// sdk::thread_name to "MOCK_REMOTE.0/<stream>").
    explicit Device(std::string name);
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    const std::string& name() const { return m_name; }
    DeviceMemory& memory() { return m_memory; }
    const std::shared_ptr<sdk::ITaskExecutor>& wait_executor() const { return m_wait_executor; }

    /// Copies `bytes` from host memory into the start of the buffer, then sleeps out the rest of
    /// the modelled bus time. Throws InvalidArgument naming the handle when it is unknown or too
    /// small.
    void upload(BufferHandle dst, const void* src, size_t bytes, const BusModel& bus);
    void download(BufferHandle src, void* dst, size_t bytes, const BusModel& bus);
    /// The bus model remote-tensor copies use (the device's current settings).
    BusModel bus_model() const;
    void set_bus_model(const BusModel& bus);

    /// Queues a job and returns it; the caller waits on it. Throws Unavailable after shutdown.
    std::shared_ptr<DeviceJob> submit(std::string label, JobWork work,
                                      std::chrono::nanoseconds fixed_time, JobFault fault);
    /// A queued job is dropped (completed as Cancelled); a hung one is aborted (Cancelled); a
    /// running one finishes normally. Harmless on a finished job.
    void cancel(const std::shared_ptr<DeviceJob>& job);

    uint64_t max_queue_depth() const { return m_queue.max_depth(); }
    uint64_t jobs_completed() const { return m_completed.load(); }
    uint64_t jobs_failed() const { return m_failed.load(); }
    uint64_t jobs_cancelled() const { return m_cancelled.load(); }
    /// The device's clock: time since the device started.
    std::chrono::nanoseconds uptime() const { return Clock::now() - m_epoch; }

  private:
    struct Result {
        DeviceJob::Outcome outcome;
        std::exception_ptr error;
    };

    void worker_loop();
    /// Runs a job to its end (modelled time included) and says how it ended.
    Result run(DeviceJob& job);
    /// The outcome of a job whose modelled wait cancel() ended.
    Result cancelled_while_running(const DeviceJob& job) const;
    void complete(DeviceJob& job, DeviceJob::Outcome outcome, std::exception_ptr error);

    const std::string m_name;
    const Clock::time_point m_epoch;
    std::shared_ptr<sdk::ITaskExecutor> m_wait_executor;
    DeviceMemory m_memory;
    DeviceQueue m_queue;
    mutable std::mutex m_settings_mutex;
    BusModel m_bus;
    std::atomic<uint64_t> m_completed{0};
    std::atomic<uint64_t> m_failed{0};
    std::atomic<uint64_t> m_cancelled{0};
    std::thread m_worker;  // last: starts after every member above exists
};

}  // namespace vireo::mock_remote
