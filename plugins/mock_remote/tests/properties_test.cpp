// Tests of MOCK_REMOTE properties through the Core: devices and capabilities, defaults,
// per-instance settings, errors, compiled-model properties, profiling rows, export/import, the
// model cache, query_model and holders.
#include <filesystem>
#include <sstream>

#include "test_utils.hpp"

namespace vireo::mock_remote::test {
namespace {

using namespace std::chrono_literals;

bool contains(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(MockRemoteProperties, TwoInstancesByDefault) {
    Core core = make_core();
    const auto devices = core.get_available_devices();
    EXPECT_TRUE(contains(devices, "MOCK_REMOTE.0"));
    EXPECT_TRUE(contains(devices, "MOCK_REMOTE.1"));
    EXPECT_FALSE(contains(devices, "MOCK_REMOTE.2"));
    EXPECT_EQ(core.get_property("MOCK_REMOTE", available_devices),
              (std::vector<std::string>{"0", "1"}));
    EXPECT_NE(core.get_property("MOCK_REMOTE.1", device::full_name).find("MOCK_REMOTE.1"),
              std::string::npos);
    const auto caps = core.get_property("MOCK_REMOTE", device::capabilities);
    EXPECT_TRUE(contains(caps, device::capability::kRemoteTensors));
    EXPECT_TRUE(contains(caps, device::capability::kExportImport));
    EXPECT_TRUE(contains(caps, device::capability::kProfiling));
    EXPECT_FALSE(contains(caps, device::capability::kDynamicShapes));
    EXPECT_FALSE(contains(caps, device::capability::kStates));
}

TEST(MockRemoteProperties, DeviceCountAddsInstances) {
    Core core = make_core();
    core.set_property("MOCK_REMOTE", {device_count(3u)});
    EXPECT_TRUE(contains(core.get_available_devices(), "MOCK_REMOTE.2"));
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.2", fast());
    compiled.create_infer_request().infer();
    EXPECT_EQ(device_value(core, "MOCK_REMOTE.2", jobs_completed), 1u);
    expect_error([&] { core.set_property("MOCK_REMOTE", {device_count(0u)}); },
                 ErrorKind::kInvalidArgument, {"MOCK_REMOTE_DEVICE_COUNT", "from 1 to 16"});
}

// A call that sets the count and a bad value changes nothing, the count included.
TEST(MockRemoteProperties, DeviceCountWithABadValueIsRefusedWhole) {
    Core core = make_core();
    expect_error(
        [&] {
            core.set_property("MOCK_REMOTE", {device_count(4u), {latency_us.name(), "-5"}});
        },
        ErrorKind::kInvalidArgument, {"MOCK_REMOTE_LATENCY_US", "-5"});
    EXPECT_EQ(core.get_property("MOCK_REMOTE", device_count), 2u);
    EXPECT_FALSE(contains(core.get_available_devices(), "MOCK_REMOTE.2"));
    EXPECT_EQ(core.get_property("MOCK_REMOTE.0", latency_us), 2000u);
    // A valid call with both applies both.
    core.set_property("MOCK_REMOTE", {device_count(3u), latency_us(7u)});
    EXPECT_TRUE(contains(core.get_available_devices(), "MOCK_REMOTE.2"));
    EXPECT_EQ(core.get_property("MOCK_REMOTE.2", latency_us), 7u);
    // A refused shrink keeps the instance it would have dropped, with its own settings.
    core.set_property("MOCK_REMOTE.2", {latency_us(9u)});
    expect_error(
        [&] {
            core.set_property("MOCK_REMOTE", {device_count(1u), {latency_us.name(), "x"}});
        },
        ErrorKind::kInvalidArgument, {"MOCK_REMOTE_LATENCY_US"});
    EXPECT_EQ(core.get_property("MOCK_REMOTE", device_count), 3u);
    EXPECT_TRUE(contains(core.get_available_devices(), "MOCK_REMOTE.2"));
    EXPECT_EQ(core.get_property("MOCK_REMOTE.2", latency_us), 9u);
}

TEST(MockRemoteProperties, DocumentedDefaults) {
    Core core = make_core();
    EXPECT_EQ(core.get_property("MOCK_REMOTE", device_count), 2u);
    EXPECT_EQ(core.get_property("MOCK_REMOTE.0", latency_us), 2000u);
    EXPECT_EQ(core.get_property("MOCK_REMOTE.0", compile_ms), 200u);
    EXPECT_EQ(core.get_property("MOCK_REMOTE.1", gflops), 50.0);
    EXPECT_EQ(core.get_property("MOCK_REMOTE.1", bus_gbps), 8.0);
    EXPECT_EQ(core.get_property("MOCK_REMOTE.1", fail_nth), 0u);
    EXPECT_EQ(core.get_property("MOCK_REMOTE.0", hint::performance_mode),
              hint::PerformanceMode::LATENCY);
    EXPECT_EQ(core.get_property("MOCK_REMOTE.0", max_queue_depth), 0u);
    EXPECT_EQ(core.get_property("MOCK_REMOTE.0", allocated_bytes), 0u);
}

TEST(MockRemoteProperties, SettingsPerInstance) {
    Core core = make_core();
    core.set_property("MOCK_REMOTE", {device::id("1"), latency_us(500u), compile_ms(0u)});
    EXPECT_EQ(core.get_property("MOCK_REMOTE.1", latency_us), 500u);
    EXPECT_EQ(core.get_property("MOCK_REMOTE.0", latency_us), 2000u);
    core.set_property("MOCK_REMOTE", {jitter_us(7u)});  // no id: every instance
    EXPECT_EQ(core.get_property("MOCK_REMOTE.0", jitter_us), 7u);
    EXPECT_EQ(core.get_property("MOCK_REMOTE.1", jitter_us), 7u);
    // A compiled model starts from its instance's values; compile properties win.
    auto on1 = core.compile_model(add_one_model(), "MOCK_REMOTE.1");
    EXPECT_EQ(on1.get_property(latency_us), 500u);
    auto tuned = core.compile_model(add_one_model(), "MOCK_REMOTE.1", {latency_us(100u)});
    EXPECT_EQ(tuned.get_property(latency_us), 100u);
    EXPECT_EQ(tuned.get_property(jitter_us), 7u);
}

TEST(MockRemoteProperties, ErrorsNameTheKey) {
    Core core = make_core();
    expect_error(
        [&] {
            core.set_property("MOCK_REMOTE", {{"MOCK_REMOTE_WARP_SPEED", 9}});
        },
        ErrorKind::kNotFound, {"MOCK_REMOTE_WARP_SPEED", "MOCK_REMOTE_LATENCY_US"});
    expect_error([&] { core.set_property("MOCK_REMOTE", {gflops(-1.0)}); },
                 ErrorKind::kInvalidArgument, {"MOCK_REMOTE_GFLOPS", "-1"});
    expect_error([&] { core.set_property("MOCK_REMOTE", {fail_rate(2.0)}); },
                 ErrorKind::kInvalidArgument, {"MOCK_REMOTE_FAIL_RATE"});
    expect_error(
        [&] {
            core.set_property("MOCK_REMOTE", {{max_queue_depth.name(), 3}});
        },
        ErrorKind::kInvalidArgument, {"MOCK_REMOTE_MAX_QUEUE_DEPTH", "read-only"});
    expect_error(
        [&] {
            core.compile_model(add_one_model(), "MOCK_REMOTE.0", {{"MOCK_REMOTE_WARP_SPEED", 1}});
        },
        ErrorKind::kNotFound, {"MOCK_REMOTE_WARP_SPEED"});
    expect_error(
        [&] {
            core.compile_model(add_one_model(), "MOCK_REMOTE.0", {{latency_us.name(), -5}});
        },
        ErrorKind::kInvalidArgument, {"MOCK_REMOTE_LATENCY_US"});
    expect_error([&] { core.get_property("MOCK_REMOTE", "MOCK_REMOTE_WARP_SPEED"); },
                 ErrorKind::kNotFound, {"MOCK_REMOTE_WARP_SPEED"});
    EXPECT_EQ(core.get_property("MOCK_REMOTE.0", gflops), 50.0);  // nothing changed
}

TEST(MockRemoteProperties, CompiledModelProperties) {
    Core core = make_core();
    auto compiled = core.compile_model(
        add_one_model({1, 8}, "props"), "MOCK_REMOTE.1",
        with(fast(), {hint::performance_mode(hint::PerformanceMode::THROUGHPUT)}));
    EXPECT_EQ(compiled.get_property(model_name), "props");
    EXPECT_EQ(compiled.get_property(execution_devices), std::vector<std::string>{"MOCK_REMOTE.1"});
    EXPECT_FALSE(compiled.get_property(loaded_from_cache));
    EXPECT_EQ(compiled.get_property(optimal_number_of_infer_requests), 2u);
    EXPECT_EQ(compiled.get_property(hint::performance_mode), hint::PerformanceMode::THROUGHPUT);
    const auto supported = compiled.get_property(vireo::supported_properties);
    for (const std::string key :
         {"NETWORK_NAME", "EXECUTION_DEVICES", "MOCK_REMOTE_FAIL_NTH", "PERF_COUNT"})
        EXPECT_NE(std::find(supported.begin(), supported.end(), key), supported.end()) << key;
    compiled.set_property({latency_us(300u)});
    EXPECT_EQ(compiled.get_property(latency_us), 300u);
    expect_error(
        [&] { compiled.set_property({hint::performance_mode(hint::PerformanceMode::LATENCY)}); },
        ErrorKind::kInvalidArgument, {"read-only"});
    expect_error([&] { compiled.set_property({{"NOPE", 1}}); }, ErrorKind::kNotFound, {"NOPE"});
    auto limited = core.compile_model(add_one_model(), "MOCK_REMOTE.1",
                                      with(fast(), {hint::num_requests(1u)}));
    EXPECT_EQ(limited.get_property(optimal_number_of_infer_requests), 1u);
}

TEST(MockRemoteProperties, FaultsCanBeArmedAfterCompilation) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0", fast(100));
    auto request = compiled.create_infer_request();
    request.infer();
    request.infer();
    compiled.set_property({fail_nth(uint64_t{3})});  // executions count from the compilation
    EXPECT_THROW(request.infer(), Unavailable);
    request.infer();
}

TEST(MockRemoteProperties, ProfilingAddsModelledPerOpRows) {
    Core core = make_core();
    // Only memory traffic costs: Add reads 1000 + 1 floats and writes 1000 at 1 MB/s = 8004 us.
    const AnyMap timing{latency_us(0u),        compile_ms(0u),  gflops(1e6),
                        device_gbps(0.001),    bus_gbps(100.0), bus_latency_us(0u),
                        enable_profiling(true)};
    auto compiled = core.compile_model(add_one_model({1, 1000}), "MOCK_REMOTE.0", timing);
    auto request = compiled.create_infer_request();
    request.infer();
    const auto rows = request.get_profiling_info();
    ASSERT_EQ(rows.size(), 7u);
    const auto& op = rows[6];
    EXPECT_EQ(op.node_type, "Add");
    EXPECT_EQ(op.exec_type, "device");
    EXPECT_EQ(op.status, ProfilingInfo::Status::EXECUTED);
    EXPECT_NEAR(static_cast<double>(op.real_time.count()), 8004.0, 1.0);
    // The device time covers the op and the copy of the result into the output buffer (8000 us).
    EXPECT_GE(rows[2].real_time.count(), 16000);

    compiled.set_property({enable_profiling(false)});
    request.infer();
    EXPECT_EQ(request.get_profiling_info().size(), 6u);
}

TEST(MockRemoteProperties, ExportImportRoundTripsModelAndSettings) {
    Core core = make_core();
    auto compiled =
        core.compile_model(two_input_model(), "MOCK_REMOTE.0", with(fast(300), {jitter_us(11u)}));
    std::stringstream blob;
    compiled.export_model(blob);
    auto imported = core.import_model(blob, "MOCK_REMOTE.1");
    EXPECT_EQ(imported.get_property(execution_devices), std::vector<std::string>{"MOCK_REMOTE.1"});
    EXPECT_EQ(imported.get_property(latency_us), 300u);
    EXPECT_EQ(imported.get_property(jitter_us), 11u);
    EXPECT_EQ(imported.get_property(model_name), "two_inputs");
    const Tensor a = make_tensor({2, 3}, -1.f, 0.5f);
    const Tensor b = make_tensor({2, 3}, 3.f, 1.f);
    auto r1 = compiled.create_infer_request();
    auto r2 = imported.create_infer_request();
    for (auto* r : {&r1, &r2}) {
        r->set_tensor("a", a);
        r->set_tensor("b", b);
        r->infer();
    }
    EXPECT_EQ(values(r1.get_tensor("y")), values(r2.get_tensor("y")));

    std::string damaged = blob.str();
    damaged.resize(damaged.size() / 2);
    std::stringstream truncated(damaged);
    EXPECT_THROW(core.import_model(truncated, "MOCK_REMOTE.0"), InvalidArgument);
}

TEST(MockRemoteProperties, ModelCacheSkipsTheModelledCompile) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("vireo_mock_cache_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    {
        Core core = make_core();
        core.set_property({cache_dir(dir.string())});
        const AnyMap props = with(fast(), {compile_ms(50u)});
        auto model = add_one_model();  // the same graph (and names) both times: the same cache key
        const auto start = std::chrono::steady_clock::now();
        auto first = core.compile_model(model, "MOCK_REMOTE.0", props);
        EXPECT_GE(std::chrono::steady_clock::now() - start,
                  50ms);  // the modelled cost is a lower bound
        EXPECT_FALSE(first.get_property(loaded_from_cache));
        auto second = core.compile_model(model, "MOCK_REMOTE.0", props);
        EXPECT_TRUE(second.get_property(loaded_from_cache));
        auto request = second.create_infer_request();
        request.set_tensor("x", make_tensor({1, 8}, 2.f));
        request.infer();
        EXPECT_EQ(values(request.get_tensor("y"))[0], 3.f);
    }
    std::filesystem::remove_all(dir);
}

TEST(MockRemoteProperties, QueryModelNamesTheInstance) {
    Core core = make_core();
    auto model = two_input_model();
    const auto supported = core.query_model(model, "MOCK_REMOTE.1");
    EXPECT_EQ(supported.size(), model->get_ordered_ops().size());
    for (const auto& [name, device] : supported) EXPECT_EQ(device, "MOCK_REMOTE.1") << name;
}

TEST(MockRemoteProperties, ObjectsOutliveTheCore) {
    InferRequest request;
    Tensor remote;
    {
        Core core = make_core();
        auto compiled = core.compile_model(add_one_model(), "MOCK_REMOTE.0", fast(100));
        request = compiled.create_infer_request();
        remote = core.get_default_context("MOCK_REMOTE.0").create_tensor(element::f32, {1, 8});
    }
    make_tensor({1, 8}, 9.f).copy_to(remote);
    request.set_tensor("x", remote);
    request.infer();
    EXPECT_EQ(values(request.get_tensor("y"))[0], 10.f);
}

}  // namespace
}  // namespace vireo::mock_remote::test
