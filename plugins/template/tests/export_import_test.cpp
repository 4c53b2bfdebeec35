// Export/import: an imported model gives identical results; damaged or foreign blobs are
// rejected with InvalidArgument.
#include <gtest/gtest.h>

#include <cstring>
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
                    "TEMPLATE blob: the section name at byte 0 claims 1936287860 bytes");
    expect_rejected(blob, "", "TEMPLATE blob: missing required section 'ir.bin'");
    std::istringstream text("this is not a blob at all");
    EXPECT_THROW(core.import_model(text, "TEMPLATE"), InvalidArgument);
}

TEST(TemplateImport, DamagedBlobIsRejected) {
    // The checksum is the core's (sdk::BlobContainer), over header and sections alike.
    Core core = make_core();
    std::string bytes =
        export_blob(core.compile_model(data_dir() + "/models/golden/tiny/model.xml", "TEMPLATE"));
    bytes[bytes.size() / 2] ^= 0x5a;
    std::istringstream in(bytes, std::ios::binary);
    try {
        core.import_model(in, "TEMPLATE");
        FAIL() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("damaged blob: checksum"), std::string::npos)
            << e.what();
    }
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
    // The first section's size, after its name's u32 length and the name.
    uint32_t name_size = 0;
    std::memcpy(&name_size, bytes.data(), sizeof(name_size));
    const uint64_t huge = uint64_t{1} << 62;
    bytes.replace(4 + name_size, 8, reinterpret_cast<const char*>(&huge), 8);
    // Beyond what the stream holds: refused before any of it is read.
    expect_rejected(blob, bytes, "is truncated: it claims 4611686018427387904 bytes");
}

TEST(TemplateImport, OtherPluginVersionIsRejected) {
    // The plugin version is the core's header's (checked before the payload is read): magic,
    // format, ABI, the plugin name (u32 length + bytes), then the version's u32 length.
    Core core = make_core();
    std::string bytes =
        export_blob(core.compile_model(data_dir() + "/models/golden/tiny/model.xml", "TEMPLATE"));
    uint32_t name_size = 0;
    std::memcpy(&name_size, bytes.data() + 16, sizeof(name_size));
    bytes[20 + name_size + 4] = '9';
    std::istringstream in(bytes, std::ios::binary);
    try {
        core.import_model(in, "TEMPLATE");
        FAIL() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(
            std::string(e.what()).find("exported by plugin 'vireo_template_plugin' version '9"),
            std::string::npos)
            << e.what();
    }
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
