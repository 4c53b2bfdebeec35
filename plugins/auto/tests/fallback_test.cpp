// AUTO's runtime fallback with MOCK_REMOTE's injected device errors: zero failures seen by the
// caller while TEMPLATE is healthy, compiles counted, one WARNING; and, with the fallback off,
// the error reaches the caller exactly once.
#include <atomic>
#include <mutex>

#include "test_utils.hpp"

namespace {
using namespace vireo;
using namespace auto_test;

AnyMap with_mock(AnyMap mock, bool fallback = true) {
    return {auto_device::enable_startup_fallback(false),
            auto_device::enable_runtime_fallback(fallback),
            {device::properties.name(), AnyMap{{"MOCK_REMOTE.0", std::move(mock)}}}};
}

TEST(AutoFallback, AFailedInferenceReRunsOnTheNextDeviceAndLaterOnesFollow) {
    Core core;
    WarningSink sink;
    CompiledModel compiled = core.compile_model(small_model(), "AUTO:MOCK_REMOTE.0,TEMPLATE",
                                                with_mock({mock_remote::fail_nth(3)}));
    EXPECT_EQ(compiled.get_property(auto_device::compiles),
              (std::vector<std::string>{"MOCK_REMOTE.0"}));
    InferRequest request = compiled.create_infer_request();
    for (int i = 0; i < 6; ++i) {
        const Tensor x = make_input(static_cast<float>(i) - 2.f);
        request.set_input_tensor(x);
        request.infer();  // the 3rd fails on MOCK_REMOTE.0 and is re-run on TEMPLATE
        expect_near(values_of(request.get_output_tensor()), template_run(core, small_model(), x));
    }
    EXPECT_EQ(jobs_completed(core, "MOCK_REMOTE.0"), 2u);
    EXPECT_EQ(jobs_failed(core, "MOCK_REMOTE.0"), 1u);
    EXPECT_EQ(compiled.get_property(auto_device::compiles),
              (std::vector<std::string>{"MOCK_REMOTE.0", "TEMPLATE"}));  // TEMPLATE once, on demand
    EXPECT_EQ(compiled.get_property(auto_device::failovers), 1u);
    EXPECT_EQ(compiled.get_property(execution_devices), (std::vector<std::string>{"TEMPLATE"}));
    const auto warnings = sink.lines_with("failed on MOCK_REMOTE.0");
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("TEMPLATE"), std::string::npos) << warnings[0];
}

TEST(AutoFallback, FailRateWithRequestsInFlightLosesNothing) {
    Core core;
    CompiledModel compiled =
        core.compile_model(small_model(), "AUTO:MOCK_REMOTE.0,TEMPLATE",
                           with_mock({mock_remote::fail_rate(0.5), mock_remote::seed(7)}));
    constexpr int kRequests = 4, kRounds = 10;
    std::vector<InferRequest> requests;
    std::vector<Tensor> inputs;
    std::atomic<int> callbacks{0}, errors{0};
    for (int r = 0; r < kRequests; ++r) {
        requests.push_back(compiled.create_infer_request());
        inputs.push_back(make_input(static_cast<float>(r)));
        requests.back().set_input_tensor(inputs.back());
        requests.back().set_callback([&](std::exception_ptr e) {
            ++callbacks;
            if (e) ++errors;
        });
    }
    for (int round = 0; round < kRounds; ++round) {
        for (auto& r : requests) r.start_async();
        for (int r = 0; r < kRequests; ++r) {
            requests[r].wait();
            expect_near(values_of(requests[r].get_output_tensor()), small_expected(inputs[r]));
        }
    }
    EXPECT_EQ(callbacks.load(), kRequests * kRounds);
    EXPECT_EQ(errors.load(), 0);
    // At least one injected failure happened (rate 0.5), so AUTO moved to TEMPLATE for good.
    EXPECT_GE(jobs_failed(core, "MOCK_REMOTE.0"), 1u);
    EXPECT_EQ(compiled.get_property(auto_device::compiles),
              (std::vector<std::string>{"MOCK_REMOTE.0", "TEMPLATE"}));
    EXPECT_EQ(compiled.get_property(auto_device::failovers), jobs_failed(core, "MOCK_REMOTE.0"));
}

TEST(AutoFallback, OffTheErrorReachesTheCallerExactlyOnce) {
    Core core;
    CompiledModel compiled =
        core.compile_model(small_model(), "AUTO:MOCK_REMOTE.0,TEMPLATE",
                           with_mock({mock_remote::fail_nth(2)}, /*fallback=*/false));
    InferRequest request = compiled.create_infer_request();
    std::atomic<int> callbacks{0}, errors{0};
    request.set_callback([&](std::exception_ptr e) {
        ++callbacks;
        if (e) ++errors;
    });
    const Tensor x = make_input(0.f);
    request.set_input_tensor(x);
    for (int i = 0; i < 4; ++i) {
        request.start_async();
        if (i == 1) {
            const std::string message = error_of([&] { request.wait(); }, ErrorKind::kUnavailable);
            EXPECT_NE(message.find("injected fault"), std::string::npos) << message;
        } else {
            request.wait();
            expect_near(values_of(request.get_output_tensor()), small_expected(x));
        }
    }
    EXPECT_EQ(callbacks.load(), 4);
    EXPECT_EQ(errors.load(), 1);
    EXPECT_EQ(compiled.get_property(auto_device::compiles),
              (std::vector<std::string>{"MOCK_REMOTE.0"}));
    EXPECT_EQ(compiled.get_property(auto_device::failovers), 0u);
    EXPECT_EQ(jobs_completed(core, "MOCK_REMOTE.0"), 3u);
}

TEST(AutoFallback, CanBeTurnedOffOnTheCompiledModel) {
    Core core;
    CompiledModel compiled = core.compile_model(small_model(), "AUTO:MOCK_REMOTE.0,TEMPLATE",
                                                with_mock({mock_remote::fail_nth(1)}));
    EXPECT_TRUE(compiled.get_property(auto_device::enable_runtime_fallback));
    compiled.set_property({auto_device::enable_runtime_fallback(false)});
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(make_input(0.f));
    error_of([&] { request.infer(); }, ErrorKind::kUnavailable);
}

TEST(AutoFallback, NoDeviceLeftGivesTheLastDeviceError) {
    Core core;
    AnyMap props{auto_device::enable_startup_fallback(false),
                 {device::properties.name(),
                  AnyMap{{"MOCK_REMOTE", AnyMap{{mock_remote::fail_rate.name(), 1.0}}}}}};
    CompiledModel compiled =
        core.compile_model(small_model(), "AUTO:MOCK_REMOTE.0,MOCK_REMOTE.1", props);
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(make_input(0.f));
    const std::string message = error_of([&] { request.infer(); }, ErrorKind::kUnavailable);
    EXPECT_NE(message.find("MOCK_REMOTE.1"), std::string::npos) << message;
    EXPECT_EQ(compiled.get_property(auto_device::compiles),
              (std::vector<std::string>{"MOCK_REMOTE.0", "MOCK_REMOTE.1"}));
    EXPECT_EQ(compiled.get_property(auto_device::failovers), 2u);
    // A later request finds no device at all: it still says which failed last, and why.
    InferRequest later = compiled.create_infer_request();
    later.set_input_tensor(make_input(1.f));
    const std::string again = error_of([&] { later.infer(); }, ErrorKind::kUnavailable);
    EXPECT_NE(again.find("no device is left"), std::string::npos) << again;
    EXPECT_NE(again.find("the last to fail was MOCK_REMOTE.1"), std::string::npos) << again;
}

}  // namespace
