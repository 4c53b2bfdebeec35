// Tests of MOCK_REMOTE fault injection and cancellation through the Core: failed, randomly
// failing and hung executions, cancel at each point of the pipeline, and destruction of
// requests whose jobs are still queued.
#include <future>

#include "test_utils.hpp"

namespace vireo::mock_remote::test {
namespace {

using namespace std::chrono_literals;

ErrorKind kind_of(const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (const Exception& e) {
        return e.kind();
    } catch (...) {
        return ErrorKind::kGeneral;
    }
}

TEST(MockRemoteFaults, FailNthFailsExactlyThatExecutionWithADeviceError) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0",
                                       with(fast(200), {fail_nth(uint64_t{3})}));
    auto request = compiled.create_infer_request();
    std::vector<std::string> seen;  // written by the callback, read after wait()
    request.set_callback([&](std::exception_ptr error) {
        seen.push_back(!error                                      ? "ok"
                       : kind_of(error) == ErrorKind::kUnavailable ? "unavailable"
                                                                   : "other");
    });
    for (int run = 1; run <= 5; ++run) {
        request.set_tensor("x", make_tensor({1, 8}, static_cast<float>(run)));
        request.start_async();
        if (run == 3) {
            expect_error([&] { request.wait(); }, ErrorKind::kUnavailable,
                         {"MOCK_REMOTE.0", "execution #3", "device error"});
        } else {
            request.wait();
            EXPECT_EQ(values(request.get_tensor("y"))[0], static_cast<float>(run) + 1.f);
        }
    }
    EXPECT_EQ(seen, (std::vector<std::string>{"ok", "ok", "unavailable", "ok", "ok"}));
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_failed), 1u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 4u);
}

TEST(MockRemoteFaults, FailNthAlsoFailsSynchronousInfer) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.1",
                                       with(fast(200), {fail_nth(uint64_t{1})}));
    auto request = compiled.create_infer_request();
    expect_error([&] { request.infer(); }, ErrorKind::kUnavailable,
                 {"MOCK_REMOTE.1", "execution #1"});
    request.infer();  // the device keeps serving
}

std::vector<bool> failure_pattern(Core& core, uint64_t rng_seed, double rate, int runs) {
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0",
                                       with(fast(100), {fail_rate(rate), seed(rng_seed)}));
    auto request = compiled.create_infer_request();
    std::vector<bool> failed;
    for (int i = 0; i < runs; ++i) {
        try {
            request.infer();
            failed.push_back(false);
        } catch (const Unavailable&) {
            failed.push_back(true);
        }
    }
    return failed;
}

TEST(MockRemoteFaults, FailRateIsDeterministicForASeed) {
    Core core = make_core();
    const auto a = failure_pattern(core, 42, 0.5, 24);
    const auto b = failure_pattern(core, 42, 0.5, 24);
    EXPECT_EQ(a, b);
    const auto failures = std::count(a.begin(), a.end(), true);
    EXPECT_GT(failures, 0);
    EXPECT_LT(failures, 24);
    const auto none = failure_pattern(core, 42, 0.0, 8);
    EXPECT_EQ(std::count(none.begin(), none.end(), true), 0);
    const auto all = failure_pattern(core, 42, 1.0, 8);
    EXPECT_EQ(std::count(all.begin(), all.end(), true), 8);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_failed),
              static_cast<uint64_t>(2 * failures + 8));
}

TEST(MockRemoteFaults, HungExecutionTimesOutAndIsRecoveredByCancel) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0",
                                       with(fast(200), {hang_nth(uint64_t{2})}));
    auto request = compiled.create_infer_request();
    request.infer();
    int callbacks = 0;
    std::exception_ptr callback_error;
    request.set_callback([&](std::exception_ptr error) {
        ++callbacks;
        callback_error = error;
    });
    request.start_async();
    EXPECT_FALSE(request.wait_for(20ms));
    EXPECT_THROW(request.set_tensor("x", make_tensor({1, 8})), Busy);
    request.cancel();
    EXPECT_THROW(request.wait(), Cancelled);
    EXPECT_EQ(callbacks, 1);
    EXPECT_EQ(kind_of(callback_error), ErrorKind::kCancelled);
    // Recovered: the same request and the device keep working.
    request.set_tensor("x", make_tensor({1, 8}, 4.f));
    request.start_async();
    request.wait();
    EXPECT_EQ(values(request.get_tensor("y"))[0], 5.f);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_cancelled), 1u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 2u);
}

TEST(MockRemoteFaults, JitterKeepsResultsAndOnlyAddsTime) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.1",
                                       with(fast(1000), {jitter_us(3000u), seed(uint64_t{7})}));
    auto request = compiled.create_infer_request();
    for (int i = 0; i < 3; ++i) {
        request.set_tensor("x", make_tensor({1, 8}, static_cast<float>(i)));
        request.infer();
        EXPECT_EQ(values(request.get_tensor("y"))[1], static_cast<float>(i) + 2.f);
        EXPECT_GE(find_row(request.get_profiling_info(), kStageExecution)->real_time, 1000us);
    }
}

TEST(MockRemoteCancel, WhileIdleIsANoOp) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0", fast(200));
    auto request = compiled.create_infer_request();
    request.cancel();
    request.start_async();
    request.wait();
    request.cancel();  // after completion
    request.wait();    // still the successful run
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_cancelled), 0u);
}

TEST(MockRemoteCancel, BeforeTheFirstStageRunsNothingReachesTheDevice) {
    // The host executor has one stream; request A's callback runs on it (no callback executor)
    // and blocks, so request B's first stage cannot start until the test lets it.
    Core core = make_core();
    auto compiled =
        core.compile_model(add_one_model(), "MOCK_REMOTE.0", with(fast(200), {num_streams(1)}));
    auto a = compiled.create_infer_request();
    auto b = compiled.create_infer_request();
    std::promise<void> entered;
    std::promise<void> release;
    auto released = release.get_future().share();
    a.set_callback([&, released](std::exception_ptr) {
        entered.set_value();
        released.wait();
    });
    a.start_async();
    entered.get_future().wait();
    b.start_async();
    b.cancel();
    release.set_value();
    a.wait();
    EXPECT_THROW(b.wait(), Cancelled);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 1u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", max_queue_depth), 1u);
    b.infer();  // reusable
}

TEST(MockRemoteCancel, WhileQueuedTheJobIsDroppedFromTheDevice) {
    Core core = make_core();
    auto blocker_model = core.compile_model(add_one_model({1, 8}, "blocker"), "MOCK_REMOTE.0",
                                            with(fast(), {hang_nth(uint64_t{1})}));
    auto blocker = blocker_model.create_infer_request();
    blocker.start_async();
    wait_until([&] { return device_value(core, "MOCK_REMOTE.0", max_queue_depth) == 1; });
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0", fast(200));
    auto queued = compiled.create_infer_request();
    queued.start_async();
    wait_until([&] { return device_value(core, "MOCK_REMOTE.0", max_queue_depth) == 2; });
    queued.cancel();
    EXPECT_THROW(queued.wait(), Cancelled);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_cancelled), 1u);
    EXPECT_FALSE(blocker.wait_for(0ms));
    blocker.cancel();
    EXPECT_THROW(blocker.wait(), Cancelled);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_cancelled), 2u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed),
              0u);  // the dropped job never ran
    queued.infer();
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 1u);
}

TEST(MockRemoteCancel, DestroyingRequestsWithQueuedJobsLeaksNothing) {
    Core core = make_core();
    {
        auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.1", fast(3000));
        std::vector<InferRequest> requests;
        for (int i = 0; i < 4; ++i) requests.push_back(compiled.create_infer_request());
        for (auto& r : requests) r.start_async();
        // Destroyed while jobs run or wait on the device.
    }
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.1", allocated_bytes), 0u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.1", jobs_failed), 0u);
    EXPECT_LE(device_value(core, "MOCK_REMOTE.1", jobs_completed) +
                  device_value(core, "MOCK_REMOTE.1", jobs_cancelled),
              4u);
}

TEST(MockRemoteCancel, DestroyingRequestsBehindAHungJobDoesNotBlock) {
    Core core = make_core();
    {
        auto hung_model = core.compile_model(add_one_model({1, 8}, "hung"), "MOCK_REMOTE.0",
                                             with(fast(), {hang_nth(uint64_t{1})}));
        auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0", fast(200));
        auto hung = hung_model.create_infer_request();
        int callbacks = 0;
        hung.set_callback([&](std::exception_ptr) { ++callbacks; });
        hung.start_async();
        wait_until([&] { return device_value(core, "MOCK_REMOTE.0", max_queue_depth) == 1; });
        std::vector<InferRequest> behind;
        for (int i = 0; i < 2; ++i) behind.push_back(compiled.create_infer_request());
        for (auto& r : behind) r.start_async();
        wait_until([&] { return device_value(core, "MOCK_REMOTE.0", max_queue_depth) == 3; });
        behind.clear();         // their jobs are queued behind the hung one: dropped
        hung = InferRequest();  // aborts the hung job; the callback is not called for it
        EXPECT_EQ(callbacks, 0);
    }
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_cancelled), 3u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", allocated_bytes), 0u);
}

}  // namespace
}  // namespace vireo::mock_remote::test
