// Tests of MOCK_REMOTE remote contexts and tensors: device memory accounting, host<->device
// copies, remote inputs and outputs that skip transfers, chaining on the device, the error for a
// tensor of another instance, and a failed set_shape as the guard reports it.
#include "test_utils.hpp"

namespace vireo::mock_remote::test {
namespace {

TEST(MockRemoteContext, OneContextPerInstance) {
    Core core = make_core();
    EXPECT_EQ(core.get_default_context("MOCK_REMOTE.1").get_device_name(), "MOCK_REMOTE.1");
    EXPECT_EQ(core.get_default_context("MOCK_REMOTE.0").get_device_name(), "MOCK_REMOTE.0");
    auto ctx = core.create_context("MOCK_REMOTE", {device::id("1")});
    EXPECT_EQ(ctx.get_device_name(), "MOCK_REMOTE.1");
    EXPECT_EQ(ctx.get_params().at(device::id.name()).as<std::string>(), "1");
    // The default context is the same object every time.
    EXPECT_EQ(core.get_default_context("MOCK_REMOTE.1").impl(),
              core.get_default_context("MOCK_REMOTE.1").impl());
    expect_error(
        [&] {
            core.create_context("MOCK_REMOTE", {{"COLOR", "blue"}});
        },
        ErrorKind::kNotFound, {"COLOR", "DEVICE_ID"});
    expect_error([&] { core.create_context("MOCK_REMOTE.7", {}); }, ErrorKind::kInvalidArgument,
                 {"'7'", "\"0\", \"1\""});
}

TEST(MockRemoteTensor, LivesInDeviceMemoryAndCopiesBothWays) {
    Core core = make_core();
    auto ctx = core.get_default_context("MOCK_REMOTE.0");
    {
        Tensor remote = ctx.create_tensor(element::f32, {2, 3});
        EXPECT_TRUE(remote.is_remote());
        EXPECT_EQ(remote.data(), nullptr);
        EXPECT_EQ(remote.get_byte_size(), 24u);
        EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", allocated_bytes), 24u);
        EXPECT_EQ(device_value(core, "MOCK_REMOTE.1", allocated_bytes), 0u);

        const Tensor host = make_tensor({2, 3}, 1.f, 2.f);
        host.copy_to(remote);
        Tensor back(element::f32, {2, 3});
        remote.copy_to(back);
        EXPECT_EQ(values(back), values(host));

        // Device to device (through the host), and a strided host view as the source.
        Tensor other = ctx.create_tensor(element::f32, {2, 3});
        remote.copy_to(other);
        EXPECT_EQ(values(other), values(host));
        const Tensor wide = make_tensor({2, 5}, 0.f);
        const Tensor view(wide, {0, 1}, {2, 4});
        view.copy_to(other);
        EXPECT_EQ(values(other), (std::vector<float>{1, 2, 3, 6, 7, 8}));
        EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", allocated_bytes), 48u);
    }
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.0", allocated_bytes), 0u);
}

TEST(MockRemoteTensor, RemoteInputSkipsTheUploadAndRemoteOutputSkipsTheDownload) {
    Core core = make_core();
    auto ctx = core.get_default_context("MOCK_REMOTE.0");
    auto compiled = core.compile_model(add_one_model({2, 4}), "MOCK_REMOTE.0", fast());
    auto request = compiled.create_infer_request();
    Tensor in = ctx.create_tensor(element::f32, {2, 4});
    make_tensor({2, 4}, 5.f).copy_to(in);
    Tensor out = ctx.create_tensor(element::f32, {2, 4});
    request.set_tensor("x", in);
    request.set_tensor("y", out);
    request.infer();
    auto rows = request.get_profiling_info();
    EXPECT_EQ(find_row(rows, kStageInputTransfer)->status, ProfilingInfo::Status::NOT_RUN);
    EXPECT_EQ(find_row(rows, kStageOutputTransfer)->status, ProfilingInfo::Status::NOT_RUN);
    EXPECT_EQ(find_row(rows, kStageExecution)->status, ProfilingInfo::Status::EXECUTED);
    std::vector<float> expected;
    for (int i = 0; i < 8; ++i) expected.push_back(5.f + static_cast<float>(i) + 1.f);
    EXPECT_EQ(values(out), expected);

    // Host tensors again: both transfers happen.
    request.set_tensor("x", make_tensor({2, 4}, 0.f));
    request.set_tensor("y", Tensor(element::f32, {2, 4}));
    request.infer();
    rows = request.get_profiling_info();
    EXPECT_EQ(find_row(rows, kStageInputTransfer)->status, ProfilingInfo::Status::EXECUTED);
    EXPECT_EQ(find_row(rows, kStageOutputTransfer)->status, ProfilingInfo::Status::EXECUTED);
    EXPECT_EQ(values(request.get_tensor("y"))[7], 8.f);
}

TEST(MockRemoteTensor, ChainsTwoModelsWithoutLeavingTheDevice) {
    Core core = make_core();
    auto ctx = core.get_default_context("MOCK_REMOTE.1");
    auto first = core.compile_model(add_one_model({1, 6}, "first"), "MOCK_REMOTE.1", fast());
    auto second = core.compile_model(add_one_model({1, 6}, "second"), "MOCK_REMOTE.1", fast());
    Tensor middle = ctx.create_tensor(element::f32, {1, 6});
    auto r1 = first.create_infer_request();
    auto r2 = second.create_infer_request();
    r1.set_tensor("x", make_tensor({1, 6}, 10.f));
    r1.set_tensor("y", middle);
    r2.set_tensor("x", middle);
    r1.start_async();
    r1.wait();
    r2.start_async();
    r2.wait();
    EXPECT_EQ(values(r2.get_tensor("y")), (std::vector<float>{12, 13, 14, 15, 16, 17}));
    EXPECT_EQ(find_row(r2.get_profiling_info(), kStageInputTransfer)->status,
              ProfilingInfo::Status::NOT_RUN);
}

TEST(MockRemoteTensor, AFailedSetShapeNamesTheOperationAndInstanceAndKeepsTheTensor) {
    // Growing beyond the machine's memory is refused by the device, whose own message names
    // neither the instance nor the operation: the core's guard puts both in front.
    Core core = make_core();
    auto ctx = core.get_default_context("MOCK_REMOTE.1");
    Tensor remote = ctx.create_tensor(element::f32, {2, 3});
    make_tensor({2, 3}, 1.f).copy_to(remote);
    const Shape huge{size_t{1} << 24, size_t{1} << 24};  // 2^50 bytes of f32
    expect_error([&] { remote.set_shape(huge); }, ErrorKind::kInvalidArgument,
                 {"set_shape to [16777216,16777216] on a remote tensor of device 'MOCK_REMOTE.1': "
                  "MOCK_REMOTE device memory: cannot allocate"});
    EXPECT_EQ(remote.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.1", allocated_bytes), 24u);
    EXPECT_EQ(values(remote), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(MockRemoteTensor, ATensorOfAnotherInstanceIsRejectedNamingBothDevices) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0", fast());
    auto request = compiled.create_infer_request();
    Tensor foreign = core.get_default_context("MOCK_REMOTE.1").create_tensor(element::f32, {1, 8});
    expect_error([&] { request.set_tensor("x", foreign); }, ErrorKind::kInvalidArgument,
                 {"MOCK_REMOTE.1", "MOCK_REMOTE.0", "'x'"});
    expect_error([&] { request.set_tensor("y", foreign); }, ErrorKind::kInvalidArgument,
                 {"MOCK_REMOTE.1", "'y'"});
    // The request still works with its own tensors.
    request.infer();
    // A remote tensor of the wrong shape fails like a host one.
    Tensor wrong = core.get_default_context("MOCK_REMOTE.0").create_tensor(element::f32, {1, 9});
    expect_error([&] { request.set_tensor("x", wrong); }, ErrorKind::kInvalidArgument, {"shape"});
}

TEST(MockRemoteTensor, CompileForAContextPicksItsInstance) {
    Core core = make_core();
    auto ctx = core.create_context("MOCK_REMOTE", {device::id("1")});
    auto compiled = core.compile_model(add_one_model(), ctx, fast());
    EXPECT_EQ(compiled.get_property(execution_devices), std::vector<std::string>{"MOCK_REMOTE.1"});
    auto request = compiled.create_infer_request();
    Tensor in = ctx.create_tensor(element::f32, {1, 8});
    make_tensor({1, 8}, 1.f).copy_to(in);
    request.set_tensor("x", in);
    request.infer();
    EXPECT_EQ(values(request.get_tensor("y"))[0], 2.f);
}

TEST(MockRemoteTensor, DeviceMemoryReturnsToZeroWhenEverythingIsGone) {
    Core core = make_core();
    {
        auto compiled = core.compile_model(two_input_model(), "MOCK_REMOTE.1", fast());
        // Weights: one f32 constant.
        EXPECT_EQ(device_value(core, "MOCK_REMOTE.1", allocated_bytes), 4u);
        auto r1 = compiled.create_infer_request();
        auto r2 = compiled.create_infer_request();
        // Per request: inputs a, b (24 B each), three op outputs (24 B each), output y (24 B).
        EXPECT_EQ(device_value(core, "MOCK_REMOTE.1", allocated_bytes), 4u + 2 * (6 * 24u));
        r1.set_tensor("a", make_tensor({2, 3}, 1.f));
        r1.set_tensor("b", make_tensor({2, 3}, 2.f));
        r1.infer();
        // relu(a*b - 2): a = 1..6, b = 2..7.
        std::vector<float> expected;
        for (int i = 0; i < 6; ++i) expected.push_back(std::max(0.f, (1.f + i) * (2.f + i) - 2.f));
        EXPECT_EQ(values(r1.get_tensor("y")), expected);
    }
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.1", allocated_bytes), 0u);
}

}  // namespace
}  // namespace vireo::mock_remote::test
