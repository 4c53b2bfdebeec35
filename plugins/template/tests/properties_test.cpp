// Plugin and compiled-model properties: values, round trips, errors; query_model versus
// compile_model.
#include <gtest/gtest.h>

#include <algorithm>

#include "config.hpp"
#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::template_test {
namespace {

std::string golden(const std::string& name) {
    return data_dir() + "/models/golden/" + name + "/model.xml";
}

template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Exception& e) {
        return e.what();
    }
    return "";
}

bool lists(const std::vector<PropertyName>& keys, const std::string& key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

TEST(TemplatePluginProperties, ReadOnlyValues) {
    Core core = make_core();
    EXPECT_FALSE(core.get_property("TEMPLATE", device::full_name).empty());
    const auto caps = core.get_property("TEMPLATE", device::capabilities);
    for (const char* cap :
         {"FP32", "FP16", "EXPORT_IMPORT", "DYNAMIC_SHAPES", "STATES", "PROFILING"})
        EXPECT_NE(std::find(caps.begin(), caps.end(), cap), caps.end()) << cap;
    const auto keys = core.get_property("TEMPLATE", supported_properties);
    for (const char* key : {"PERFORMANCE_HINT", "NUM_STREAMS", "INFERENCE_NUM_THREADS",
                            "PERFORMANCE_HINT_NUM_REQUESTS", "PERF_COUNT", "DEVICE_ID",
                            "FULL_DEVICE_NAME", "OPTIMIZATION_CAPABILITIES", "AVAILABLE_DEVICES"})
        EXPECT_TRUE(lists(keys, key)) << key;
    const auto devices = core.get_available_devices();
    EXPECT_NE(std::find(devices.begin(), devices.end(), "TEMPLATE"), devices.end());
}

TEST(TemplatePluginProperties, RoundTrip) {
    Core core = make_core();
    core.set_property("TEMPLATE",
                      {hint::performance_mode(hint::PerformanceMode::THROUGHPUT), num_streams(3),
                       inference_num_threads(1), hint::num_requests(4u), enable_profiling(true)});
    EXPECT_EQ(core.get_property("TEMPLATE", hint::performance_mode),
              hint::PerformanceMode::THROUGHPUT);
    EXPECT_EQ(core.get_property("TEMPLATE", num_streams), 3);
    EXPECT_EQ(core.get_property("TEMPLATE", inference_num_threads), 1);
    EXPECT_EQ(core.get_property("TEMPLATE", hint::num_requests), 4u);
    EXPECT_TRUE(core.get_property("TEMPLATE", enable_profiling));
    // Text values convert too (as plugins.xml and command lines give them).
    core.set_property("TEMPLATE", {{"NUM_STREAMS", "2"}, {"PERFORMANCE_HINT", "LATENCY"}});
    EXPECT_EQ(core.get_property("TEMPLATE", num_streams), 2);
    EXPECT_EQ(core.get_property("TEMPLATE", hint::performance_mode),
              hint::PerformanceMode::LATENCY);
    // Compiled models pick the device settings up.
    CompiledModel compiled = core.compile_model(golden("tiny"), "TEMPLATE");
    EXPECT_EQ(compiled.get_property(num_streams), 2);
    EXPECT_TRUE(compiled.get_property(enable_profiling));
}

TEST(TemplatePluginProperties, BadValuesNameKeyAndValue) {
    Core core = make_core();
    std::string message = error_of([&] { core.set_property("TEMPLATE", {{"NUM_STREAMS", "-2"}}); });
    EXPECT_NE(message.find("NUM_STREAMS"), std::string::npos) << message;
    EXPECT_NE(message.find("-2"), std::string::npos) << message;
    EXPECT_THROW(core.set_property("TEMPLATE", {{"NUM_STREAMS", "many"}}), InvalidArgument);
    EXPECT_THROW(core.set_property("TEMPLATE", {{"PERFORMANCE_HINT", "FASTEST"}}), InvalidArgument);
    EXPECT_THROW(core.set_property("TEMPLATE", {{"PERF_COUNT", "maybe"}}), InvalidArgument);
    message = error_of([&] { core.set_property("TEMPLATE", {{"DEVICE_ID", "1"}}); });
    EXPECT_NE(message.find("DEVICE_ID"), std::string::npos) << message;
    // The failed calls changed nothing.
    EXPECT_EQ(core.get_property("TEMPLATE", num_streams), 0);
}

TEST(TemplatePluginProperties, UnknownKeyIsNotFoundListingSupported) {
    Core core = make_core();
    try {
        core.get_property("TEMPLATE", "NO_SUCH_KEY");
        FAIL() << "expected NotFound";
    } catch (const NotFound& e) {
        EXPECT_NE(std::string(e.what()).find("NO_SUCH_KEY"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("NUM_STREAMS"), std::string::npos) << e.what();
    }
    EXPECT_THROW(core.compile_model(golden("tiny"), "TEMPLATE", {{"NO_SUCH_KEY", "1"}}), NotFound);
}

TEST(TemplatePluginProperties, DeviceInstanceZeroOnly) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(golden("tiny"), "TEMPLATE.0");
    EXPECT_EQ(compiled.get_property(device::id), "0");
    const std::string message = error_of([&] { core.compile_model(golden("tiny"), "TEMPLATE.1"); });
    EXPECT_NE(message.find("DEVICE_ID"), std::string::npos) << message;
}

TEST(TemplateCompiledModelProperties, StreamsFollowTheHint) {
    Core core = make_core();
    CompiledModel latency = core.compile_model(
        golden("tiny"), "TEMPLATE", {hint::performance_mode(hint::PerformanceMode::LATENCY)});
    EXPECT_EQ(latency.get_property(optimal_number_of_infer_requests), 1u);
    EXPECT_EQ(latency.get_property(num_streams), 1);
    CompiledModel throughput = core.compile_model(
        golden("tiny"), "TEMPLATE", {hint::performance_mode(hint::PerformanceMode::THROUGHPUT)});
    const auto cores = static_cast<uint32_t>(sdk::available_cores());
    EXPECT_EQ(throughput.get_property(optimal_number_of_infer_requests), cores);
    CompiledModel explicit_streams =
        core.compile_model(golden("tiny"), "TEMPLATE", {num_streams(3)});
    EXPECT_EQ(explicit_streams.get_property(optimal_number_of_infer_requests), 3u);
    CompiledModel capped = core.compile_model(
        golden("tiny"), "TEMPLATE",
        {hint::performance_mode(hint::PerformanceMode::THROUGHPUT), hint::num_requests(1u)});
    EXPECT_EQ(capped.get_property(num_streams), 1);
}

TEST(TemplateCompiledModelProperties, Values) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(golden("mlp"), "TEMPLATE");
    EXPECT_EQ(compiled.get_property(model_name), "mlp");
    EXPECT_EQ(compiled.get_property(execution_devices), std::vector<std::string>{"TEMPLATE"});
    EXPECT_FALSE(compiled.get_property(loaded_from_cache));
    EXPECT_FALSE(compiled.get_property(enable_profiling));
    const auto keys = compiled.get_property(supported_properties);
    for (const char* key : {"OPTIMAL_NUMBER_OF_INFER_REQUESTS", "NETWORK_NAME", "EXECUTION_DEVICES",
                            "LOADED_FROM_CACHE", "PERF_COUNT", "NUM_STREAMS", "PERFORMANCE_HINT"})
        EXPECT_TRUE(lists(keys, key)) << key;
    EXPECT_THROW(compiled.set_property({num_streams(4)}), InvalidArgument);
    EXPECT_THROW(compiled.get_property("NO_SUCH_KEY"), NotFound);
}

TEST(TemplateQueryModel, EveryGoldenOpIsSupported) {
    Core core = make_core();
    for (const char* name : {"tiny", "mlp", "cnn"}) {
        auto model = core.read_model(golden(name));
        const auto supported = core.query_model(model, "TEMPLATE");
        for (const auto& node : model->get_ordered_ops()) {
            auto it = supported.find(node->get_friendly_name());
            ASSERT_NE(it, supported.end()) << name << ": " << node->describe();
            EXPECT_EQ(it->second, "TEMPLATE");
        }
    }
}

TEST(TemplateQueryModel, AgreesWithCompileOnUnsupportedOps) {
    auto x = op::parameter(element::f32, PartialShape(Shape{2}), "x");
    auto first = no_kernel_op(op::relu(x));
    first->set_friendly_name("first_unsupported");
    auto second = no_kernel_op(first);
    second->set_friendly_name("second_unsupported");
    auto model =
        std::make_shared<Model>(OutputVector{op::relu(second)}, ParameterVector{x}, "partly");
    Core core = make_core();
    const auto supported = core.query_model(model, "TEMPLATE");
    EXPECT_FALSE(supported.count("first_unsupported"));
    EXPECT_FALSE(supported.count("second_unsupported"));
    EXPECT_EQ(supported.size(), model->get_ordered_ops().size() - 2);
    try {
        core.compile_model(model, "TEMPLATE");
        FAIL() << "expected NotImplemented";
    } catch (const NotImplemented& e) {
        EXPECT_NE(std::string(e.what()).find("first_unsupported"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("second_unsupported"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace vireo::template_test
