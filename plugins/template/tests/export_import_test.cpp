// Export/import: an imported model gives identical results; damaged or foreign blobs are
// rejected with InvalidArgument.
#include <gtest/gtest.h>

#include <sstream>

#include "test_utils.hpp"
#include "vireo/ops.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo::template_test {
namespace {

std::string export_blob(const CompiledModel& compiled) {
    std::ostringstream out(std::ios::binary);
    compiled.export_model(out);
    return out.str();
}

class GoldenExport : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenExport, ImportedModelGivesIdenticalResults) {
    const std::string dir = data_dir() + "/models/golden/" + GetParam();
    Core core = make_core();
    CompiledModel compiled = core.compile_model(dir + "/model.xml", "TEMPLATE", {num_streams(2)});
    std::istringstream blob(export_blob(compiled), std::ios::binary);
    CompiledModel imported = core.import_model(blob, "TEMPLATE");
    EXPECT_EQ(imported.get_property(num_streams), 2);
    ASSERT_EQ(imported.inputs().size(), compiled.inputs().size());
    EXPECT_EQ(imported.input(0).get_names(), compiled.input(0).get_names());
    EXPECT_EQ(imported.output(0).get_names(), compiled.output(0).get_names());
    const Tensor x = read_npy(dir + "/input_x.npy");
    InferRequest a = compiled.create_infer_request();
    InferRequest b = imported.create_infer_request();
    a.set_tensor("x", x);
    b.set_tensor("x", x);
    a.infer();
    b.infer();
    EXPECT_TRUE(identical(b.get_tensor("y"), a.get_tensor("y")));
}

INSTANTIATE_TEST_SUITE_P(Template, GoldenExport, ::testing::Values("tiny", "mlp", "cnn"));

// The plugin's own blob (the Core wraps it in its own header): the tests below check the
// plugin's validation, which the Core's checks would otherwise hide.
struct PluginBlob {
    std::shared_ptr<const sdk::IPlugin> plugin;
    std::string bytes;
};

PluginBlob tiny_plugin_blob(Core& core) {
    CompiledModel compiled =
        core.compile_model(data_dir() + "/models/golden/tiny/model.xml", "TEMPLATE");
    std::ostringstream out(std::ios::binary);
    compiled.impl()->export_model(out);
    return {compiled.impl()->get_plugin(), out.str()};
}

void expect_rejected(const PluginBlob& blob, const std::string& bytes,
                     const std::string& fragment) {
    std::istringstream in(bytes, std::ios::binary);
    try {
        blob.plugin->import_model(in, {});
        FAIL() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(TemplateImport, PluginBlobImportsDirectly) {
    Core core = make_core();
    const PluginBlob blob = tiny_plugin_blob(core);
    std::istringstream in(blob.bytes, std::ios::binary);
    auto imported = blob.plugin->import_model(in, {});
    ASSERT_TRUE(imported);
    EXPECT_EQ(imported->outputs().size(), 1u);
}

TEST(TemplateImport, ForeignBlobIsRejected) {
    Core core = make_core();
    const PluginBlob blob = tiny_plugin_blob(core);
    expect_rejected(blob, "this is not a blob at all",
                    "not a blob exported by the TEMPLATE plugin");
    expect_rejected(blob, "", "not a blob exported by the TEMPLATE plugin");
    std::istringstream text("this is not a blob at all");
    EXPECT_THROW(core.import_model(text, "TEMPLATE"), InvalidArgument);
}

TEST(TemplateImport, DamagedBlobIsRejected) {
    Core core = make_core();
    const PluginBlob blob = tiny_plugin_blob(core);
    std::string bytes = blob.bytes;
    bytes[bytes.size() / 2] ^= 0x5a;
    expect_rejected(blob, bytes, "damaged");
}

TEST(TemplateImport, TruncatedBlobIsRejected) {
    Core core = make_core();
    const PluginBlob blob = tiny_plugin_blob(core);
    expect_rejected(blob, blob.bytes.substr(0, blob.bytes.size() - 9), "truncated");
    expect_rejected(blob, blob.bytes.substr(0, 10), "truncated");
}

TEST(TemplateImport, HugeSizeFieldDoesNotAllocateIt) {
    Core core = make_core();
    const PluginBlob blob = tiny_plugin_blob(core);
    std::string bytes = blob.bytes;
    const uint64_t huge = uint64_t{1} << 62;
    bytes.replace(12, 8, reinterpret_cast<const char*>(&huge), 8);  // the payload size
    // Beyond the reader's bound (and physical memory): refused before any of it is read.
    expect_rejected(blob, bytes, "damaged: the payload size claims 4611686018427387904 bytes");
}

TEST(TemplateImport, OtherPluginVersionIsRejected) {
    Core core = make_core();
    const PluginBlob blob = tiny_plugin_blob(core);
    // The payload starts with the version string (u64 length + bytes); change its first byte and
    // fix the checksum so only the version differs.
    std::string bytes = blob.bytes;
    const size_t payload = 20, checksum_at = bytes.size() - 8;
    bytes[payload + 8] = '9';
    uint64_t hash = 1469598103934665603ull;
    for (size_t i = payload; i < checksum_at; ++i) {
        hash ^= static_cast<unsigned char>(bytes[i]);
        hash *= 1099511628211ull;
    }
    bytes.replace(checksum_at, 8, reinterpret_cast<const char*>(&hash), 8);
    expect_rejected(blob, bytes, "exported by TEMPLATE plugin version 9");
}

TEST(TemplateImport, StatefulModelRoundTrips) {
    auto x = op::parameter(element::f32, PartialShape(Shape{1, 2}), "x");
    auto read = op::read_value("v", element::f32, PartialShape(Shape{1, 2}));
    auto sum = op::add(read, x);
    sum->output(0).set_names({"y"});
    auto model = Model::make({op::result(sum)}, {op::assign(sum, "v")}, {x}, "stateful");
    Core core = make_core();
    std::istringstream blob(export_blob(core.compile_model(model, "TEMPLATE")), std::ios::binary);
    CompiledModel imported = core.import_model(blob, "TEMPLATE");
    InferRequest request = imported.create_infer_request();
    Tensor ones(element::f32, Shape{1, 2});
    ones.data<float>()[0] = ones.data<float>()[1] = 1.0f;
    request.set_tensor("x", ones);
    request.infer();
    request.infer();
    EXPECT_EQ(request.get_tensor("y").data<float>()[1], 2.0f);
}

}  // namespace
}  // namespace vireo::template_test
