// Meta-devices are what their registration declares (META_DEVICE, FALLBACK_DEVICES in plugins.xml
// or register_plugin's properties), not names the runtime knows: the HETERO and BATCH modules
// registered as SPLIT and GATHER get HETERO's and BATCH's grammar and the automatic-fallback
// route, and the name BATCH without the declaration gets neither.
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
                        {"TEMPLATE", module_file("vireo_template_plugin"), {}},
                        {"PARTIAL", module_file("vireo_partial_plugin"), {}},
                        // NOPE is not registered: the route skips it, as it skips a CPU not built.
                        {"SPLIT",
                         module_file("vireo_hetero_plugin"),
                         {{"META_DEVICE", "LIST"}, {"FALLBACK_DEVICES", "NOPE,TEMPLATE"}}},
                        {"GATHER", module_file("vireo_batch_plugin"), {{"META_DEVICE", "BATCH"}}},
                        // The shipped names, registered without declarations.
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
    // The name BATCH alone declares nothing: "(N)" belongs to batch devices only.
    const std::string plain =
        error_of<InvalidArgument>([&] { core.compile_model(relu_row(), "BATCH:TEMPLATE(2)"); });
    EXPECT_NE(plain.find("BATCH:TEMPLATE(2)"), std::string::npos) << plain;
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
    // SPLIT also takes the list grammar like any undeclared name.
    EXPECT_NO_THROW(core.compile_model(relu_row(), "SPLIT:PARTIAL,TEMPLATE"));
}

TEST(MetaDeviceRegistration, WithoutADeclaredRouteNothingFallsBack) {
    ScratchDir dir;
    const std::string xml = dir.file("plugins.xml");
    write_file(xml, plugins_xml({{"TEMPLATE", module_file("vireo_template_plugin"), {}},
                                 {"PARTIAL", module_file("vireo_partial_plugin"), {}},
                                 {"HETERO", module_file("vireo_hetero_plugin"), {}}}));
    Core core(xml);
    const std::string message = error_of<NotImplemented>([&] {
        core.compile_model(sigmoid_then_relu(), "PARTIAL", {{hint::allow_fallback.name(), true}});
    });
    EXPECT_NE(message.find("Sigmoid"), std::string::npos) << message;
}

TEST(MetaDeviceRegistration, DeclarationsAreCheckedAndNotPassedToThePlugin) {
    ScratchDir dir;
    Core core = empty_core(dir);
    const std::string hetero = module_file("vireo_hetero_plugin");
    const std::string bad = error_of<InvalidArgument>([&] {
        core.register_plugin(hetero, "TREE", {{"META_DEVICE", "TREE"}});
    });
    EXPECT_NE(bad.find("META_DEVICE is 'TREE'"), std::string::npos) << bad;
    const std::string no_list = error_of<InvalidArgument>([&] {
        core.register_plugin(hetero, "ROUTE", {{"FALLBACK_DEVICES", "TEMPLATE"}});
    });
    EXPECT_NE(no_list.find("FALLBACK_DEVICES needs META_DEVICE LIST"), std::string::npos)
        << no_list;
    core.register_plugin(hetero, "SPLIT",
                         {{"META_DEVICE", "LIST"}, {"FALLBACK_DEVICES", "TEMPLATE"}});
    const std::string second = error_of<InvalidArgument>([&] {
        core.register_plugin(hetero, "SPLIT2",
                             {{"META_DEVICE", "LIST"}, {"FALLBACK_DEVICES", "TEMPLATE"}});
    });
    EXPECT_NE(second.find("device 'SPLIT' already does"), std::string::npos) << second;
    // The plugin never sees the registry keys (HETERO refuses keys it does not know).
    EXPECT_EQ(core.get_property("SPLIT", device::full_name), "Vireo heterogeneous device");
}

}  // namespace
}  // namespace vireo::runtime_test
