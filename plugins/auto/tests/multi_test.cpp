// MULTI: requests spread over every listed device (each runs whole on one), the optimal number
// is the sum, per-device properties reach each device, a failed request re-runs on another
// device, and cancel reaches the sub-request.
#include <atomic>
#include <chrono>

#include "test_utils.hpp"

namespace {
using namespace vireo;
using namespace auto_test;

TEST(Multi, SpreadsRequestsOverBothInstances) {
    Core core;
    CompiledModel compiled = core.compile_model(small_model(), "MULTI:MOCK_REMOTE.0,MOCK_REMOTE.1");
    EXPECT_EQ(compiled.get_property(execution_devices),
              (std::vector<std::string>{"MOCK_REMOTE.0", "MOCK_REMOTE.1"}));
    EXPECT_EQ(compiled.get_property(optimal_number_of_infer_requests), 4u);  // 2 + 2
    // Both compiled, each once.
    EXPECT_EQ(compiled.get_property(auto_device::compiles),
              (std::vector<std::string>{"MOCK_REMOTE.0", "MOCK_REMOTE.1"}));
    constexpr int kRequests = 8, kRounds = 5;
    std::vector<InferRequest> requests;
    std::vector<Tensor> inputs;
    for (int r = 0; r < kRequests; ++r) {
        requests.push_back(compiled.create_infer_request());
        inputs.push_back(make_input(static_cast<float>(r) - 4.f));
        requests.back().set_input_tensor(inputs.back());
    }
    const std::vector<float> reference = template_run(core, small_model(), inputs[0]);
    for (int round = 0; round < kRounds; ++round) {
        for (auto& r : requests) r.start_async();
        for (int r = 0; r < kRequests; ++r) {
            requests[r].wait();
            expect_near(values_of(requests[r].get_output_tensor()), small_expected(inputs[r]));
        }
        expect_near(values_of(requests[0].get_output_tensor()), reference);
    }
    const uint64_t on0 = jobs_completed(core, "MOCK_REMOTE.0"),
                   on1 = jobs_completed(core, "MOCK_REMOTE.1");
    // 8 requests in flight against 2 workers per instance: both instances serve, every
    // inference exactly once.
    EXPECT_GT(on0, 0u);
    EXPECT_GT(on1, 0u);
    EXPECT_EQ(on0 + on1, static_cast<uint64_t>(kRequests * kRounds));
    // Each instance ran two requests at once (one on the device, one queued behind it).
    EXPECT_GE(core.get_property("MOCK_REMOTE.0", mock_remote::max_queue_depth), 2u);
    EXPECT_GE(core.get_property("MOCK_REMOTE.1", mock_remote::max_queue_depth), 2u);
}

TEST(Multi, CumulativeThroughputHintMakesAutoBehaveAsMulti) {
    Core core;
    CompiledModel compiled =
        core.compile_model(small_model(), "AUTO:MOCK_REMOTE.0,MOCK_REMOTE.1",
                           {hint::performance_mode(hint::PerformanceMode::CUMULATIVE_THROUGHPUT)});
    EXPECT_EQ(compiled.get_property(execution_devices),
              (std::vector<std::string>{"MOCK_REMOTE.0", "MOCK_REMOTE.1"}));
    EXPECT_EQ(compiled.get_property(optimal_number_of_infer_requests), 4u);
}

TEST(Multi, PerDevicePropertiesReachEachDevice) {
    // MOCK_REMOTE.1 fails every execution, MOCK_REMOTE.0 none: every request still succeeds
    // (re-run on .0), and the failures are counted on .1 only.
    Core core;
    AnyMap props{
        {device::properties.name(),
         AnyMap{{"MOCK_REMOTE.1", AnyMap{{mock_remote::fail_rate.name(), 1.0}}},
                {"MOCK_REMOTE.0", AnyMap{{mock_remote::latency_us.name(), uint32_t(500)}}}}}};
    CompiledModel compiled =
        core.compile_model(small_model(), "MULTI:MOCK_REMOTE.0,MOCK_REMOTE.1", props);
    constexpr int kRequests = 6;
    std::vector<InferRequest> requests;
    std::vector<Tensor> inputs;
    for (int r = 0; r < kRequests; ++r) {
        requests.push_back(compiled.create_infer_request());
        inputs.push_back(make_input(static_cast<float>(r)));
        requests.back().set_input_tensor(inputs.back());
    }
    for (int round = 0; round < 3; ++round) {
        for (auto& r : requests) r.start_async();
        for (int r = 0; r < kRequests; ++r) {
            requests[r].wait();
            expect_near(values_of(requests[r].get_output_tensor()), small_expected(inputs[r]));
        }
    }
    EXPECT_EQ(jobs_completed(core, "MOCK_REMOTE.0"), static_cast<uint64_t>(3 * kRequests));
    EXPECT_EQ(jobs_failed(core, "MOCK_REMOTE.0"), 0u);
    EXPECT_EQ(jobs_completed(core, "MOCK_REMOTE.1"), 0u);
    EXPECT_GE(jobs_failed(core, "MOCK_REMOTE.1"), 1u);
    EXPECT_EQ(compiled.get_property(auto_device::failovers), jobs_failed(core, "MOCK_REMOTE.1"));
    // MULTI keeps both devices: a failure is treated as transient.
    EXPECT_EQ(compiled.get_property(execution_devices),
              (std::vector<std::string>{"MOCK_REMOTE.0", "MOCK_REMOTE.1"}));
}

TEST(Multi, FallbackOffReportsTheErrorOnce) {
    Core core;
    AnyMap props{auto_device::enable_runtime_fallback(false),
                 {device::properties.name(),
                  AnyMap{{"MOCK_REMOTE", AnyMap{{mock_remote::fail_nth.name(), uint64_t(1)}}}}}};
    CompiledModel compiled =
        core.compile_model(small_model(), "MULTI:MOCK_REMOTE.0,MOCK_REMOTE.1", props);
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(make_input(0.f));
    // The first inference lands on MOCK_REMOTE.0 (most preferred, free) and fails there.
    error_of([&] { request.infer(); }, ErrorKind::kUnavailable);
    request.infer();  // .0's second execution
    EXPECT_EQ(jobs_failed(core, "MOCK_REMOTE.0"), 1u);
    EXPECT_EQ(jobs_completed(core, "MOCK_REMOTE.0"), 1u);
}

TEST(Multi, CancelReachesTheSubRequest) {
    Core core;
    AnyMap props{{device::properties.name(),
                  AnyMap{{"MOCK_REMOTE", AnyMap{{mock_remote::hang_nth.name(), uint64_t(1)}}}}}};
    CompiledModel compiled =
        core.compile_model(small_model(), "MULTI:MOCK_REMOTE.0,MOCK_REMOTE.1", props);
    InferRequest request = compiled.create_infer_request();
    std::atomic<int> callbacks{0};
    request.set_callback([&](std::exception_ptr) { ++callbacks; });
    const Tensor x = make_input(1.f);
    request.set_input_tensor(x);
    request.start_async();
    EXPECT_FALSE(request.wait_for(std::chrono::milliseconds(100)));  // the execution hangs
    request.cancel();
    error_of([&] { request.wait(); }, ErrorKind::kCancelled);
    EXPECT_EQ(callbacks.load(), 1);
    EXPECT_EQ(jobs_cancelled(core, "MOCK_REMOTE.0") + jobs_cancelled(core, "MOCK_REMOTE.1"), 1u);
    // The request (and the worker) serve again.
    request.start_async();
    request.wait();
    expect_near(values_of(request.get_output_tensor()), small_expected(x));
    EXPECT_EQ(callbacks.load(), 2);
}

TEST(Multi, CancelWhileWaitingForAFreeWorker) {
    // One worker per device (NUM_REQUESTS hint caps MOCK_REMOTE's optimal number at 1) and both
    // hang: a third request waits for a worker and is cancelled there.
    Core core;
    AnyMap props{{device::properties.name(),
                  AnyMap{{"MOCK_REMOTE", AnyMap{{mock_remote::hang_nth.name(), uint64_t(1)},
                                                {hint::num_requests.name(), uint32_t(1)}}}}}};
    CompiledModel compiled =
        core.compile_model(small_model(), "MULTI:MOCK_REMOTE.0,MOCK_REMOTE.1", props);
    ASSERT_EQ(compiled.get_property(optimal_number_of_infer_requests), 2u);
    std::vector<InferRequest> requests;
    auto start = [&](int r) {
        requests.push_back(compiled.create_infer_request());
        requests.back().set_input_tensor(make_input(static_cast<float>(r)));
        requests.back().start_async();
        EXPECT_FALSE(requests.back().wait_for(std::chrono::milliseconds(50)));
    };
    start(0);
    start(1);  // both workers now hold a hung job
    start(2);  // waits for a worker
    // The waiting request first: cancelling a hung one first frees its worker, which the waiting
    // request could take before its own cancel arrives (the order the test used to cancel in).
    requests[2].cancel();
    error_of([&] { requests[2].wait(); }, ErrorKind::kCancelled);
    const auto cancelled = [&] {
        return jobs_cancelled(core, "MOCK_REMOTE.0") + jobs_cancelled(core, "MOCK_REMOTE.1");
    };
    EXPECT_EQ(cancelled(), 0u);  // it never reached a device
    for (int r : {0, 1}) requests[r].cancel();
    for (int r : {0, 1}) error_of([&] { requests[r].wait(); }, ErrorKind::kCancelled);
    EXPECT_EQ(cancelled(), 2u);
}

}  // namespace

namespace {
using namespace vireo;
using namespace auto_test;

TEST(Multi, DroppingARequestWhoseWorkerHangs) {
    // The destructor cancels the hung sub-request instead of waiting for it forever, and does
    // not call the callback.
    Core core;
    AnyMap props{{device::properties.name(),
                  AnyMap{{"MOCK_REMOTE", AnyMap{{mock_remote::hang_nth.name(), uint64_t(1)}}}}}};
    CompiledModel compiled =
        core.compile_model(small_model(), "MULTI:MOCK_REMOTE.0,MOCK_REMOTE.1", props);
    std::atomic<int> callbacks{0};
    {
        InferRequest request = compiled.create_infer_request();
        request.set_callback([&](std::exception_ptr) { ++callbacks; });
        request.set_input_tensor(make_input(0.f));
        request.start_async();
        EXPECT_FALSE(request.wait_for(std::chrono::milliseconds(50)));
    }
    EXPECT_EQ(callbacks.load(), 0);
    EXPECT_EQ(jobs_cancelled(core, "MOCK_REMOTE.0") + jobs_cancelled(core, "MOCK_REMOTE.1"), 1u);
    // The worker went back to the pool and serves the next request. MULTI may send that one to
    // the other instance, whose first job hangs too (MOCK_REMOTE_HANG_NTH counts per compiled
    // model; a loaded machine made that happen): it is dropped the same way, and the request after
    // it is served.
    const Tensor x = make_input(2.f);
    bool served = false;
    for (int attempt = 0; attempt < 2 && !served; ++attempt) {
        InferRequest next = compiled.create_infer_request();
        next.set_input_tensor(x);
        next.start_async();
        if (!next.wait_for(std::chrono::seconds(10))) continue;  // hung: dropped, cancelled
        expect_near(values_of(next.get_output_tensor()), small_expected(x));
        served = true;
    }
    EXPECT_TRUE(served);
    EXPECT_EQ(callbacks.load(), 0);
}

}  // namespace
