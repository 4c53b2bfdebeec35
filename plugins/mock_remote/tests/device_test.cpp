// White-box tests of the simulated device: FIFO order, queue depth, cancellation of queued and
// hung jobs, injected failures, memory accounting, transfers and shutdown with queued jobs.
#include "device.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <thread>

#include "vireo/exception.hpp"

namespace vireo::mock_remote {
namespace {

using namespace std::chrono_literals;

// A job whose work blocks until the test opens the gate, so the queue fills deterministically.
struct Gate {
    std::promise<void> promise;
    std::shared_future<void> future = promise.get_future().share();
    void open() { promise.set_value(); }
};

JobWork record(std::vector<int>* order, int id) {
    // Only the worker writes `order`; the test reads it after waiting on the jobs.
    return [order, id](DeviceMemory&) {
        order->push_back(id);
        return std::chrono::nanoseconds{0};
    };
}

std::string error_text(const std::shared_ptr<DeviceJob>& job) {
    try {
        if (auto e = job->error()) std::rethrow_exception(e);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

TEST(MockRemoteDevice, RunsJobsInSubmissionOrderAndCountsThem) {
    Device device("MOCK_REMOTE.0");
    std::vector<int> order;
    std::vector<std::shared_ptr<DeviceJob>> jobs;
    for (int i = 0; i < 5; ++i)
        jobs.push_back(
            device.submit("job " + std::to_string(i), record(&order, i), 0ns, JobFault::kNone));
    for (auto& job : jobs) job->wait();
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
    for (auto& job : jobs) EXPECT_EQ(job->outcome(), DeviceJob::Outcome::kCompleted);
    EXPECT_EQ(device.jobs_completed(), 5u);
    EXPECT_EQ(device.jobs_failed(), 0u);
    EXPECT_EQ(device.jobs_cancelled(), 0u);
}

TEST(MockRemoteDevice, MaxQueueDepthCountsQueuedAndRunningJobs) {
    Device device("MOCK_REMOTE.0");
    Gate gate;
    auto blocker = device.submit(
        "blocker",
        [f = gate.future](DeviceMemory&) {
            f.wait();
            return std::chrono::nanoseconds{0};
        },
        0ns, JobFault::kNone);
    std::vector<std::shared_ptr<DeviceJob>> jobs;
    for (int i = 0; i < 3; ++i)
        jobs.push_back(device.submit("queued", nullptr, 0ns, JobFault::kNone));
    // 1 running (or about to run) + 3 queued: the depth is exactly 4 whatever the timing.
    EXPECT_EQ(device.max_queue_depth(), 4u);
    gate.open();
    for (auto& job : jobs) job->wait();
    blocker->wait();
    EXPECT_EQ(device.max_queue_depth(), 4u);
    EXPECT_EQ(device.jobs_completed(), 4u);
}

TEST(MockRemoteDevice, JobTakesAtLeastItsModelledTime) {
    // A lower bound the device guarantees (it sleeps until the deadline), not a timing threshold.
    Device device("MOCK_REMOTE.0");
    auto job = device.submit(
        "timed", [](DeviceMemory&) { return std::chrono::nanoseconds(3ms); }, 2ms, JobFault::kNone);
    job->wait();
    EXPECT_GE(job->device_time(), 5ms);
}

TEST(MockRemoteDevice, CancelDropsAQueuedJobWithoutRunningIt) {
    Device device("MOCK_REMOTE.0");
    Gate gate;
    auto blocker = device.submit(
        "blocker",
        [f = gate.future](DeviceMemory&) {
            f.wait();
            return std::chrono::nanoseconds{0};
        },
        0ns, JobFault::kNone);
    std::vector<int> order;
    auto dropped = device.submit("dropped", record(&order, 1), 0ns, JobFault::kNone);
    auto kept = device.submit("kept", record(&order, 2), 0ns, JobFault::kNone);
    device.cancel(dropped);
    EXPECT_EQ(dropped->outcome(), DeviceJob::Outcome::kCancelled);
    gate.open();
    kept->wait();
    blocker->wait();
    EXPECT_EQ(order, std::vector<int>{2});
    EXPECT_NE(error_text(dropped).find("cancelled while queued"), std::string::npos)
        << error_text(dropped);
    try {
        std::rethrow_exception(dropped->error());
    } catch (const Exception& e) {
        EXPECT_EQ(e.kind(), ErrorKind::kCancelled);
    }
    EXPECT_EQ(device.jobs_cancelled(), 1u);
    EXPECT_EQ(device.jobs_completed(), 2u);
    device.cancel(kept);  // finished: no effect
    EXPECT_EQ(kept->outcome(), DeviceJob::Outcome::kCompleted);
}

TEST(MockRemoteDevice, CancelLetsARunningJobFinish) {
    // Device work is not interruptible midway (its buffers would be half written): a running
    // job completes normally; the request layer reports the cancellation.
    Device device("MOCK_REMOTE.0");
    Gate started;
    Gate release;
    auto running = device.submit(
        "running",
        [&started, f = release.future](DeviceMemory&) {
            started.open();
            f.wait();
            return std::chrono::nanoseconds{0};
        },
        0ns, JobFault::kNone);
    started.future.wait();
    device.cancel(running);
    release.open();
    running->wait();
    EXPECT_EQ(running->outcome(), DeviceJob::Outcome::kCompleted);
    EXPECT_EQ(device.jobs_cancelled(), 0u);
    EXPECT_EQ(device.jobs_completed(), 1u);
}

TEST(MockRemoteDevice, CancelEndsTheModelledWaitOfARunningJob) {
    // Issue 23 item 7: the work has run, then the job models 10 s of device time. Cancel must end
    // that wait (it used to be waited out, and the job counted as completed).
    Device device("MOCK_REMOTE.0");
    Gate started;
    auto running = device.submit(
        "long",
        [&started](DeviceMemory&) {
            started.open();
            return std::chrono::nanoseconds{0};
        },
        std::chrono::microseconds(kMaxLatencyUs), JobFault::kNone);
    started.future.wait();
    device.cancel(running);
    running->wait();
    EXPECT_EQ(running->outcome(), DeviceJob::Outcome::kCancelled);
    EXPECT_NE(error_text(running).find("long was cancelled while running on the device"),
              std::string::npos)
        << error_text(running);
    EXPECT_EQ(device.jobs_cancelled(), 1u);
    EXPECT_EQ(device.jobs_completed(), 0u);
}

TEST(MockRemoteTiming, ModelledTimesSaturateInsteadOfOverflowing) {
    using std::chrono::nanoseconds;
    EXPECT_EQ(saturated_duration(1.5), nanoseconds(1'500'000'000));
    EXPECT_EQ(saturated_duration(1e300),
              nanoseconds(kMaxModelledTime));  // was a UB double -> int64 cast
    EXPECT_EQ(saturated_duration(std::numeric_limits<double>::infinity()),
              nanoseconds(kMaxModelledTime));
    EXPECT_EQ(saturated_duration(std::nan("")), nanoseconds(0));
    EXPECT_EQ(saturated_duration(-1.0), nanoseconds(0));
    // A transfer over the slowest allowed bus is long but finite.
    const BusModel slow{kMinRate, 0};
    EXPECT_EQ(slow.cost(size_t{1} << 40), nanoseconds(kMaxModelledTime));
}

TEST(MockRemoteDevice, HungJobWaitsForCancelAndTheDeviceKeepsServing) {
    Device device("MOCK_REMOTE.0");
    auto hung = device.submit("model 'm' execution #1", nullptr, 0ns, JobFault::kHang);
    std::vector<int> order;
    auto next = device.submit("next", record(&order, 7), 0ns, JobFault::kNone);
    EXPECT_FALSE(hung->wait_for(20ms));
    EXPECT_EQ(next->outcome(), DeviceJob::Outcome::kPending);
    device.cancel(hung);
    hung->wait();
    EXPECT_EQ(hung->outcome(), DeviceJob::Outcome::kCancelled);
    EXPECT_NE(error_text(hung).find("hung"), std::string::npos);
    next->wait();
    EXPECT_EQ(next->outcome(), DeviceJob::Outcome::kCompleted);
    EXPECT_EQ(order, std::vector<int>{7});
}

TEST(MockRemoteDevice, InjectedFailureIsAnUnavailableDeviceError) {
    Device device("MOCK_REMOTE.1");
    std::vector<int> order;
    auto failed = device.submit("model 'm' execution #3", record(&order, 1), 0ns, JobFault::kFail);
    auto next = device.submit("next", record(&order, 2), 0ns, JobFault::kNone);
    failed->wait();
    next->wait();
    EXPECT_EQ(failed->outcome(), DeviceJob::Outcome::kFailed);
    const std::string text = error_text(failed);
    EXPECT_NE(text.find("MOCK_REMOTE.1"), std::string::npos) << text;
    EXPECT_NE(text.find("execution #3"), std::string::npos) << text;
    try {
        std::rethrow_exception(failed->error());
    } catch (const Exception& e) {
        EXPECT_EQ(e.kind(), ErrorKind::kUnavailable);
    }
    EXPECT_EQ(order, std::vector<int>{2});  // the failed job's work never ran
    EXPECT_EQ(device.jobs_failed(), 1u);
    EXPECT_EQ(device.jobs_completed(), 1u);
}

TEST(MockRemoteDevice, ExceptionInWorkBecomesDeviceError) {
    Device device("MOCK_REMOTE.0");
    auto job = device.submit(
        "broken",
        [](DeviceMemory&) -> std::chrono::nanoseconds {
            throw std::runtime_error("kernel exploded");
        },
        0ns, JobFault::kNone);
    job->wait();
    EXPECT_EQ(job->outcome(), DeviceJob::Outcome::kFailed);
    EXPECT_NE(error_text(job).find("kernel exploded"), std::string::npos);
}

TEST(MockRemoteDevice, ShutdownFailsQueuedJobsAndEndsAHungOne) {
    std::shared_ptr<DeviceJob> hung;
    std::vector<std::shared_ptr<DeviceJob>> queued;
    {
        Device device("MOCK_REMOTE.0");
        hung = device.submit("hung", nullptr, 0ns, JobFault::kHang);
        for (int i = 0; i < 3; ++i)
            queued.push_back(device.submit("queued", nullptr, 0ns, JobFault::kNone));
    }
    EXPECT_EQ(hung->outcome(), DeviceJob::Outcome::kFailed);
    for (auto& job : queued) {
        // Either it ran before the shutdown (it cannot: the hung job blocks the queue) or it
        // failed.
        EXPECT_EQ(job->outcome(), DeviceJob::Outcome::kFailed);
        EXPECT_NE(error_text(job).find("shut down"), std::string::npos) << error_text(job);
    }
}

TEST(MockRemoteDeviceMemory, AllocationsAreAccountedAndFreedOnce) {
    DeviceMemory memory;
    const auto a = memory.allocate(100);
    const auto b = memory.allocate(28);
    EXPECT_NE(a, b);
    EXPECT_NE(a, 0u);
    EXPECT_EQ(memory.allocated_bytes(), 128u);
    EXPECT_EQ(memory.buffer_count(), 2u);
    auto storage = memory.resolve(a);
    ASSERT_TRUE(storage);
    EXPECT_EQ(storage->size(), 100u);
    memory.free(a);
    memory.free(a);  // harmless
    EXPECT_EQ(memory.allocated_bytes(), 28u);
    EXPECT_EQ(memory.resolve(a), nullptr);
    EXPECT_EQ(storage->size(), 100u);  // a holder keeps the bytes alive, unaccounted
    memory.free(b);
    EXPECT_EQ(memory.allocated_bytes(), 0u);
    EXPECT_EQ(memory.buffer_count(), 0u);
}

TEST(MockRemoteDeviceMemory, NewBuffersAreZeroFilledSmallAndLarge) {
    DeviceMemory memory;
    // Small buffers come from the heap, large ones are mappings aligned for huge pages; a
    // buffer allocated where a freed one was must be zero again.
    for (int round = 0; round < 2; ++round) {
        std::vector<BufferHandle> handles;
        for (size_t bytes : {size_t{0}, size_t{100}, ZeroedBuffer::kLargeBytes - 1,
                             ZeroedBuffer::kLargeBytes, 3 * ZeroedBuffer::kLargeBytes + 5}) {
            const auto handle = memory.allocate(bytes);
            handles.push_back(handle);
            auto storage = memory.resolve(handle);
            ASSERT_TRUE(storage);
            ASSERT_EQ(storage->size(), bytes);
            std::byte* end = storage->data() + bytes;
            EXPECT_EQ(
                std::find_if(storage->data(), end, [](std::byte b) { return b != std::byte{0}; }),
                end)
                << "a buffer of " << bytes << " bytes is not zero-filled";
            const size_t alignment = bytes >= ZeroedBuffer::kLargeBytes ? ZeroedBuffer::kLargeBytes
                                                                        : ZeroedBuffer::kAlignment;
            EXPECT_EQ(reinterpret_cast<uintptr_t>(storage->data()) % alignment, 0u) << bytes;
            if (bytes) {  // every byte is writable, the last one included
                std::memset(storage->data(), 0x5a, bytes);
                EXPECT_EQ(storage->data()[bytes - 1], std::byte{0x5a});
            }
        }
        for (auto handle : handles) memory.free(handle);
    }
    EXPECT_EQ(memory.allocated_bytes(), 0u);
}

TEST(MockRemoteDevice, UploadAndDownloadRoundTripThroughDeviceMemory) {
    Device device("MOCK_REMOTE.0");
    const auto handle = device.memory().allocate(4 * sizeof(float));
    const float in[4] = {1.5f, -2.f, 3.25f, 0.f};
    const BusModel bus{1.0, 0};
    device.upload(handle, in, sizeof(in), bus);
    float out[4] = {};
    device.download(handle, out, sizeof(out), bus);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], in[i]);
    EXPECT_THROW(device.upload(handle, in, 2 * sizeof(in), bus), InvalidArgument);
    device.memory().free(handle);
    try {
        device.download(handle, out, sizeof(out), bus);
        FAIL() << "download from a freed buffer";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("not allocated"), std::string::npos);
    }
}

TEST(MockRemoteBusModel, CostIsLatencyPlusBytesOverBandwidth) {
    const BusModel bus{2.0, 10};  // 2 GB/s, 10 us
    // 4000 bytes at 2e9 B/s = 2 us, plus 10 us.
    EXPECT_EQ(bus.cost(4000), std::chrono::nanoseconds(12000));
    EXPECT_EQ(bus.cost(0), std::chrono::nanoseconds(10000));
}

}  // namespace
}  // namespace vireo::mock_remote
