// Implements Device: the worker loop that runs jobs for their modelled time, injected faults,
// cancellation, host<->device transfers and shutdown.
#include "device.hpp"

#include <pthread.h>
#include <sys/prctl.h>

#include <cstring>
#include <thread>

#include "vireo/exception.hpp"

namespace vireo::mock_remote {

std::chrono::nanoseconds BusModel::cost(size_t bytes) const {
    const double seconds = static_cast<double>(bytes) / (gbps * 1e9);
    return std::chrono::microseconds(latency_us) + saturated_duration(seconds);
}

Device::Device(std::string name)
    : m_name(std::move(name)),
      m_epoch(Clock::now()),
      // Several threads, so a request whose job was dropped need not wait behind another
      // request's hung job.
      m_wait_executor(
          std::make_shared<sdk::CPUStreamsExecutor>(sdk::StreamsConfig{m_name + "/wait", 4, 1})) {
    m_worker = std::thread([this] { worker_loop(); });
}

Device::~Device() {
    for (const auto& job : m_queue.close())
        complete(*job, DeviceJob::Outcome::kFailed,
                 std::make_exception_ptr(Unavailable(
                     m_name + ": the device shut down before running " + job->label())));
    m_worker.join();
}

void Device::worker_loop() {
    // Thread names are limited to 15 characters; the device name fits.
    pthread_setname_np(pthread_self(), m_name.substr(0, 15).c_str());
    // A job ends with a timed wait for its modelled deadline; Linux's default 50 µs timer slack
    // would let every job overrun by up to that much (2.5 % of a 2 ms latency). Best effort.
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    while (auto job = m_queue.next()) {
        auto [outcome, error] = run(*job);
        job->m_work = nullptr;  // release what the work captured before anyone sees the result
        // Off the queue before the waiter wakes: a request that submits its next job right
        // after must not find this one still counted as in flight.
        m_queue.finish_running();
        complete(*job, outcome, std::move(error));
    }
}

Device::Result Device::run(DeviceJob& job) {
    job.mark_started();
    const auto started = Clock::now();
    switch (job.fault()) {
        case JobFault::kHang:
            // Never completes on its own: only cancel() (or shutdown) ends it.
            if (m_queue.wait_for_cancel(job))
                return {
                    DeviceJob::Outcome::kCancelled,
                    std::make_exception_ptr(Cancelled(m_name + ": " + job.label() +
                                                      " hung on the device and was cancelled"))};
            return {DeviceJob::Outcome::kFailed,
                    std::make_exception_ptr(Unavailable(m_name + ": the device shut down while " +
                                                        job.label() + " hung"))};
        case JobFault::kFail:
            // A device error is reported after the fixed latency, as a real failure would be.
            if (m_queue.sleep_until(started + job.fixed_time(), &job) ==
                DeviceQueue::SleepResult::kCancelled)
                return cancelled_while_running(job);
            return {DeviceJob::Outcome::kFailed,
                    std::make_exception_ptr(Unavailable(m_name + ": device error: " + job.label() +
                                                        " failed (injected fault)"))};
        case JobFault::kNone:
            break;
    }
    std::chrono::nanoseconds modelled{0};
    try {
        if (job.m_work) modelled = job.m_work(m_memory);
    } catch (const std::exception& e) {
        return {DeviceJob::Outcome::kFailed,
                std::make_exception_ptr(
                    Unavailable(m_name + ": device error in " + job.label() + ": " + e.what()))};
    }
    // The work ran at host speed; the device is modelled to take fixed + modelled time, so sleep
    // out the rest. Shutdown ends the wait with the results still valid; cancel() ends it with
    // the job cancelled, as a real device aborts a kernel (a 5 s job used to make cancel wait
    // 5 s, and destroying its request block as long).
    if (m_queue.sleep_until(started + job.fixed_time() + modelled, &job) ==
        DeviceQueue::SleepResult::kCancelled)
        return cancelled_while_running(job);
    return {DeviceJob::Outcome::kCompleted, nullptr};
}

Device::Result Device::cancelled_while_running(const DeviceJob& job) const {
    return {DeviceJob::Outcome::kCancelled,
            std::make_exception_ptr(Cancelled(m_name + ": " + job.label() +
                                              " was cancelled while running on the device"))};
}

void Device::complete(DeviceJob& job, DeviceJob::Outcome outcome, std::exception_ptr error) {
    job.complete(outcome, std::move(error), [&] {
        switch (outcome) {
            case DeviceJob::Outcome::kCompleted:
                ++m_completed;
                break;
            case DeviceJob::Outcome::kFailed:
                ++m_failed;
                break;
            case DeviceJob::Outcome::kCancelled:
                ++m_cancelled;
                break;
            case DeviceJob::Outcome::kPending:
                break;
        }
    });
}

std::shared_ptr<DeviceJob> Device::submit(std::string label, JobWork work,
                                          std::chrono::nanoseconds fixed_time, JobFault fault) {
    auto job = std::make_shared<DeviceJob>(std::move(label), std::move(work), fixed_time, fault);
    m_queue.push(job, m_name);
    return job;
}

void Device::cancel(const std::shared_ptr<DeviceJob>& job) {
    if (!job) return;
    if (m_queue.cancel(job) == DeviceQueue::CancelResult::kDropped) {
        complete(*job, DeviceJob::Outcome::kCancelled,
                 std::make_exception_ptr(Cancelled(m_name + ": " + job->label() +
                                                   " was cancelled while queued on the device")));
    }
}

void Device::upload(BufferHandle dst, const void* src, size_t bytes, const BusModel& bus) {
    const auto deadline = Clock::now() + bus.cost(bytes);
    auto storage = m_memory.resolve(dst);
    if (!storage)
        throw_error<InvalidArgument>(m_name, ": upload to device buffer ", dst,
                                     " which is not allocated");
    if (storage->size() < bytes)
        throw_error<InvalidArgument>(m_name, ": upload of ", bytes, " bytes into device buffer ",
                                     dst, " of ", storage->size(), " bytes");
    if (bytes) std::memcpy(storage->data(), src, bytes);
    std::this_thread::sleep_until(deadline);
}

void Device::download(BufferHandle src, void* dst, size_t bytes, const BusModel& bus) {
    const auto deadline = Clock::now() + bus.cost(bytes);
    auto storage = m_memory.resolve(src);
    if (!storage)
        throw_error<InvalidArgument>(m_name, ": download from device buffer ", src,
                                     " which is not allocated");
    if (storage->size() < bytes)
        throw_error<InvalidArgument>(m_name, ": download of ", bytes, " bytes from device buffer ",
                                     src, " of ", storage->size(), " bytes");
    if (bytes) std::memcpy(dst, storage->data(), bytes);
    std::this_thread::sleep_until(deadline);
}

BusModel Device::bus_model() const {
    std::lock_guard<std::mutex> lock(m_settings_mutex);
    return m_bus;
}

void Device::set_bus_model(const BusModel& bus) {
    std::lock_guard<std::mutex> lock(m_settings_mutex);
    m_bus = bus;
}

}  // namespace vireo::mock_remote
