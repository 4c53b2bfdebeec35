// Declares DeviceJob: one command submitted to a simulated device, and its completion, which the
// host waits on (the "event" of a real device API).
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <string>

#include "device_memory.hpp"

namespace vireo::mock_remote {

using Clock = std::chrono::steady_clock;

/// A fault the device injects into one job.
enum class JobFault { kNone, kFail, kHang };

/// The work of a job. Runs on the device's worker thread and may touch device memory only (the
/// host's memory is out of reach, as on a real device); returns the modelled device time of the
/// work, which the device adds to the job's fixed time. An exception becomes a device error.
using JobWork = std::function<std::chrono::nanoseconds(DeviceMemory& memory)>;

/// A job and its completion. The submitter keeps a shared_ptr and waits on it; the device
/// completes it exactly once: completed, failed (device error, Unavailable) or cancelled.
/// Thread-safe.
class DeviceJob {
  public:
    enum class Outcome { kPending, kCompleted, kFailed, kCancelled };

    DeviceJob(std::string label, JobWork work, std::chrono::nanoseconds fixed_time, JobFault fault)
        : m_label(std::move(label)),
          m_work(std::move(work)),
          m_fixed_time(fixed_time),
          m_fault(fault) {}

    /// "model 'mlp' execution #3", for messages.
    const std::string& label() const { return m_label; }
    JobFault fault() const { return m_fault; }
    std::chrono::nanoseconds fixed_time() const { return m_fixed_time; }

    /// Blocks until the job is complete.
    void wait() const {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_done_cv.wait(lock, [&] { return m_outcome != Outcome::kPending; });
    }
    /// Waits at most `timeout`; true if the job is complete.
    template <typename Rep, typename Period>
    bool wait_for(std::chrono::duration<Rep, Period> timeout) const {
        std::unique_lock<std::mutex> lock(m_mutex);
        return m_done_cv.wait_for(lock, timeout, [&] { return m_outcome != Outcome::kPending; });
    }
    Outcome outcome() const {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_outcome;
    }
    /// The error of a failed or cancelled job (Unavailable or Cancelled); null otherwise.
    std::exception_ptr error() const {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_error;
    }
    /// Time spent queued before the device started the job (zero if it never started).
    std::chrono::nanoseconds queue_time() const {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_started > m_submitted ? m_started - m_submitted : std::chrono::nanoseconds{0};
    }
    /// Time from start to completion on the device, modelled sleep included.
    std::chrono::nanoseconds device_time() const {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_finished > m_started && m_started != Clock::time_point{}
                   ? m_finished - m_started
                   : std::chrono::nanoseconds{0};
    }

  private:
    friend class Device;
    friend class DeviceQueue;

    void mark_submitted() {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_submitted = Clock::now();
    }
    void mark_started() {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_started = Clock::now();
    }
    /// Returns false if the job was already complete. `account` runs before any waiter can see
    /// the completion (under the job's lock), so counters it updates are current when wait()
    /// returns.
    template <typename F>
    bool complete(Outcome outcome, std::exception_ptr error, F&& account) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (m_outcome != Outcome::kPending) return false;
            account();
            m_outcome = outcome;
            m_error = std::move(error);
            m_finished = Clock::now();
        }
        m_done_cv.notify_all();
        return true;
    }

    const std::string m_label;
    JobWork m_work;  // run once by the device worker, then released
    const std::chrono::nanoseconds m_fixed_time;
    const JobFault m_fault;
    bool m_cancel_requested = false;  // guarded by the owning DeviceQueue's mutex

    mutable std::mutex m_mutex;
    mutable std::condition_variable m_done_cv;
    Outcome m_outcome = Outcome::kPending;
    std::exception_ptr m_error;
    Clock::time_point m_submitted{};
    Clock::time_point m_started{};
    Clock::time_point m_finished{};
};

}  // namespace vireo::mock_remote
