// Meta-devices are what their plugin declares (META_DEVICE, FALLBACK_DEVICES as read-only
// properties), overridden by their registration (the same keys in plugins.xml or register_plugin's
// properties), not names the runtime knows: the HETERO and BATCH modules under any name keep their
// grammar and fallback route, a registry key overrides them, and a plugin that declares nothing
// gets the list grammar.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime_test_utils.hpp"

namespace vireo::runtime_test {
namespace {

std::string module_file(const std::string& target) {
    return plugin_path(target);
}

// x {4} -> Sigmoid -> Relu: PARTIAL (Add, Multiply, Relu, MatMul, Convolution) runs only Relu.
std::shared_ptr<Model> sigmoid_then_relu() {
    auto x = op::parameter(element::f32, {4}, "x");
    auto s = op::sigmoid(x);
    s->set_friendly_name("s");
    auto r = op::relu(s);
    r->set_friendly_name("r");
    return std::make_shared<Model>(OutputVector{r}, ParameterVector{x}, "sr");
}

// x {1,4} -> Relu.
std::shared_ptr<Model> relu_row() {
    auto x = op::parameter(element::f32, {1, 4}, "x");
    auto r = op::relu(x);
    r->set_friendly_name("r");
    return std::make_shared<Model>(OutputVector{r}, ParameterVector{x}, "relu_row");
}

std::string renamed_plugins_xml(const ScratchDir& dir) {
    const std::string xml = dir.file("plugins.xml");
    write_file(xml, plugins_xml({
                        // Never loaded: no name used below needs it, and a fallback route search
                        // skips a device that does not load.
                        {"GHOST", dir.file("libno_such_plugin.so"), {}},
                        {"TEMPLATE", module_file("vireo_template_plugin"), {}},
                        {"PARTIAL", module_file("vireo_partial_plugin"), {}},
                        // NOPE is not registered: the route skips it, as it skips a CPU not built.
                        {"SPLIT",
                         module_file("vireo_hetero_plugin"),
                         {{"META_DEVICE", "LIST"}, {"FALLBACK_DEVICES", "NOPE,TEMPLATE"}}},
                        {"GATHER", module_file("vireo_batch_plugin"), {{"META_DEVICE", "BATCH"}}},
                        // The shipped names without keys: their plugins declare BATCH, and LIST
                        // with the route CPU,TEMPLATE, which SPLIT's registration overrides.
                        {"BATCH", module_file("vireo_batch_plugin"), {}},
                        {"HETERO", module_file("vireo_hetero_plugin"), {}},
                    }));
    return xml;
}

TEST(MetaDeviceRegistration, ARenamedBatchDeviceTakesTheBatchGrammar) {
    ScratchDir dir;
    Core core(renamed_plugins_xml(dir));
    CompiledModel compiled =
        core.compile_model(relu_row(), "GATHER:TEMPLATE(2)", {{"AUTO_BATCH_TIMEOUT", "1"}});
    InferRequest request = compiled.create_infer_request();
    Tensor x(element::f32, {1, 4});
    for (int i = 0; i < 4; ++i) x.data<float>()[i] = static_cast<float>(i) - 1.5f;
    request.set_input_tensor(x);
    request.infer();
    const Tensor y = request.get_output_tensor();
    for (int i = 0; i < 4; ++i)
        EXPECT_FLOAT_EQ(y.data<float>()[i], std::max(0.f, static_cast<float>(i) - 1.5f)) << i;
    // A batch device takes exactly one device.
    const std::string two = error_of<InvalidArgument>(
        [&] { core.compile_model(relu_row(), "GATHER:TEMPLATE,PARTIAL"); });
    EXPECT_NE(two.find("GATHER is a batch device"), std::string::npos) << two;
    // BATCH without keys takes the grammar its plugin declares.
    EXPECT_NO_THROW(core.compile_model(relu_row(), "BATCH:TEMPLATE(2)"));
}

TEST(MetaDeviceRegistration, TheFallbackRoutesThroughTheDeclaredDevice) {
    ScratchDir dir;
    Core core(renamed_plugins_xml(dir));
    CompiledModel compiled =
        core.compile_model(sigmoid_then_relu(), "PARTIAL", {{hint::allow_fallback.name(), true}});
    // SPLIT (the HETERO module) put Sigmoid on TEMPLATE, the first registered fallback device.
    EXPECT_EQ(compiled.get_property(execution_devices),
              (std::vector<std::string>{"TEMPLATE", "PARTIAL"}));
    InferRequest request = compiled.create_infer_request();
    Tensor x(element::f32, {4});
    for (int i = 0; i < 4; ++i) x.data<float>()[i] = static_cast<float>(i) - 2.f;
    request.set_input_tensor(x);
    request.infer();
    const Tensor y = request.get_output_tensor();
    for (int i = 0; i < 4; ++i)
        EXPECT_NEAR(y.data<float>()[i], 1.f / (1.f + std::exp(2.f - static_cast<float>(i))), 1e-6f)
            << i;
    EXPECT_NO_THROW(core.compile_model(relu_row(), "SPLIT:PARTIAL,TEMPLATE"));
    // The registration's route wins over the one HETERO's plugin declares; the core reports each
    // device's effective values.
    EXPECT_EQ(core.get_property("SPLIT", "FALLBACK_DEVICES").as<std::string>(), "NOPE,TEMPLATE");
    EXPECT_EQ(core.get_property("HETERO", "FALLBACK_DEVICES").as<std::string>(), "CPU,TEMPLATE");
}

// An application registering the shipped modules under its own names, with no keys: the plugins
// say what they are (issue 36's regression).
TEST(MetaDeviceRegistration, ShippedModulesUnderOtherNamesDeclareTheirOwnRole) {
    ScratchDir dir;
    Core core = empty_core(dir);
    // GHOST does not load: the fallback route search below skips it.
    core.register_plugin(dir.file("libghost_plugin.so"), "GHOST");
    core.register_plugin(module_file("vireo_template_plugin"), "TEMPLATE");
    core.register_plugin(module_file("vireo_partial_plugin"), "PARTIAL");
    core.register_plugin(module_file("vireo_batch_plugin"), "GROUP");
    core.register_plugin(module_file("vireo_hetero_plugin"), "SPLITTER");

    CompiledModel batched = core.compile_model(relu_row(), "GROUP:TEMPLATE(2)");
    EXPECT_EQ(batched.get_property(device::batch_size), 2u);
    // Parsing "GROUP:..." asked GROUP's plugin only.
    EXPECT_FALSE(is_loaded(module_file("vireo_hetero_plugin")));
    const std::string two = error_of<InvalidArgument>(
        [&] { core.compile_model(relu_row(), "GROUP:TEMPLATE,PARTIAL"); });
    EXPECT_NE(two.find("GROUP is a batch device"), std::string::npos) << two;
    EXPECT_EQ(core.get_property("GROUP", "META_DEVICE").as<std::string>(), "BATCH");
    EXPECT_EQ(core.get_property("SPLITTER", "META_DEVICE").as<std::string>(), "LIST");
    EXPECT_EQ(core.get_property("SPLITTER", "FALLBACK_DEVICES").as<std::string>(), "CPU,TEMPLATE");

    // CPU is not registered here: SPLITTER's route goes on to TEMPLATE.
    CompiledModel routed =
        core.compile_model(sigmoid_then_relu(), "PARTIAL", {{hint::allow_fallback.name(), true}});
    EXPECT_EQ(routed.get_property(execution_devices),
              (std::vector<std::string>{"TEMPLATE", "PARTIAL"}));
}

// ALLOW_FALLBACK on a model the device runs whole: the device's own query says so, and no route
// is looked for, so no other plugin is loaded (the route's search loads the plugins registered
// before the one declaring it).
TEST(MetaDeviceRegistration, NoRouteIsLookedForWhenTheDeviceRunsEverything) {
    ScratchDir dir;
    Core core = empty_core(dir);
    core.register_plugin(module_file("vireo_template_plugin"), "TEMPLATE");
    core.register_plugin(module_file("vireo_partial_plugin"), "PARTIAL");
    core.register_plugin(module_file("vireo_hetero_plugin"), "HETERO");
    CompiledModel whole =
        core.compile_model(relu_row(), "PARTIAL", {{hint::allow_fallback.name(), true}});
    EXPECT_EQ(whole.get_property(execution_devices), (std::vector<std::string>{"PARTIAL"}));
    EXPECT_FALSE(is_loaded(module_file("vireo_hetero_plugin")));
    EXPECT_FALSE(is_loaded(module_file("vireo_template_plugin")));
    // A model it does not run whole is routed, loading the route's plugins then.
    CompiledModel routed =
        core.compile_model(sigmoid_then_relu(), "PARTIAL", {{hint::allow_fallback.name(), true}});
    EXPECT_EQ(routed.get_property(execution_devices),
              (std::vector<std::string>{"TEMPLATE", "PARTIAL"}));
    EXPECT_TRUE(is_loaded(module_file("vireo_hetero_plugin")));
}

TEST(MetaDeviceRegistration, ARegistryKeyOverridesThePluginsDeclaration) {
    ScratchDir dir;
    const std::string xml = dir.file("plugins.xml");
    write_file(xml, plugins_xml(
                        {{"TEMPLATE", module_file("vireo_template_plugin"), {}},
                         {"PARTIAL", module_file("vireo_partial_plugin"), {}},
                         // "": HETERO's plugin declares a route, its registration none.
                         {"HETERO", module_file("vireo_hetero_plugin"), {{"FALLBACK_DEVICES", ""}}},
                         {"GROUP", module_file("vireo_batch_plugin"), {{"META_DEVICE", "LIST"}}}}));
    Core core(xml);
    const std::string message = error_of<NotImplemented>([&] {
        core.compile_model(sigmoid_then_relu(), "PARTIAL", {{hint::allow_fallback.name(), true}});
    });
    EXPECT_NE(message.find("Sigmoid"), std::string::npos) << message;
    EXPECT_EQ(core.get_property("HETERO", "FALLBACK_DEVICES").as<std::string>(), "");
    // GROUP is declared a list device, so "(N)" is refused although its plugin declares BATCH.
    EXPECT_EQ(core.get_property("GROUP", "META_DEVICE").as<std::string>(), "LIST");
    const std::string sized =
        error_of<InvalidArgument>([&] { core.compile_model(relu_row(), "GROUP:TEMPLATE(2)"); });
    EXPECT_NE(sized.find("GROUP:TEMPLATE(2)"), std::string::npos) << sized;
}

TEST(MetaDeviceRegistration, APluginThatDeclaresNothingTakesTheList) {
    ScratchDir dir;
    Core core = empty_core(dir);
    core.register_plugin(module_file("vireo_template_plugin"), "TEMPLATE");
    core.register_plugin(test_plugin_path(), "PLAIN");
    // The list reaches the plugin as device::priorities; the TEST plugin answers regardless.
    EXPECT_EQ(core.get_property("PLAIN:TEMPLATE,TEMPLATE.1", device::full_name),
              "Vireo test device");
    const std::string sized = error_of<InvalidArgument>(
        [&] { core.get_property("PLAIN:TEMPLATE(2)", device::full_name); });
    EXPECT_NE(sized.find("PLAIN:TEMPLATE(2)"), std::string::npos) << sized;
    error_of<NotFound>([&] { core.get_property("PLAIN", "META_DEVICE"); });
}

TEST(MetaDeviceRegistration, APluginsBadDeclarationIsRefusedNamingTheDevice) {
    ScratchDir dir;
    Core core = empty_core(dir);
    core.register_plugin(module_file("vireo_template_plugin"), "TEMPLATE");
    // The TEST plugin reports TEST_META_DEVICE's value as its META_DEVICE.
    core.register_plugin(test_plugin_path(), "ODD", {{tp::declared_meta_device.name(), "TREE"}});
    const std::string message =
        error_of<InvalidArgument>([&] { core.compile_model(relu_row(), "ODD:TEMPLATE"); });
    EXPECT_NE(message.find("device 'ODD'"), std::string::npos) << message;
    EXPECT_NE(message.find("META_DEVICE is 'TREE'"), std::string::npos) << message;
    EXPECT_NE(message.find(test_plugin_path()), std::string::npos) << message;
    // The device does not load at all, whatever the name used.
    error_of<InvalidArgument>([&] { core.get_property("ODD", device::full_name); });
}

TEST(MetaDeviceRegistration, DeclarationsAreCheckedAndNotPassedToThePlugin) {
    ScratchDir dir;
    Core core = empty_core(dir);
    const std::string hetero = module_file("vireo_hetero_plugin");
    const std::string bad = error_of<InvalidArgument>([&] {
        core.register_plugin(hetero, "TREE", {{"META_DEVICE", "TREE"}});
    });
    EXPECT_NE(bad.find("META_DEVICE is 'TREE'"), std::string::npos) << bad;
    const std::string batch_route = error_of<InvalidArgument>([&] {
        core.register_plugin(hetero, "ROUTE",
                             {{"META_DEVICE", "BATCH"}, {"FALLBACK_DEVICES", "TEMPLATE"}});
    });
    EXPECT_NE(batch_route.find("FALLBACK_DEVICES needs META_DEVICE LIST"), std::string::npos)
        << batch_route;
    // A route on a device whose plugin declares no META_DEVICE is refused when it loads.
    core.register_plugin(module_file("vireo_template_plugin"), "PLAIN_ROUTE",
                         {{"FALLBACK_DEVICES", "TEMPLATE"}});
    const std::string undeclared =
        error_of<InvalidArgument>([&] { core.get_property("PLAIN_ROUTE", device::full_name); });
    EXPECT_NE(undeclared.find("device 'PLAIN_ROUTE'"), std::string::npos) << undeclared;
    EXPECT_NE(undeclared.find("needs META_DEVICE LIST"), std::string::npos) << undeclared;
    const std::string second = error_of<InvalidArgument>([&] {
        core.register_plugin(hetero, "SPLIT",
                             {{"META_DEVICE", "LIST"}, {"FALLBACK_DEVICES", "TEMPLATE"}});
    });
    EXPECT_NE(second.find("device 'PLAIN_ROUTE' already does"), std::string::npos) << second;
    core.register_plugin(hetero, "SPLIT2", {{"META_DEVICE", "LIST"}});
    // The plugin never sees the registry keys (HETERO refuses keys it does not know).
    EXPECT_EQ(core.get_property("SPLIT2", device::full_name), "Vireo heterogeneous device");
}

}  // namespace
}  // namespace vireo::runtime_test
