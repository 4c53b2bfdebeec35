// The meta-device grammar ("HETERO:A,B", "BATCH:A(N)") and device::priorities, through the Core:
// malformed names and unknown devices fail with InvalidArgument naming them.
#include <algorithm>

#include "test_utils.hpp"
#include "vireo/hetero/properties.hpp"

namespace {
using namespace vireo;
using namespace hetero_test;

std::shared_ptr<Model> relu_model() {
    auto x = op::parameter(element::f32, {2}, "x");
    return std::make_shared<Model>(OutputVector{op::relu(x)}, ParameterVector{x}, "relu");
}

TEST(DeviceNameGrammar, MalformedNamesAreRefusedNamingThem) {
    Core core = make_core();
    auto model = relu_model();
    for (const std::string name :
         {"HETERO:", "HETERO:TEMPLATE,,PARTIAL", "HETERO:TEMPLATE,", ":TEMPLATE",
          "BATCH:TEMPLATE(x)", "BATCH:TEMPLATE(0)", "BATCH:TEMPLATE,PARTIAL",
          "HETERO:AUTO:TEMPLATE", "HETERO:TEMPLATE(2)", "HETERO:.1"}) {
        const std::string message =
            error_of([&] { core.compile_model(model, name); }, ErrorKind::kInvalidArgument);
        EXPECT_NE(message.find(name), std::string::npos) << name << ": " << message;
    }
}

TEST(DeviceNameGrammar, UnknownListedDeviceIsNamed) {
    Core core = make_core();
    const std::string message =
        error_of([&] { core.compile_model(relu_model(), "HETERO:TEMPLATE,NOPE"); },
                 ErrorKind::kInvalidArgument);
    EXPECT_NE(message.find("'NOPE'"), std::string::npos) << message;
    // The same device given through the property.
    const std::string via_property = error_of(
        [&] {
            core.compile_model(relu_model(), "HETERO",
                               {{device::priorities.name(), "TEMPLATE,NOPE"}});
        },
        ErrorKind::kInvalidArgument);
    EXPECT_NE(via_property.find("'NOPE'"), std::string::npos) << via_property;
}

// The list is split by the SDK's split_device_list, as AUTO's and MULTI's are: a device listed
// twice is refused naming it and the list (a priority order cannot hold one device twice).
TEST(DeviceNameGrammar, ADeviceListedTwiceIsRefused) {
    Core core = make_core();
    const std::string message =
        error_of([&] { core.compile_model(relu_model(), "HETERO:TEMPLATE,PARTIAL,TEMPLATE"); },
                 ErrorKind::kInvalidArgument);
    EXPECT_NE(message.find("'TEMPLATE,PARTIAL,TEMPLATE' lists 'TEMPLATE' twice"), std::string::npos)
        << message;
}

TEST(DeviceNameGrammar, ListAndPropertyMustAgree) {
    Core core = make_core();
    error_of(
        [&] {
            core.compile_model(relu_model(), "HETERO:TEMPLATE",
                               {{device::priorities.name(), "PARTIAL"}});
        },
        ErrorKind::kInvalidArgument);
    // Saying the same twice is fine.
    core.compile_model(relu_model(), "HETERO:TEMPLATE", {{device::priorities.name(), "TEMPLATE"}});
}

TEST(DeviceNameGrammar, NoDevicesIsAnError) {
    Core core = make_core();
    const std::string message =
        error_of([&] { core.compile_model(relu_model(), "HETERO"); }, ErrorKind::kInvalidArgument);
    EXPECT_NE(message.find(device::priorities.name()), std::string::npos) << message;
}

TEST(DeviceNameGrammar, MetaNamesWorkForQueryAndProperties) {
    Core core = make_core();
    const auto ops = core.query_model(relu_model(), "HETERO:MOCK_REMOTE.1,TEMPLATE");
    for (const auto& [name, device] : ops) EXPECT_EQ(device, "MOCK_REMOTE.1") << name;
    EXPECT_EQ(core.get_property("HETERO:TEMPLATE", device::full_name),
              "Vireo heterogeneous device");
    // set_property on "HETERO:A,B" sets the values on HETERO and makes A,B its list.
    core.set_property("HETERO:PARTIAL,TEMPLATE", {{enable_profiling.name(), true}});
    EXPECT_EQ(core.get_property("HETERO", device::priorities), "PARTIAL,TEMPLATE");
    EXPECT_TRUE(core.get_property("HETERO", enable_profiling));
    EXPECT_EQ(core.get_property("HETERO:TEMPLATE", device::priorities), "TEMPLATE");
    // Capabilities follow the listed devices: MOCK_REMOTE has no dynamic shapes nor states.
    const auto caps = core.get_property("HETERO:MOCK_REMOTE.0", device::capabilities);
    EXPECT_EQ(std::count(caps.begin(), caps.end(), device::capability::kDynamicShapes), 0);
    EXPECT_EQ(std::count(caps.begin(), caps.end(), device::capability::kStates), 0);
    const auto template_caps = core.get_property("HETERO:TEMPLATE", device::capabilities);
    EXPECT_EQ(std::count(template_caps.begin(), template_caps.end(), device::capability::kStates),
              1);
}

TEST(DeviceNameGrammar, UnregisteredMetaDeviceIsNotFound) {
    Core core = make_core();
    // "META:A,B" is parsed for any name; no device called GROUP is registered.
    error_of([&] { core.compile_model(relu_model(), "GROUP:TEMPLATE"); }, ErrorKind::kNotFound);
}

TEST(DeviceNameGrammar, RegisteredNamesCannotUseGrammarCharacters) {
    Core core;
    error_of([&] { core.register_plugin(VIREO_PARTIAL_PLUGIN_PATH, "PART:IAL"); },
             ErrorKind::kInvalidArgument);
    error_of([&] { core.register_plugin(VIREO_PARTIAL_PLUGIN_PATH, "PART(2)"); },
             ErrorKind::kInvalidArgument);
}

TEST(AnyMapText, RoundTripsNestedMaps) {
    const AnyMap map =
        Any("{ TEMPLATE:{PERF_COUNT:YES}, MOCK_REMOTE.1:{MOCK_REMOTE_LATENCY_US:5,X:y} }")
            .as<AnyMap>();
    ASSERT_EQ(map.size(), 2u);
    EXPECT_EQ(map.at("TEMPLATE").as<AnyMap>().at("PERF_COUNT").to_string(), "YES");
    EXPECT_EQ(map.at("MOCK_REMOTE.1").as<AnyMap>().at("X").to_string(), "y");
    EXPECT_EQ(Any(map).to_string(),
              "{MOCK_REMOTE.1:{MOCK_REMOTE_LATENCY_US:5,X:y},TEMPLATE:{PERF_COUNT:YES}}");
    EXPECT_THROW(Any("{A:{B:1}").as<AnyMap>(), InvalidArgument);
    EXPECT_THROW(Any("A:1").as<AnyMap>(), InvalidArgument);
    EXPECT_TRUE(Any("").as<AnyMap>().empty());
    // Nesting is bounded: 16 levels read, 17 and a hostile 100000 are refused, not recursed.
    std::string sixteen = "{A:";
    for (int i = 1; i < 16; ++i) sixteen += "{A:";
    sixteen += "1" + std::string(16, '}');
    EXPECT_NO_THROW(Any(sixteen).as<AnyMap>());
    EXPECT_THROW(Any("{A:" + sixteen + "}").as<AnyMap>(), InvalidArgument);
    std::string deep;
    for (int i = 0; i < 100000; ++i) deep += "{A:";
    EXPECT_THROW(Any(deep).as<AnyMap>(), InvalidArgument);
}

}  // namespace

namespace {
using namespace vireo;
using namespace hetero_test;

// The device automatic fallback uses: CPU when its plugin loads, else TEMPLATE.
std::string fallback_device(Core& core) {
    try {
        core.get_versions("CPU");
        core.get_property("CPU", device::full_name);
        return "CPU";
    } catch (const Exception&) {
        return "TEMPLATE";
    }
}

// x -> sigmoid -> relu: PARTIAL runs relu only.
std::shared_ptr<Model> sigmoid_relu() {
    auto x = op::parameter(element::f32, {4}, "x");
    auto s = op::sigmoid(x);
    s->set_friendly_name("s");
    auto r = op::relu(s);
    r->set_friendly_name("r");
    return std::make_shared<Model>(OutputVector{r}, ParameterVector{x}, "sr");
}

TEST(AutomaticFallback, OffByDefault) {
    Core core = make_core();
    EXPECT_FALSE(core.get_property("PARTIAL", hint::allow_fallback));
    const std::string message = error_of([&] { core.compile_model(sigmoid_relu(), "PARTIAL"); },
                                         ErrorKind::kNotImplemented);
    EXPECT_NE(message.find("Sigmoid"), std::string::npos) << message;
}

TEST(AutomaticFallback, PerCallRunsThroughHetero) {
    Core core = make_core();
    CompiledModel compiled =
        core.compile_model(sigmoid_relu(), "PARTIAL", {{hint::allow_fallback.name(), true}});
    EXPECT_EQ(compiled.get_property(execution_devices),
              (std::vector<std::string>{fallback_device(core), "PARTIAL"}));
    InferRequest request = compiled.create_infer_request();
    const Tensor x = make_input({4}, -2.f, 1.f);
    request.set_input_tensor(x);
    request.infer();
    std::vector<float> expected;
    for (float v : values_of(x)) expected.push_back(sigmoid(v));
    expect_near(values_of(request.get_output_tensor()), expected);
}

TEST(AutomaticFallback, PerDeviceSettingAndNothingMovesWhenAllRun) {
    Core core = make_core();
    core.set_property("PARTIAL", {{hint::allow_fallback.name(), true}});
    EXPECT_TRUE(core.get_property("PARTIAL", hint::allow_fallback));
    EXPECT_EQ(core.compile_model(sigmoid_relu(), "PARTIAL").get_property(execution_devices),
              (std::vector<std::string>{fallback_device(core), "PARTIAL"}));
    // A model PARTIAL runs whole is compiled on PARTIAL itself, not through HETERO.
    auto x = op::parameter(element::f32, {4}, "x");
    auto model = std::make_shared<Model>(OutputVector{op::relu(x)}, ParameterVector{x}, "relu");
    CompiledModel plain = core.compile_model(model, "PARTIAL");
    EXPECT_EQ(plain.get_property(execution_devices), std::vector<std::string>{"PARTIAL"});
    EXPECT_THROW(plain.get_property(vireo::hetero::number_of_submodels.name()), Exception);
}

TEST(AutomaticFallback, PluginsXmlDefault) {
    Core core;
    core.register_plugin(VIREO_PARTIAL_PLUGIN_PATH, "PARTIAL",
                         {{hint::allow_fallback.name(), "YES"}});
    EXPECT_TRUE(core.get_property("PARTIAL", hint::allow_fallback));
    EXPECT_EQ(core.compile_model(sigmoid_relu(), "PARTIAL").get_property(execution_devices),
              (std::vector<std::string>{fallback_device(core), "PARTIAL"}));
}

}  // namespace
