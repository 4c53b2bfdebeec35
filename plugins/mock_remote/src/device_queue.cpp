// Implements DeviceQueue: FIFO order, cancellation of queued and hung jobs, depth statistics and
// the worker's interruptible sleeps.
#include "device_queue.hpp"

#include <algorithm>
#include <thread>

#include "vireo/exception.hpp"

namespace vireo::mock_remote {

void DeviceQueue::push(const std::shared_ptr<DeviceJob>& job, const std::string& device_name) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_closed)
            throw_error<Unavailable>(device_name, ": the device is shut down; ", job->label(),
                                     " was not submitted");
        job->mark_submitted();
        m_queued.push_back(job);
        const uint64_t depth = m_queued.size() + (m_running ? 1 : 0);
        m_max_depth = std::max(m_max_depth, depth);
    }
    m_cv.notify_all();
}

std::shared_ptr<DeviceJob> DeviceQueue::next() {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_cv.wait(lock, [&] { return m_closed || !m_queued.empty(); });
    if (m_closed) return nullptr;
    m_running = std::move(m_queued.front());
    m_queued.pop_front();
    return m_running;
}

void DeviceQueue::finish_running() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_running.reset();
}

DeviceQueue::CancelResult DeviceQueue::cancel(const std::shared_ptr<DeviceJob>& job) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = std::find(m_queued.begin(), m_queued.end(), job);
        if (it != m_queued.end()) {
            m_queued.erase(it);
            return CancelResult::kDropped;
        }
        if (m_running != job) return CancelResult::kNotFound;
        m_running->m_cancel_requested = true;
    }
    m_cv.notify_all();
    return CancelResult::kFlagged;
}

DeviceQueue::SleepResult DeviceQueue::sleep_until(Clock::time_point deadline,
                                                  const DeviceJob* job) {
    // Sleep until shortly before the deadline, then poll the clock. A timed wait alone wakes
    // late by the scheduler's wake-up latency (about 100 us per 2 ms job in a VM measured here,
    // 5 % of the modelled device's throughput even with 1 ns timer slack); a real device
    // signals completion when it is done, and the model should too.
    constexpr auto kPollWindow = std::chrono::microseconds(150);
    // A cancel ends the wait only while the deadline is ahead: a job whose time is already up
    // completes (its work finished and its modelled time passed).
    auto cancelled = [&] { return job && job->m_cancel_requested; };
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_cv.wait_until(lock, deadline - kPollWindow, [&] { return m_closed || cancelled(); });
        if (m_closed) return SleepResult::kClosed;
        if (cancelled() && Clock::now() < deadline) return SleepResult::kCancelled;
    }
    while (Clock::now() < deadline) {
        std::this_thread::yield();
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_closed) return SleepResult::kClosed;
        if (cancelled()) return SleepResult::kCancelled;
    }
    return SleepResult::kReached;
}

bool DeviceQueue::wait_for_cancel(const DeviceJob& job) {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_cv.wait(lock, [&] { return m_closed || job.m_cancel_requested; });
    return job.m_cancel_requested;
}

std::vector<std::shared_ptr<DeviceJob>> DeviceQueue::close() {
    std::vector<std::shared_ptr<DeviceJob>> dropped;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_closed = true;
        dropped.assign(m_queued.begin(), m_queued.end());
        m_queued.clear();
    }
    m_cv.notify_all();
    return dropped;
}

uint64_t DeviceQueue::max_depth() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_max_depth;
}

size_t DeviceQueue::depth() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_queued.size() + (m_running ? 1 : 0);
}

}  // namespace vireo::mock_remote
