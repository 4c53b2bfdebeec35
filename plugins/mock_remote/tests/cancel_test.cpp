// Cancel through the public API: an inference queued behind a busy device is dropped from the
// device queue without running (counted by the device), and the request is usable afterwards.
#include <gtest/gtest.h>

#include "test_utils.hpp"

namespace vireo::mock_remote::test {
namespace {

TEST(MockRemoteCancel, QueuedInferenceIsDroppedAndTheRequestStaysUsable) {
    Core core = make_core();
    // A hung job holds the device, so the next request's job stays queued.
    auto blocker_model = core.compile_model(add_one_model({1, 8}, "blocker"), "MOCK_REMOTE.0",
                                            with(fast(), {hang_nth(uint64_t{1})}));
    auto blocker = blocker_model.create_infer_request();
    blocker.start_async();
    wait_until([&] { return device_value(core, "MOCK_REMOTE.0", max_queue_depth) == 1; });

    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0", fast());
    auto request = compiled.create_infer_request();
    request.set_tensor("x", make_tensor({1, 8}, 5.f));
    request.start_async();
    wait_until([&] { return device_value(core, "MOCK_REMOTE.0", max_queue_depth) == 2; });
    request.cancel();
    EXPECT_THROW(request.wait(), Cancelled);
    // Dropped from the queue: cancelled on the device, never completed.
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_cancelled), 1u);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 0u);

    blocker.cancel();
    EXPECT_THROW(blocker.wait(), Cancelled);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_cancelled), 2u);

    // The cancelled request runs normally afterwards, synchronously and asynchronously.
    request.infer();
    std::vector<float> expected(8);
    for (size_t i = 0; i < expected.size(); ++i) expected[i] = 5.f + static_cast<float>(i) + 1.f;
    EXPECT_EQ(values(request.get_tensor("y")), expected);
    request.start_async();
    request.wait();
    EXPECT_EQ(values(request.get_tensor("y")), expected);
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", jobs_completed), 2u);
}

}  // namespace
}  // namespace vireo::mock_remote::test
