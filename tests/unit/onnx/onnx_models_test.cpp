// Tests the ONNX reader on real models: the golden models against ONNX Runtime's outputs and their
// IR twins, ONNX's nine light architectures against ONNX's expected outputs, reading from memory,
// format detection, names and rt_info.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "frontend_registry.hpp"
#include "npy.hpp"
#include "onnx_test_util.hpp"
#include "tensor_proto.hpp"
#include "vireo/core.hpp"
#include "vireo/frontend.hpp"

namespace vireo {
namespace {

using npy::read_npy;

const std::string kModels = std::string(VIREO_TEST_DATA_DIR) + "/models";

// |a - e| <= atol + rtol * |e| everywhere; returns the number of mismatches.
size_t mismatches(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
    EXPECT_EQ(actual.get_shape(), expected.get_shape());
    EXPECT_EQ(actual.get_element_type(), element::f32);
    const size_t n = shape_size(expected.get_shape());
    if (actual.get_shape() != expected.get_shape()) return n;
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        const double a = actual.data<float>()[i], e = expected.data<float>()[i];
        if (!(std::fabs(a - e) <= atol + rtol * std::fabs(e))) ++bad;
    }
    return bad;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

Tensor infer_one(Core& core, const std::shared_ptr<Model>& model, const Tensor& input) {
    auto compiled = core.compile_model(model, "TEMPLATE");
    auto request = compiled.create_infer_request();
    request.set_input_tensor(0, input);
    request.infer();
    return request.get_output_tensor(0);
}

TEST(OnnxModels, GoldenModelsMatchOnnxRuntimeAndTheirIrTwins) {
    Core core;
    for (const std::string name : {"tiny", "cnn"}) {
        SCOPED_TRACE(name);
        const std::string dir = kModels + "/golden/" + name;
        auto onnx_model = core.read_model(dir + "/model.onnx");
        EXPECT_EQ(onnx_model->get_rt_info().at("source_format").as<std::string>(), "onnx");
        Tensor x = read_npy(dir + "/input_x.npy");
        Tensor expected = read_npy(dir + "/output_y.npy");
        Tensor from_onnx = infer_one(core, onnx_model, x);
        EXPECT_EQ(mismatches(from_onnx, expected, 1e-4, 1e-6), 0u);
        Tensor from_ir = infer_one(core, core.read_model(dir + "/model.xml"), x);
        EXPECT_EQ(mismatches(from_onnx, from_ir, 1e-5, 1e-7), 0u);
    }
}

TEST(OnnxModels, KeepsOnnxNamesForInputsAndOutputs) {
    Core core;
    auto model = core.read_model(kModels + "/golden/cnn/model.onnx");
    ASSERT_EQ(model->get_parameters().size(), 1u);
    ASSERT_EQ(model->get_results().size(), 1u);
    EXPECT_EQ(model->input(0).get_any_name(), "x");
    EXPECT_EQ(model->output(0).get_any_name(), "y");
    EXPECT_EQ(model->input(0).get_partial_shape(), PartialShape({1, 3, 64, 64}));
}

class OnnxLight : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxLight, MatchesOnnxExpectedOutput) {
    const std::string base = kModels + "/onnx_light/light_" + GetParam();
    Core core;
    auto model = core.read_model(base + ".onnx");
    ASSERT_EQ(model->get_parameters().size(), 1u);
    const Shape shape = model->input(0).get_partial_shape().to_shape();
    ASSERT_EQ(shape, Shape({1, 3, 224, 224}));
    Tensor x(element::f32, shape);
    const size_t n = shape_size(shape);
    for (size_t i = 0; i < n; ++i)
        x.data<float>()[i] = static_cast<float>(i) / static_cast<float>(n);
    auto proto = std::make_shared<onnx::TensorProto>();
    ASSERT_TRUE(proto->ParseFromString(read_file(base + "_output_0.pb")));
    Tensor expected = onnx_import::to_tensor(*proto, proto, nullptr, "expected");
    Tensor y = infer_one(core, model, x);
    EXPECT_EQ(mismatches(y, expected, 1e-3, 1e-7), 0u);
}

INSTANTIATE_TEST_SUITE_P(Architectures, OnnxLight,
                         ::testing::Values("bvlc_alexnet", "densenet121", "inception_v1",
                                           "inception_v2", "resnet50", "shufflenet", "squeezenet",
                                           "vgg19", "zfnet512"));

TEST(OnnxModels, ReadsFromMemoryLikeFromAFile) {
    Core core;
    const std::string bytes = read_file(kModels + "/golden/cnn/model.onnx");
    auto model = core.read_model(bytes, Tensor());
    Tensor x = read_npy(kModels + "/golden/cnn/input_x.npy");
    EXPECT_EQ(mismatches(infer_one(core, model, x), read_npy(kModels + "/golden/cnn/output_y.npy"),
                         1e-4, 1e-6),
              0u);
    // The same bytes through the free function, then the caller's buffer is gone.
    auto again = read_onnx_model(bytes.data(), bytes.size());
    EXPECT_EQ(again->get_ordered_ops().size(), model->get_ordered_ops().size());
    EXPECT_THROW(core.read_model(bytes, Tensor(element::u8, Shape{4})), InvalidArgument);
}

TEST(OnnxModels, DetectsTheFormatByContent) {
    test::TempDir dir;
    auto& registry = runtime::FormatRegistry::process();
    auto format_of = [&](const std::filesystem::path& path) {
        return registry.detect(path.string())->name;
    };
    // An ONNX file named .xml and an IR file named .onnx are both read as what they are.
    const auto onnx_as_xml = dir.path() / "model.xml";
    std::filesystem::copy_file(kModels + "/golden/tiny/model.onnx", onnx_as_xml);
    EXPECT_EQ(format_of(onnx_as_xml), "ONNX");
    const auto ir_as_onnx = dir.path() / "model.onnx";
    std::filesystem::copy_file(kModels + "/golden/tiny/model.xml", ir_as_onnx);
    EXPECT_EQ(format_of(ir_as_onnx), "IR");
    Core core;
    EXPECT_EQ(core.read_model(onnx_as_xml.string())->get_rt_info().count("source_format"), 1u);
    EXPECT_THROW(format_of(dir.path() / "none.onnx"), NotFound);
    const auto junk = dir.path() / "junk.bin";
    std::ofstream(junk) << "\x01\x02\x03 not a model";
    EXPECT_THROW(format_of(junk), InvalidArgument);
    EXPECT_THROW(format_of(dir.path()), InvalidArgument);  // a folder
    const std::string xml = "  <?xml version=\"1.0\"?><net/>";
    EXPECT_EQ(registry.detect(xml.data(), xml.size())->name, "IR");
    EXPECT_THROW(registry.detect(xml.data(), 0), InvalidArgument);
}

// The module declares ONNX (".onnx", a ModelProto's first field tag); the registry knows nothing of
// it before loading the module.
TEST(OnnxModels, TheFrontendModuleDeclaresItsFormat) {
    test::TempDir dir;
    const std::string module_path = std::string(VIREO_BUILD_LIB_DIR) + "/libvireo_onnx_frontend.so";
    runtime::FormatRegistry registry({}, {module_path}, "the test");
    EXPECT_EQ(registry.known_formats(), "none");
    const std::string bytes = read_file(kModels + "/golden/tiny/model.onnx");
    EXPECT_EQ(registry.detect(bytes.data(), bytes.size())->name, "ONNX");
    EXPECT_EQ(registry.known_formats(), "ONNX (.onnx)");
    // No probe claims an empty file: its extension picks the reader, which says what is wrong.
    const auto empty = dir.path() / "empty.onnx";
    std::ofstream(empty).close();
    const auto format = registry.detect(empty.string());
    EXPECT_EQ(format->name, "ONNX");
    try {
        format->read_file(empty.string(), "", true);
        ADD_FAILURE() << "no exception";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("the file is empty"), std::string::npos) << e.what();
    }
    // Unknown content under another extension: the error lists what the module declared.
    const auto junk = dir.path() / "junk.dat";
    std::ofstream(junk) << "\x01\x02\x03 not a model";
    try {
        registry.detect(junk.string());
        ADD_FAILURE() << "no exception";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("known formats: ONNX (.onnx)"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find(junk.string()), std::string::npos) << e.what();
    }
}

TEST(OnnxModels, OnnxModelRejectsAWeightsPath) {
    Core core;
    EXPECT_THROW(
        core.read_model(kModels + "/golden/tiny/model.onnx", kModels + "/golden/tiny/model.bin"),
        InvalidArgument);
}

TEST(OnnxModels, CompilesFromAPathLikeIr) {
    Core core;
    auto compiled = core.compile_model(kModels + "/golden/tiny/model.onnx", "TEMPLATE");
    auto request = compiled.create_infer_request();
    Tensor x(element::f32, Shape{1, 10});
    for (size_t i = 0; i < 10; ++i) x.data<float>()[i] = static_cast<float>(i);
    request.set_input_tensor(0, x);
    request.infer();
    for (size_t i = 0; i < 10; ++i)
        EXPECT_FLOAT_EQ(request.get_output_tensor(0).data<float>()[i], i + 1.0f);
}

}  // namespace
}  // namespace vireo

namespace vireo {
namespace {

int run(const std::string& command) {
    return std::system(command.c_str());
}

TEST(VireoConvert, WritesIrThatComputesWhatTheOnnxModelComputes) {
    test::TempDir dir;
    const std::string tool = std::string(VIREO_BUILD_BIN_DIR) + "/vireo_convert";
    const std::string onnx = kModels + "/golden/cnn/model.onnx";
    const std::string xml = (dir.path() / "cnn.xml").string(),
                      half = (dir.path() / "cnn16.xml").string();
    ASSERT_EQ(run(tool + " " + onnx + " -o " + xml + " > /dev/null"), 0);
    ASSERT_EQ(run(tool + " " + onnx + " -o " + half + " --compress_to_fp16 > /dev/null"), 0);
    EXPECT_LT(std::filesystem::file_size(dir.path() / "cnn16.bin") * 10,
              std::filesystem::file_size(dir.path() / "cnn.bin") * 6);
    Core core;
    Tensor x = read_npy(kModels + "/golden/cnn/input_x.npy");
    Tensor expected = read_npy(kModels + "/golden/cnn/output_y.npy");
    auto ir = core.read_model(xml);
    EXPECT_EQ(ir->input(0).get_any_name(), "x");
    EXPECT_EQ(ir->output(0).get_any_name(), "y");
    EXPECT_EQ(mismatches(infer_one(core, ir, x), expected, 1e-4, 1e-6), 0u);
    EXPECT_EQ(mismatches(infer_one(core, core.read_model(half), x), expected, 2e-2, 1e-3), 0u);
    // Errors: a missing model and a bad flag fail with a non-zero status.
    EXPECT_NE(run(tool + " " + (dir.path() / "none.onnx").string() + " 2> /dev/null"), 0);
    EXPECT_NE(run(tool + " " + onnx + " --bogus 2> /dev/null"), 0);
}

}  // namespace
}  // namespace vireo
