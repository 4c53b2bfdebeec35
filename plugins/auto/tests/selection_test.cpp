// AUTO selection: the most preferred device able to run the model (query_model covers every
// op), compiles counted per device, the default order of plain "AUTO" (real devices
// only, by DEVICE_TYPE), and errors.
#include <unistd.h>

#include <filesystem>

#include "test_utils.hpp"

namespace {
using namespace vireo;
using namespace auto_test;

AnyMap no_startup() {
    return {auto_device::enable_startup_fallback(false)};
}

TEST(AutoSelection, TakesTheFirstListedDeviceWhenItRunsEveryOp) {
    Core core;
    CompiledModel compiled =
        core.compile_model(small_model(), "AUTO:MOCK_REMOTE.0,TEMPLATE", no_startup());
    EXPECT_EQ(compiled.get_property(auto_device::compiles),
              (std::vector<std::string>{"MOCK_REMOTE.0"}));
    EXPECT_EQ(compiled.get_property(execution_devices),
              (std::vector<std::string>{"MOCK_REMOTE.0"}));
    EXPECT_EQ(compiled.get_property(optimal_number_of_infer_requests), 2u);  // MOCK_REMOTE's own
    InferRequest request = compiled.create_infer_request();
    const Tensor x = make_input(-1.f);
    request.set_input_tensor(x);
    request.infer();
    expect_near(values_of(request.get_output_tensor()), small_expected(x));
    expect_near(values_of(request.get_output_tensor()), template_run(core, small_model(), x));
    EXPECT_EQ(jobs_completed(core, "MOCK_REMOTE.0"), 1u);
    EXPECT_EQ(jobs_completed(core, "MOCK_REMOTE.1"), 0u);
}

TEST(AutoSelection, SkipsADeviceThatLacksAnOp) {
    // ReadValue/Assign: MOCK_REMOTE's query_model leaves them out, so TEMPLATE is chosen and
    // MOCK_REMOTE is never compiled on (nor, then, started up for).
    Core core;
    WarningSink sink;
    CompiledModel compiled = core.compile_model(stateful_model(), "AUTO:MOCK_REMOTE.0,TEMPLATE");
    EXPECT_EQ(compiled.get_property(auto_device::compiles), (std::vector<std::string>{"TEMPLATE"}));
    EXPECT_EQ(compiled.get_property(execution_devices), (std::vector<std::string>{"TEMPLATE"}));
    EXPECT_EQ(compiled.get_property(device::priorities), "TEMPLATE");  // the able devices
    InferRequest request = compiled.create_infer_request();
    const Tensor x = make_input(0.5f);
    request.set_input_tensor(x);
    request.infer();  // first run: acc = 0 + x
    expect_near(values_of(request.get_output_tensor()), template_run(core, stateful_model(), x));
    EXPECT_EQ(jobs_completed(core, "MOCK_REMOTE.0"), 0u);
    EXPECT_TRUE(sink.lines_with("failed").empty());
}

TEST(AutoSelection, DynamicShapesGoToTheDeviceThatRunsThem) {
    Core core;
    auto model = small_model();
    model->reshape({{"x", PartialShape{Dimension::dynamic(), 16}}});
    CompiledModel compiled = core.compile_model(model, "AUTO:MOCK_REMOTE.1,TEMPLATE", no_startup());
    EXPECT_EQ(compiled.get_property(auto_device::compiles), (std::vector<std::string>{"TEMPLATE"}));
    InferRequest request = compiled.create_infer_request();
    Tensor x(element::f32, {3, 16});
    for (size_t i = 0; i < x.get_size(); ++i)
        x.data<float>()[i] = static_cast<float>(i) * 0.1f - 1.f;
    request.set_input_tensor(x);
    request.infer();
    const Tensor y = request.get_output_tensor();
    ASSERT_EQ(y.get_shape(), (Shape{3, 16}));
    for (size_t i = 0; i < y.get_size(); ++i)
        EXPECT_NEAR(y.data<float>()[i], std::max(0.f, x.data<float>()[i] * 3.f - 1.f), 1e-5f);
}

bool available(Core& core, const std::string& device) {
    const auto devices = core.get_available_devices();
    return std::find(devices.begin(), devices.end(), device) != devices.end();
}

TEST(AutoSelection, DevicesDeclareTheirType) {
    Core core;
    EXPECT_EQ(core.get_property("TEMPLATE", device::type), device::Type::REFERENCE);
    EXPECT_EQ(core.get_property("MOCK_REMOTE.1", device::type), device::Type::SIMULATED);
    EXPECT_EQ(core.get_property("MOCK_REMOTE", device::type.name()).as<std::string>(), "SIMULATED");
    if (available(core, "CPU")) {
        EXPECT_EQ(core.get_property("CPU", device::type), device::Type::HOST);
    }
}

TEST(AutoSelection, PlainAutoChoosesRealDevicesOnlyAndTheReferenceLast) {
    // MOCK_REMOTE is a simulation: plain AUTO never runs on it (it used to come first). The
    // host device comes before TEMPLATE, the slow reference interpreter; no meta-device.
    Core core;
    CompiledModel compiled = core.compile_model(small_model(), "AUTO", no_startup());
    const bool cpu = available(core, "CPU");
    EXPECT_EQ(compiled.get_property(device::priorities), cpu ? "CPU,TEMPLATE" : "TEMPLATE");
    EXPECT_EQ(compiled.get_property(auto_device::compiles),
              (std::vector<std::string>{cpu ? "CPU" : "TEMPLATE"}));
    InferRequest request = compiled.create_infer_request();
    const Tensor x = make_input(-1.f);
    request.set_input_tensor(x);
    request.infer();
    expect_near(values_of(request.get_output_tensor()), small_expected(x));
    EXPECT_EQ(jobs_completed(core, "MOCK_REMOTE.0"), 0u);
    EXPECT_EQ(jobs_completed(core, "MOCK_REMOTE.1"), 0u);
}

TEST(AutoSelection, DevicesWithoutARealTypeRunOnlyWhereNamed) {
    // PARTIAL declares SIMULATED; the test plugin declares no DEVICE_TYPE at all: plain AUTO
    // leaves both out, and a listed MOCK_REMOTE is still used.
    Core core;
    core.register_plugin(std::string(VIREO_BUILD_LIB_DIR) + "/libvireo_partial_plugin.so",
                         "PARTIAL");
    core.register_plugin(std::string(VIREO_BUILD_LIB_DIR) + "/libvireo_test_plugin.so", "UNTYPED");
    ASSERT_TRUE(available(core, "PARTIAL"));
    ASSERT_TRUE(available(core, "UNTYPED"));
    const std::string priorities =
        core.compile_model(small_model(), "AUTO", no_startup()).get_property(device::priorities);
    for (const char* device : {"PARTIAL", "UNTYPED", "MOCK_REMOTE"})
        EXPECT_EQ(priorities.find(device), std::string::npos) << priorities;
    for (const char* meta : {"AUTO", "MULTI", "HETERO", "BATCH"})
        EXPECT_EQ(priorities.find(meta), std::string::npos) << priorities;
    CompiledModel listed = core.compile_model(small_model(), "AUTO:MOCK_REMOTE.1", no_startup());
    EXPECT_EQ(listed.get_property(auto_device::compiles),
              (std::vector<std::string>{"MOCK_REMOTE.1"}));
}

TEST(AutoSelection, ADeviceRefusingItsSettingsIsNotAble) {
    // MOCK_REMOTE.0 refuses its per-device setting (latency above its 10 s range) already in
    // query_model: it is not able, never compiled on, and TEMPLATE serves.
    Core core;
    AnyMap props = no_startup();
    props[device::properties.name()] =
        AnyMap{{"MOCK_REMOTE.0", AnyMap{{mock_remote::latency_us.name(), uint32_t(20000000)}}}};
    CompiledModel compiled =
        core.compile_model(small_model(), "AUTO:MOCK_REMOTE.0,TEMPLATE", props);
    EXPECT_EQ(compiled.get_property(auto_device::compiles), (std::vector<std::string>{"TEMPLATE"}));
    EXPECT_EQ(compiled.get_property(device::priorities), "TEMPLATE");
}

TEST(AutoSelection, Errors) {
    Core core;
    error_of([&] { core.compile_model(small_model(), "MULTI"); }, ErrorKind::kInvalidArgument);
    error_of([&] { core.compile_model(small_model(), "AUTO:NOPE,TEMPLATE"); },
             ErrorKind::kInvalidArgument);
    const std::string nested =
        error_of([&] { core.compile_model(small_model(), "AUTO", {device::priorities("MULTI")}); },
                 ErrorKind::kInvalidArgument);
    EXPECT_NE(nested.find("meta-device"), std::string::npos) << nested;
    // No listed device runs ReadValue: the message names the device and the op.
    const std::string none =
        error_of([&] { core.compile_model(stateful_model(), "AUTO:MOCK_REMOTE.0"); },
                 ErrorKind::kNotImplemented);
    EXPECT_NE(none.find("MOCK_REMOTE.0 does not run op 'read'"), std::string::npos) << none;
    error_of(
        [&] {
            core.compile_model(small_model(), "AUTO:TEMPLATE", {{"NO_SUCH_KEY", 1}});
        },
        ErrorKind::kNotFound);
}

TEST(AutoSelection, QueryAndCapabilities) {
    Core core;
    const auto ops = core.query_model(stateful_model(), "AUTO:MOCK_REMOTE.0,TEMPLATE");
    EXPECT_EQ(ops.at("read"), "AUTO");
    EXPECT_EQ(ops.at("double"), "AUTO");
    const auto caps = core.get_property("AUTO:MOCK_REMOTE.0,TEMPLATE", device::capabilities);
    EXPECT_NE(std::find(caps.begin(), caps.end(), device::capability::kFP32), caps.end());
    // MOCK_REMOTE runs static shapes only: AUTO over it does not claim dynamic ones.
    EXPECT_EQ(std::find(caps.begin(), caps.end(), device::capability::kDynamicShapes), caps.end());
    EXPECT_EQ(std::find(caps.begin(), caps.end(), device::capability::kExportImport), caps.end());
}

}  // namespace

namespace {
using namespace vireo;
using namespace auto_test;

// Issue 35: with CACHE_DIR set, compiling the same model twice in one process said
// LOADED_FROM_CACHE false both times on AUTO (the core asked only whether it imported AUTO's
// own blob). AUTO reports what its serving device says.
TEST(AutoSelection, ReportsLoadedFromCacheOfTheServingDevice) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("vireo_auto_cache_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    Core core;
    core.set_property({cache_dir(dir.string())});
    const auto model = small_model();  // one model: generated node names are part of the key
    CompiledModel first = core.compile_model(model, "AUTO:TEMPLATE", no_startup());
    EXPECT_FALSE(first.get_property(loaded_from_cache));
    CompiledModel second = core.compile_model(model, "AUTO:TEMPLATE", no_startup());
    EXPECT_TRUE(second.get_property(loaded_from_cache));
    InferRequest request = second.create_infer_request();
    const Tensor x = make_input(0.5f);
    request.set_input_tensor(x);
    request.infer();
    expect_near(values_of(request.get_output_tensor()), small_expected(x));
    std::filesystem::remove_all(dir);
}

}  // namespace
