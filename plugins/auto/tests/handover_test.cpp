// AUTO's start-up acceleration on AUTO:MOCK_REMOTE.0,TEMPLATE with MOCK_REMOTE's modelled
// 200 ms compile: TEMPLATE serves until MOCK_REMOTE.0 is ready, then every request moves there.
// Which device served a request is read from MOCK_REMOTE's job counter, not from a clock.
#include <atomic>
#include <chrono>
#include <thread>

#include "test_utils.hpp"

namespace {
using namespace vireo;
using namespace auto_test;

// MOCK_REMOTE's modelled compile time, through DEVICE_PROPERTIES (200 ms is also its default).
std::pair<std::string, Any> slow_compile() {
    return {device::properties.name(),
            AnyMap{{"MOCK_REMOTE", AnyMap{{mock_remote::compile_ms.name(), uint32_t(200)}}}}};
}

bool handed_over(const CompiledModel& compiled) {
    return compiled.get_property(execution_devices) == std::vector<std::string>{"MOCK_REMOTE.0"};
}

TEST(AutoStartup, ServesOnTheHostUntilTheChosenDeviceIsReady) {
    Core core;
    CompiledModel compiled =
        core.compile_model(small_model(), "AUTO:MOCK_REMOTE.0,TEMPLATE", {slow_compile()});
    // compile_model returned after TEMPLATE's compile; MOCK_REMOTE.0's runs in the background.
    EXPECT_EQ(compiled.get_property(auto_device::compiles).front(), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    std::vector<bool> on_mock;  // per inference: served by MOCK_REMOTE.0?
    const auto guard =
        std::chrono::steady_clock::now() + std::chrono::seconds(60);  // hang guard only
    int after = 0;
    for (int i = 0; after < 5; ++i) {
        ASSERT_LT(std::chrono::steady_clock::now(), guard) << "no hand-over";
        const Tensor x = make_input(static_cast<float>(i % 7) - 3.f);
        const uint64_t before = jobs_completed(core, "MOCK_REMOTE.0");
        request.set_input_tensor(x);
        if (i % 2) {
            request.start_async();
            request.wait();
        } else {
            request.infer();
        }
        expect_near(values_of(request.get_output_tensor()), small_expected(x));
        const uint64_t delta = jobs_completed(core, "MOCK_REMOTE.0") - before;
        ASSERT_LE(delta, 1u);
        on_mock.push_back(delta == 1);
        if (handed_over(compiled))
            ++after;
        else
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // The first inference ran while MOCK_REMOTE.0 compiled (200 ms against microseconds on
    // TEMPLATE); once one ran on MOCK_REMOTE.0, every later one did too.
    ASSERT_FALSE(on_mock.empty());
    EXPECT_FALSE(on_mock.front());
    const auto first_mock = std::find(on_mock.begin(), on_mock.end(), true);
    ASSERT_NE(first_mock, on_mock.end());
    EXPECT_TRUE(std::all_of(first_mock, on_mock.end(), [](bool b) { return b; }));
    EXPECT_EQ(compiled.get_property(auto_device::compiles),
              (std::vector<std::string>{"TEMPLATE", "MOCK_REMOTE.0"}));
    EXPECT_EQ(compiled.get_property(optimal_number_of_infer_requests), 2u);
}

TEST(AutoStartup, RequestsInFlightDuringTheHandOverAllComplete) {
    Core core;
    CompiledModel compiled =
        core.compile_model(small_model(), "AUTO:MOCK_REMOTE.0,TEMPLATE", {slow_compile()});
    constexpr int kRequests = 4;
    std::vector<InferRequest> requests;
    std::vector<Tensor> inputs;
    for (int r = 0; r < kRequests; ++r) {
        requests.push_back(compiled.create_infer_request());
        inputs.push_back(make_input(static_cast<float>(r) - 2.f));
        requests.back().set_input_tensor(inputs.back());
    }
    int runs = 0, after = 0;
    const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (after < 3) {
        ASSERT_LT(std::chrono::steady_clock::now(), guard) << "no hand-over";
        for (auto& r : requests) r.start_async();
        for (int r = 0; r < kRequests; ++r) {
            requests[r].wait();
            expect_near(values_of(requests[r].get_output_tensor()), small_expected(inputs[r]));
            ++runs;
        }
        if (handed_over(compiled)) ++after;
    }
    // Every run happened on one of the two devices; at least the last rounds on MOCK_REMOTE.0.
    EXPECT_GE(jobs_completed(core, "MOCK_REMOTE.0"), static_cast<uint64_t>(2 * kRequests));
    EXPECT_LE(jobs_completed(core, "MOCK_REMOTE.0"), static_cast<uint64_t>(runs));
}

TEST(AutoStartup, OffWaitsForTheChosenDevice) {
    Core core;
    CompiledModel compiled =
        core.compile_model(small_model(), "AUTO:MOCK_REMOTE.0,TEMPLATE",
                           {slow_compile(), auto_device::enable_startup_fallback(false)});
    EXPECT_EQ(compiled.get_property(auto_device::compiles),
              (std::vector<std::string>{"MOCK_REMOTE.0"}));
    EXPECT_TRUE(handed_over(compiled));
    EXPECT_FALSE(compiled.get_property(auto_device::enable_startup_fallback));
}

TEST(AutoStartup, NoHostListedMeansNoAcceleration) {
    Core core;
    CompiledModel compiled = core.compile_model(small_model(), "AUTO:MOCK_REMOTE.1,MOCK_REMOTE.0");
    EXPECT_EQ(compiled.get_property(auto_device::compiles),
              (std::vector<std::string>{"MOCK_REMOTE.1"}));
}

TEST(AutoStartup, DroppingTheModelWhileTheChosenDeviceCompiles) {
    Core core;
    {
        CompiledModel compiled = core.compile_model(small_model(), "AUTO:MOCK_REMOTE.0,TEMPLATE");
        InferRequest request = compiled.create_infer_request();
        const Tensor x = make_input(1.f);
        request.set_input_tensor(x);
        request.infer();
        expect_near(values_of(request.get_output_tensor()), small_expected(x));
    }  // joins the background compile: nothing leaks, nothing crashes
    SUCCEED();
}

}  // namespace
