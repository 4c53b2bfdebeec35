// Bounded stress of AUTO and MULTI over two flaky MOCK_REMOTE instances (failure rate 0.5, a
// hang, jitter) and a healthy TEMPLATE, with cancels and caller time-outs: every request
// started completes exactly once, with the right result or one error, never hangs; with the
// runtime fallback on, none fails while TEMPLATE is healthy. Prints the counts
// (docs/reliability.md quotes them).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "test_utils.hpp"

namespace {
using namespace vireo;
using namespace auto_test;

struct Counts {
    std::atomic<uint64_t> started{0}, completed{0}, cancelled{0}, failed{0}, wrong{0}, callbacks{0},
        cancels_asked{0};
};

AnyMap flaky_remote() {
    return {{device::properties.name(),
             AnyMap{{"MOCK_REMOTE", AnyMap{{mock_remote::fail_rate.name(), 0.5},
                                           {mock_remote::hang_nth.name(), uint64_t(5)},
                                           {mock_remote::jitter_us.name(), uint32_t(500)},
                                           {mock_remote::latency_us.name(), uint32_t(500)},
                                           {mock_remote::compile_ms.name(), uint32_t(50)}}}}}};
}

// wait_for() rethrows the run's error once it is done: true when done (error or not).
bool done_within(InferRequest& request, std::chrono::milliseconds timeout) {
    try {
        return request.wait_for(timeout);
    } catch (const Exception&) {
        return true;
    }
}

void drive(const std::string& device, const AnyMap& properties) {
    Core core;
    CompiledModel compiled = core.compile_model(small_model(), device, properties);
    constexpr int kRequests = 8;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
    Counts counts;
    std::vector<std::thread> threads;
    for (int t = 0; t < kRequests; ++t) {
        threads.emplace_back([&, t] {
            InferRequest request = compiled.create_infer_request();
            request.set_callback([&](std::exception_ptr) { ++counts.callbacks; });
            for (int run = 0; std::chrono::steady_clock::now() < deadline; ++run) {
                const Tensor x = make_input(static_cast<float>((t * 31 + run) % 11) - 5.f);
                request.set_input_tensor(x);
                ++counts.started;
                request.start_async();
                bool cancel = run % 7 == 3;  // a caller that gives up at once
                if (!cancel && !done_within(request, std::chrono::milliseconds(300)))
                    cancel = true;  // a time-out
                if (cancel) {
                    ++counts.cancels_asked;
                    request.cancel();
                }
                // Hang guard only: a cancelled or finished request must be done long before.
                if (!done_within(request, std::chrono::seconds(20))) {
                    ADD_FAILURE() << device << ": request " << t << " run " << run
                                  << " never completed";
                    return;
                }
                try {
                    request.wait();
                    const auto y = values_of(request.get_output_tensor());
                    const auto expected = small_expected(x);
                    bool same = y.size() == expected.size();
                    for (size_t i = 0; same && i < y.size(); ++i)
                        same = std::abs(y[i] - expected[i]) < 1e-5f;
                    ++(same ? counts.completed : counts.wrong);
                } catch (const Exception& e) {
                    if (e.kind() == ErrorKind::kCancelled) {
                        ++counts.cancelled;
                    } else {
                        ++counts.failed;
                        ADD_FAILURE() << device << ": " << e.what();
                    }
                }
            }
        });
    }
    for (auto& th : threads) th.join();
    const uint64_t failovers = compiled.get_property(auto_device::failovers);
    std::printf(
        "%s: started %llu, completed %llu, failed over %llu, cancelled %llu (of %llu cancels "
        "asked), "
        "failed %llu, wrong %llu\n",
        device.c_str(), static_cast<unsigned long long>(counts.started.load()),
        static_cast<unsigned long long>(counts.completed.load()),
        static_cast<unsigned long long>(failovers),
        static_cast<unsigned long long>(counts.cancelled.load()),
        static_cast<unsigned long long>(counts.cancels_asked.load()),
        static_cast<unsigned long long>(counts.failed.load()),
        static_cast<unsigned long long>(counts.wrong.load()));
    EXPECT_GT(counts.started.load(), static_cast<uint64_t>(kRequests));
    EXPECT_EQ(counts.started.load(), counts.completed.load() + counts.cancelled.load() +
                                         counts.failed.load() + counts.wrong.load());
    EXPECT_EQ(counts.callbacks.load(), counts.started.load());  // exactly once each
    EXPECT_EQ(counts.failed.load(), 0u);
    EXPECT_EQ(counts.wrong.load(), 0u);
    EXPECT_LE(counts.cancelled.load(), counts.cancels_asked.load());
}

TEST(AutoStress, AutoOverFlakyRemotesAndTemplate) {
    drive("AUTO:MOCK_REMOTE.0,MOCK_REMOTE.1,TEMPLATE", flaky_remote());
}

TEST(AutoStress, MultiOverFlakyRemotesAndTemplate) {
    drive("MULTI:MOCK_REMOTE.0,MOCK_REMOTE.1,TEMPLATE", flaky_remote());
}

TEST(AutoStress, MultiOverTwoFlakyRemotes) {
    // No healthy device: failures may reach the caller, but each request still completes once.
    Core core;
    AnyMap props = flaky_remote();
    CompiledModel compiled =
        core.compile_model(small_model(), "MULTI:MOCK_REMOTE.0,MOCK_REMOTE.1", props);
    std::vector<InferRequest> requests;
    std::atomic<int> callbacks{0};
    for (int r = 0; r < 6; ++r) {
        requests.push_back(compiled.create_infer_request());
        requests.back().set_input_tensor(make_input(static_cast<float>(r)));
        requests.back().set_callback([&](std::exception_ptr) { ++callbacks; });
    }
    int started = 0, ok = 0, errors = 0;
    for (int round = 0; round < 10; ++round) {
        for (auto& r : requests) {
            r.start_async();
            ++started;
        }
        for (auto& r : requests) {
            if (!done_within(r, std::chrono::milliseconds(300))) r.cancel();
            ASSERT_TRUE(done_within(r, std::chrono::seconds(20))) << "hang";
            try {
                r.wait();
                ++ok;
            } catch (const Exception& e) {
                EXPECT_TRUE(e.kind() == ErrorKind::kUnavailable ||
                            e.kind() == ErrorKind::kCancelled)
                    << e.what();
                ++errors;
            }
        }
    }
    EXPECT_EQ(started, ok + errors);
    EXPECT_EQ(callbacks.load(), started);
}

}  // namespace
