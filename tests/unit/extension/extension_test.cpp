// Core::add_extension: the example extension (samples/extension) brings the custom op Squash,
// y = alpha * x / (1 + |x|), with shape inference, a reference kernel TEMPLATE runs, and an ONNX
// mapping; broken extensions are refused with errors naming the library. Registration is
// process-wide, so the tests run in this order in one process.
#include "vireo/extension.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "vireo/core.hpp"
#include "vireo/infer_request.hpp"
#include "vireo/ir.hpp"

namespace vireo {
namespace {

const std::string kSquashIr = R"(<?xml version="1.0"?>
<net name="squash" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="2,3" element_type="f32"/>
  <output><port id="0" precision="FP32" names="x"><dim>2</dim><dim>3</dim></port></output></layer>
<layer id="1" name="squash" type="Squash" version="vireo_example"><data alpha="2"/>
  <input><port id="0"><dim>2</dim><dim>3</dim></port></input>
  <output><port id="1" precision="FP32" names="y"><dim>2</dim><dim>3</dim></port></output></layer>
<layer id="2" name="out" type="Result" version="opset1"><input><port id="0"><dim>2</dim><dim>3</dim></port></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
</edges></net>
)";

Core make_core() {
    return Core(std::string(VIREO_BUILD_LIB_DIR) + "/plugins.xml");
}

std::string extension_path(const std::string& kind) {
    return std::string(VIREO_TEST_EXTENSION_DIR) + "/libvireo_test_extension_" + kind + ".so";
}

template <typename E>
void expect_error(const std::function<void()>& call, const std::vector<std::string>& parts) {
    try {
        call();
        ADD_FAILURE() << "no exception";
    } catch (const E& e) {
        for (const auto& part : parts)
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "another exception: " << e.what();
    }
}

void expect_squash(CompiledModel compiled, float alpha) {
    auto request = compiled.create_infer_request();
    Tensor x(element::f32, Shape{2, 3});
    const float values[] = {-3.0f, -0.5f, 0.0f, 0.25f, 1.0f, 40.0f};
    std::copy(std::begin(values), std::end(values), x.data<float>());
    request.set_tensor("x", x);
    request.infer();
    const Tensor y = request.get_tensor("y");
    ASSERT_EQ(y.get_shape(), Shape({2, 3}));
    for (size_t i = 0; i < 6; ++i)
        EXPECT_FLOAT_EQ(y.data<float>()[i], alpha * values[i] / (1.0f + std::fabs(values[i]))) << i;
}

TEST(Extension, ExampleExtensionBringsSquashToTemplate) {
    Core core = make_core();
    // Before: the op is unknown to the IR reader.
    expect_error<Exception>([&] { core.read_model(kSquashIr, Tensor()); },
                            {"unknown op type 'Squash'"});

    core.add_extension(VIREO_EXAMPLE_EXTENSION);
    core.add_extension(VIREO_EXAMPLE_EXTENSION);  // the same file again: nothing happens
    auto model = core.read_model(kSquashIr, Tensor());
    expect_squash(core.compile_model(model, "TEMPLATE"), 2.0f);
    // MOCK_REMOTE runs ops through the same kernel registry.
    expect_squash(core.compile_model(model, "MOCK_REMOTE.0", {{"MOCK_REMOTE_COMPILE_MS", 0}}),
                  2.0f);

    // The custom op round-trips through the IR writer with its domain and attribute.
    std::ostringstream xml, bin;
    serialize(*model, xml, bin);
    EXPECT_NE(xml.str().find("version=\"vireo_example\""), std::string::npos) << xml.str();
    expect_squash(core.compile_model(core.read_model(xml.str(), Tensor()), "TEMPLATE"), 2.0f);

    // Another Core sees it too (registration is process-wide).
    Core other = make_core();
    EXPECT_EQ(other.query_model(model, "TEMPLATE").count("squash"), 1u);
}

TEST(Extension, ShapeInferenceOfTheExtensionChecksItsInputs) {
    std::string ir = kSquashIr;
    for (size_t at; (at = ir.find("f32")) != std::string::npos;) ir.replace(at, 3, "i32");
    for (size_t at; (at = ir.find("FP32")) != std::string::npos;) ir.replace(at, 4, "I32");
    Core core = make_core();
    expect_error<InvalidArgument>([&] { core.read_model(ir, Tensor()); },
                                  {"squash", "Squash takes f32 data"});
}

#if VIREO_HAVE_ONNX
TEST(Extension, OnnxNodesOfTheCustomDomainMapToTheOp) {
    Core core = make_core();
    auto model = core.read_model(std::string(VIREO_TEST_DATA_DIR) + "/extension/squash.onnx");
    expect_squash(core.compile_model(model, "TEMPLATE"), 2.0f);  // alpha=2 from the ONNX attribute
}
#endif

TEST(Extension, BrokenExtensionsAreRefusedNamingTheLibrary) {
    Core core = make_core();
    expect_error<NotFound>([&] { core.add_extension("/nonexistent/libext.so"); },
                           {"extension '/nonexistent/libext.so' does not exist"});
    const std::string not_library =
        std::string(VIREO_BUILD_LIB_DIR) + "/libvireo_test_plugin_not_a_library.so";
    expect_error<InvalidArgument>([&] { core.add_extension(VIREO_BUILD_LIB_DIR); },
                                  {"is not a regular file"});
    const std::string plugin = std::string(VIREO_BUILD_LIB_DIR) + "/libvireo_template_plugin.so";
    expect_error<InvalidArgument>([&] { core.add_extension(plugin); },
                                  {plugin, "no entry symbol 'vireo_extension_entry'"});
    expect_error<InvalidArgument>(
        [&] { core.add_extension(extension_path("bad_abi")); },
        {extension_path("bad_abi"), "extension ABI version 99", "version 1"});
    expect_error<InvalidArgument>(
        [&] { core.add_extension(extension_path("throws")); },
        {extension_path("throws"), "(throws): registration failed", "boom"});
    expect_error<InvalidArgument>([&] { core.add_extension(extension_path("duplicate")); },
                                  {"(duplicate): registration failed", "Relu"});
}

TEST(Extension, OnnxMappingsAreChecked) {
    expect_error<InvalidArgument>(
        [] {
            register_onnx_op_mapping({"", "Relu", "Relu", 1, "", {}});
        },
        {"its own domain"});
    expect_error<InvalidArgument>(
        [] {
            register_onnx_op_mapping({"com.x", "Foo", "NoSuchOp", 1, "", {}});
        },
        {"NoSuchOp-1", "not registered"});
    register_onnx_op_mapping({"com.x", "MyRelu", "Relu", 1, "", {}});
    expect_error<InvalidArgument>(
        [] {
            register_onnx_op_mapping({"com.x", "MyRelu", "Relu", 1, "", {}});
        },
        {"registered already"});
    ASSERT_TRUE(find_onnx_op_mapping("com.x", "MyRelu").has_value());
    EXPECT_EQ(find_onnx_op_mapping("com.x", "MyRelu")->op_type, "Relu");
    EXPECT_FALSE(find_onnx_op_mapping("com.x", "Other").has_value());
}

}  // namespace
}  // namespace vireo
