// Declares DeviceQueue: the in-order command queue of one simulated device, between the host
// threads that submit jobs and the device's single worker that runs them.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "device_job.hpp"

namespace vireo::mock_remote {

/// A FIFO of jobs plus the one job the worker is running. It also provides the worker's
/// interruptible waits (modelled time, hung jobs), so that cancel() and shutdown wake it.
///
/// Depth = queued + running jobs; the largest depth ever seen is kept for tests and tools to
/// prove that requests overlap (counters, not wall clock).
///
/// Thread-safe.
class DeviceQueue {
  public:
    /// Appends a job. Throws Unavailable once the queue is closed.
    void push(const std::shared_ptr<DeviceJob>& job, const std::string& device_name);
    /// Worker side: blocks for the next job and marks it running; null once closed.
    std::shared_ptr<DeviceJob> next();
    /// Worker side: the running job is done.
    void finish_running();

    enum class CancelResult { kDropped, kFlagged, kNotFound };
    /// Removes a queued job (kDropped; the caller completes it), or asks the running job to stop
    /// (kFlagged; its modelled wait or hang ends), or does nothing (kNotFound: already finished).
    CancelResult cancel(const std::shared_ptr<DeviceJob>& job);

    enum class SleepResult { kReached, kClosed, kCancelled };
    /// Worker side: sleeps until `deadline`; returns early if the queue closes (kClosed) or, when
    /// `job` is given, if cancel() flags it (kCancelled).
    SleepResult sleep_until(Clock::time_point deadline, const DeviceJob* job = nullptr);
    /// Worker side: blocks until `job` is cancelled (true) or the queue closes (false).
    bool wait_for_cancel(const DeviceJob& job);

    /// Refuses new jobs, wakes the worker, and returns the jobs still queued (not the running one).
    std::vector<std::shared_ptr<DeviceJob>> close();

    uint64_t max_depth() const;
    size_t depth() const;

  private:
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<std::shared_ptr<DeviceJob>> m_queued;
    std::shared_ptr<DeviceJob> m_running;
    bool m_closed = false;
    uint64_t m_max_depth = 0;
};

}  // namespace vireo::mock_remote
