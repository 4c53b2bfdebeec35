// Tests of the MOCK_REMOTE pipeline through the Core: results, which executor runs each stage and
// who owns it, overlap of requests proven by device counters, both instances at once, callbacks.
#include <pthread.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>

#include "test_utils.hpp"

namespace vireo::mock_remote::test {
namespace {

using namespace std::chrono_literals;

std::string this_thread_name() {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof(name));
    return name;
}

/// Threads of this process whose name starts with `prefix` (read from /proc, so threads of
/// executors no test object can reach count too).
size_t threads_named(const std::string& prefix) {
    size_t count = 0;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
        std::ifstream comm(task.path() / "comm");
        std::string name;
        if (std::getline(comm, name) && name.rfind(prefix, 0) == 0) ++count;
    }
    return count;
}

/// threads_named(prefix) once it is `expected`, or after 5 s: a new thread names itself after
/// its constructor returned, and a joined thread may leave /proc a moment after the join.
size_t settled_threads(const std::string& prefix, size_t expected) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    size_t count = threads_named(prefix);
    while (count != expected && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        count = threads_named(prefix);
    }
    return count;
}

void infer_once(CompiledModel& compiled) {
    auto request = compiled.create_infer_request();
    request.set_tensor("x", make_tensor({1, 8}));
    request.start_async();
    request.wait();
    EXPECT_EQ(values(request.get_tensor("y"))[0], 1.f);
}

TEST(MockRemotePipeline, InferComputesOnTheDevice) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model({2, 4}), "MOCK_REMOTE.0", fast());
    auto request = compiled.create_infer_request();
    request.set_tensor("x", make_tensor({2, 4}, -3.f, 0.5f));
    request.infer();
    const auto out = values(request.get_tensor("y"));
    ASSERT_EQ(out.size(), 8u);
    for (size_t i = 0; i < out.size(); ++i)
        EXPECT_FLOAT_EQ(out[i], -3.f + 0.5f * static_cast<float>(i) + 1.f);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 1u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.1", jobs_completed), 0u);
}

TEST(MockRemotePipeline, AsyncStagesRunOnTheHostAndWaitExecutors) {
    Core core = make_core();
    for (const std::string device : {"MOCK_REMOTE.0", "MOCK_REMOTE.1"}) {
        auto compiled = core.compile_model(add_one_model(), device, fast());
        auto request = compiled.create_infer_request();
        request.set_tensor("x", make_tensor({1, 8}));
        std::string callback_thread;  // written by the callback, read after wait()
        int calls = 0;
        request.set_callback([&](std::exception_ptr error) {
            EXPECT_FALSE(error);
            callback_thread = this_thread_name();
            ++calls;
        });
        request.start_async();
        request.wait();
        EXPECT_EQ(calls, 1);
        const auto rows = request.get_profiling_info();
        ASSERT_GE(rows.size(), 6u);
        // The five standard stages first, in pipeline order, then the device queue wait.
        EXPECT_EQ(rows[0].node_name, kStageInputPreprocessing);
        EXPECT_EQ(rows[1].node_name, kStageInputTransfer);
        EXPECT_EQ(rows[2].node_name, kStageExecution);
        EXPECT_EQ(rows[3].node_name, kStageOutputTransfer);
        EXPECT_EQ(rows[4].node_name, kStageOutputPostprocessing);
        EXPECT_EQ(rows[5].node_name, "queue wait");
        for (size_t i = 0; i < 6; ++i)
            EXPECT_EQ(rows[i].status, ProfilingInfo::Status::EXECUTED) << rows[i].node_name;
        // exec_type names the host thread of the stage: host executor, device wait executor, host.
        EXPECT_EQ(rows[0].exec_type.rfind("MRHost/", 0), 0u) << rows[0].exec_type;
        EXPECT_EQ(rows[1].exec_type, rows[0].exec_type);
        // The wait executor's threads are named after it ("MOCK_REMOTE.1/wait", shortened to
        // fit 15 characters with the stream number); the device's own worker is "MOCK_REMOTE.1".
        EXPECT_EQ(rows[2].exec_type.rfind(device + "/", 0), 0u) << rows[2].exec_type;
        EXPECT_EQ(rows[5].exec_type, rows[2].exec_type);
        EXPECT_EQ(rows[3].exec_type.rfind("MRHost/", 0), 0u) << rows[3].exec_type;
        // Completion runs inline on the thread that finished the last stage (no callback executor).
        EXPECT_EQ(callback_thread, rows[4].exec_type);
        // The device ran for at least the modelled latency (a guaranteed lower bound).
        EXPECT_GE(rows[2].real_time, 1000us);
        EXPECT_EQ(values(request.get_tensor("y"))[7], 8.f);
    }
}

TEST(MockRemotePipeline, InferRunsEveryStageInlineAndNeverCallsTheCallback) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.1", fast());
    auto request = compiled.create_infer_request();
    int calls = 0;
    request.set_callback([&](std::exception_ptr) { ++calls; });
    request.set_tensor("x", make_tensor({1, 8}));
    request.infer();
    EXPECT_EQ(calls, 0);
    const auto rows = request.get_profiling_info();
    const std::string me = this_thread_name();
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(rows[i].exec_type, me) << rows[i].node_name;
}

// Executors belong to the objects that use them, not to a process-wide registry: the instance's
// wait executor (4 threads "MOCK_REMOTE.0/...") is shared by the models on it in one plugin
// object, another core (another plugin object) has its own, each compiled model has its own
// host streams ("MRHost/..."), and nothing outlives its last holder.
TEST(MockRemotePipeline, ExecutorsAreHeldByTheirInstanceAndModel) {
    const std::string wait = "MOCK_REMOTE.0/";  // the device worker itself is "MOCK_REMOTE.0"
    const std::string host = "MRHost/";
    const AnyMap two_host_streams = with(fast(), {num_streams(2)});
    const size_t waits = threads_named(wait);
    const size_t hosts = threads_named(host);
    {
        Core core = make_core();
        auto first = core.compile_model(add_one_model(), "MOCK_REMOTE.0", two_host_streams);
        EXPECT_EQ(settled_threads(wait, waits + 4), waits + 4);
        EXPECT_EQ(settled_threads(host, hosts + 2), hosts + 2);
        auto second = core.compile_model(add_one_model(), "MOCK_REMOTE.0", two_host_streams);
        EXPECT_EQ(settled_threads(wait, waits + 4), waits + 4);  // the instance's, shared
        EXPECT_EQ(settled_threads(host, hosts + 4), hosts + 4);  // one pair per model

        Core other = make_core();
        auto theirs = other.compile_model(add_one_model(), "MOCK_REMOTE.0", two_host_streams);
        EXPECT_EQ(settled_threads(wait, waits + 8), waits + 8);  // another plugin object's own
        for (CompiledModel* compiled : {&first, &second, &theirs}) infer_once(*compiled);
    }
    EXPECT_EQ(settled_threads(wait, waits), waits);
    EXPECT_EQ(settled_threads(host, hosts), hosts);
}

// Unloading the plugin while a model lives: the model keeps its instance and so its executors
// (it still runs), the reloaded plugin makes new ones, and they go with their last model.
TEST(MockRemotePipeline, AModelOutlivingItsPluginKeepsItsExecutors) {
    const std::string wait = "MOCK_REMOTE.0/";
    const std::string host = "MRHost/";
    const AnyMap one_host_stream = with(fast(), {num_streams(1)});
    const size_t waits = threads_named(wait);
    const size_t hosts = threads_named(host);
    Core core = make_core();
    std::optional<CompiledModel> old_model =
        core.compile_model(add_one_model(), "MOCK_REMOTE.0", one_host_stream);
    core.unload_plugin("MOCK_REMOTE");
    EXPECT_EQ(settled_threads(wait, waits + 4), waits + 4);
    infer_once(*old_model);
    auto new_model = core.compile_model(add_one_model(), "MOCK_REMOTE.0", one_host_stream);
    EXPECT_EQ(settled_threads(wait, waits + 8), waits + 8);
    EXPECT_EQ(settled_threads(host, hosts + 2), hosts + 2);
    infer_once(new_model);
    old_model.reset();  // the old plugin object, its instance and executors go with it
    EXPECT_EQ(settled_threads(wait, waits + 4), waits + 4);
    EXPECT_EQ(settled_threads(host, hosts + 1), hosts + 1);
    infer_once(new_model);
}

TEST(MockRemotePipeline, OneRequestAtATimeNeverQueuesTwoJobs) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0", fast(500));
    auto request = compiled.create_infer_request();
    for (int i = 0; i < 5; ++i) {
        request.start_async();
        request.wait();
    }
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", max_queue_depth), 1u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 5u);
}

TEST(MockRemotePipeline, HostStagesRunAheadWhileTheDeviceIsBusy) {
    // Deterministic overlap: a hung job holds the device, so every request's first stage must
    // finish (submit) without waiting for the device for the depth to reach 1 + 4.
    Core core = make_core();
    auto blocker_model = core.compile_model(add_one_model({1, 8}, "blocker"), "MOCK_REMOTE.0",
                                            with(fast(), {hang_nth(uint64_t{1})}));
    auto blocker = blocker_model.create_infer_request();
    blocker.start_async();
    wait_until(
        [&] { return device_value(core, "MOCK_REMOTE.0", max_queue_depth) == 1; });  // it hangs now
    auto compiled =
        core.compile_model(add_one_model(), "MOCK_REMOTE.0", with(fast(), {num_streams(2)}));
    std::vector<InferRequest> requests;
    for (int i = 0; i < 4; ++i) {
        requests.push_back(compiled.create_infer_request());
        requests.back().set_tensor("x", make_tensor({1, 8}, static_cast<float>(10 * i)));
        requests.back().start_async();
    }
    wait_until([&] { return device_value(core, "MOCK_REMOTE.0", max_queue_depth) == 5; });
    for (int i = 0; i < 4; ++i) EXPECT_FALSE(requests[i].wait_for(0ms));
    blocker.cancel();
    EXPECT_THROW(blocker.wait(), Cancelled);
    for (int i = 0; i < 4; ++i) {
        requests[i].wait();
        EXPECT_EQ(values(requests[i].get_tensor("y"))[0], static_cast<float>(10 * i) + 1.f);
    }
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", max_queue_depth), 5u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 4u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_cancelled), 1u);
}

TEST(MockRemotePipeline, FourRequestsInFlightOverlapOnTheDevice) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0", fast(20000));
    EXPECT_EQ(compiled.get_property(optimal_number_of_infer_requests), 2u);
    std::vector<InferRequest> requests;
    for (int i = 0; i < 4; ++i) requests.push_back(compiled.create_infer_request());
    for (auto& r : requests) r.start_async();
    for (auto& r : requests) r.wait();
    // Submission takes microseconds, each job 20 ms: the next job is queued while one runs.
    EXPECT_GE(device_value(core, "MOCK_REMOTE.0", max_queue_depth), 2u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 4u);
}

TEST(MockRemotePipeline, TwoInstancesRunIndependently) {
    Core core = make_core();
    // Instance 0 is held by a hung job; instance 1 keeps serving.
    auto blocked_model =
        core.compile_model(add_one_model(), "MOCK_REMOTE.0", with(fast(), {hang_nth(uint64_t{1})}));
    auto blocked = blocked_model.create_infer_request();
    blocked.start_async();
    auto other = core.compile_model(add_one_model(), "MOCK_REMOTE.1", fast());
    std::vector<InferRequest> requests;
    for (int i = 0; i < 3; ++i) requests.push_back(other.create_infer_request());
    for (int round = 0; round < 2; ++round) {
        for (auto& r : requests) r.start_async();
        for (auto& r : requests) r.wait();
    }
    EXPECT_FALSE(blocked.wait_for(0ms));
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.1", jobs_completed), 6u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 0u);
    blocked.cancel();
    EXPECT_THROW(blocked.wait(), Cancelled);
    EXPECT_EQ(blocked_model.get_property(execution_devices),
              std::vector<std::string>{"MOCK_REMOTE.0"});
    EXPECT_EQ(other.get_property(execution_devices), std::vector<std::string>{"MOCK_REMOTE.1"});
}

TEST(MockRemotePipeline, BothInstancesUnderLoadFromManyThreads) {
    Core core = make_core();
    auto m0 = core.compile_model(add_one_model(), "MOCK_REMOTE.0", fast(300));
    auto m1 = core.compile_model(add_one_model(), "MOCK_REMOTE.1", fast(300));
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            auto request = (t % 2 ? m1 : m0).create_infer_request();
            for (int i = 0; i < 5; ++i) {
                const float base = static_cast<float>(100 * t + i);
                request.set_tensor("x", make_tensor({1, 8}, base));
                request.start_async();
                request.wait();
                if (values(request.get_tensor("y"))[3] != base + 4.f) ++wrong;
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 10u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.1", jobs_completed), 10u);
}

TEST(MockRemotePipeline, CallbackMayRestartTheRequest) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0", fast(200));
    auto request = compiled.create_infer_request();
    std::mutex mutex;
    std::condition_variable done_cv;
    int runs = 0;
    bool done = false;
    request.set_callback([&](std::exception_ptr error) {
        EXPECT_FALSE(error);
        std::lock_guard<std::mutex> lock(mutex);
        if (++runs < 5) {
            request.start_async();
        } else {
            done = true;
            done_cv.notify_all();
        }
    });
    request.start_async();
    {
        std::unique_lock<std::mutex> lock(mutex);
        done_cv.wait(lock, [&] { return done; });
    }
    request.wait();
    EXPECT_EQ(runs, 5);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 5u);
}

}  // namespace
}  // namespace vireo::mock_remote::test
