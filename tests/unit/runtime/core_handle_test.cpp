// sdk::ICore speaks SDK types: what compile_model, import_model and create_context give a plugin
// is the device's own object paired with its module (sdk::CompiledModelHandle, InferRequestHandle,
// RemoteContextHandle), which keeps the device's library loaded after the Core is gone; and a
// meta-device drives its parts' requests directly: one request of the device serves the
// meta-device's request, whose profiling rows are the device's own.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core_impl.hpp"
#include "runtime_test_utils.hpp"
#include "vireo/hetero/properties.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"
#include "vireo/sdk/iremote_context.hpp"
#include "vireo/sdk/isync_infer_request.hpp"

namespace vireo::runtime_test {
namespace {

// The core a plugin sees: a CoreImpl bound to itself, as Core makes it, knowing only TEST.
std::shared_ptr<CoreImpl> core_with_test_device(const ScratchDir& dir) {
    const std::string xml = dir.file("plugins.xml");
    write_file(xml, plugins_xml({{"TEST", test_plugin_path(), {}}}));
    auto core = std::make_shared<CoreImpl>(xml);
    core->bind_core_handle(core);
    return core;
}

// Runs `request` (a request of the TEST device, whose addend is 1) once through the SDK interface
// and checks y = x + 1.
void expect_adds_one(const sdk::InferRequestHandle& request) {
    request.impl()->set_tensor(request.impl()->get_inputs().at(0), input_values());
    request.call("infer", [](sdk::IAsyncInferRequest& r) { r.infer(); });
    const Tensor y = request.impl()->get_tensor(request.impl()->get_outputs().at(0));
    ASSERT_EQ(y.get_size(), 6u);
    for (int i = 0; i < 6; ++i)
        EXPECT_FLOAT_EQ(y.data<float>()[i], static_cast<float>(i) - 2.0f + 1.0f) << i;
}

uint64_t requests_created(const sdk::ICore& core) {
    return core.get_property("TEST", tp::request_count.name(), {}).as<uint64_t>();
}

TEST(CoreHandle, CompileGivesTheDevicesOwnCompiledModelAndRequests) {
    ScratchDir dir;
    std::shared_ptr<sdk::ICore> core = core_with_test_device(dir);
    const sdk::CompiledModelHandle compiled = core->compile_model(tiny_model(), "TEST", {});
    ASSERT_TRUE(compiled);
    EXPECT_EQ(compiled.device_name(), "TEST");
    EXPECT_FALSE(compiled.loaded_from_cache());
    ASSERT_NE(compiled.module(), nullptr);
    // The TEST plugin's own object: its plugin is the TEST device's, its ports the model's.
    ASSERT_NE(compiled.impl()->get_plugin(), nullptr);
    EXPECT_EQ(compiled.impl()->get_plugin()->get_device_name(), "TEST");
    ASSERT_EQ(compiled.inputs().size(), 1u);
    EXPECT_EQ(compiled.inputs()[0].get_names().count("x"), 1u);

    const sdk::InferRequestHandle request = compiled.create_infer_request();
    ASSERT_TRUE(request);
    EXPECT_EQ(request.name(), "TEST");
    // The request is the device's IAsyncInferRequest over a sync request of that very compiled
    // model, sharing its module: nothing stands between the plugin and the device's request.
    EXPECT_EQ(request.module(), compiled.module());
    EXPECT_EQ(request.impl()->get_sync_request()->get_compiled_model(), compiled.impl());
    EXPECT_EQ(requests_created(*core), 1u);
    expect_adds_one(request);
    expect_adds_one(request);
    EXPECT_EQ(requests_created(*core), 1u);
}

TEST(CoreHandle, AHandleKeepsTheDevicesLibraryLoadedAfterTheCoreIsGone) {
    const std::string path = test_plugin_path();
    ASSERT_FALSE(is_loaded(path));
    ScratchDir dir;
    {
        std::shared_ptr<sdk::ICore> core = core_with_test_device(dir);
        sdk::CompiledModelHandle compiled = core->compile_model(tiny_model(), "TEST", {});
        sdk::InferRequestHandle request = compiled.create_infer_request();
        core.reset();  // the Core is gone: the handles alone hold the module
        ASSERT_TRUE(is_loaded(path));
        compiled = sdk::CompiledModelHandle();  // the request alone holds it
        ASSERT_TRUE(is_loaded(path));
        expect_adds_one(request);
        request = sdk::InferRequestHandle();
        EXPECT_FALSE(is_loaded(path));
    }
    {
        // The runtime model holds the module as well (an aliasing pointer).
        std::shared_ptr<sdk::ICore> core = core_with_test_device(dir);
        std::shared_ptr<const Model> runtime_model =
            core->compile_model(tiny_model(), "TEST", {}).get_runtime_model();
        core.reset();
        ASSERT_TRUE(is_loaded(path));
        EXPECT_EQ(runtime_model->get_parameters().size(), 1u);
        runtime_model.reset();
        EXPECT_FALSE(is_loaded(path));
    }
}

TEST(CoreHandle, TheCacheFlagAndAnExportedPartComeBackThroughTheCore) {
    ScratchDir dir;
    std::shared_ptr<sdk::ICore> core = core_with_test_device(dir);
    const AnyMap cached{cache_dir(dir.file("cache"))};
    const sdk::CompiledModelHandle first = core->compile_model(tiny_model(), "TEST", cached);
    const sdk::CompiledModelHandle second = core->compile_model(tiny_model(), "TEST", cached);
    EXPECT_FALSE(first.loaded_from_cache());
    EXPECT_FALSE(first.get_property(loaded_from_cache));
    EXPECT_TRUE(second.loaded_from_cache());
    EXPECT_TRUE(second.get_property(loaded_from_cache));
    const auto keys = first.get_property(supported_properties);
    EXPECT_NE(std::find(keys.begin(), keys.end(), loaded_from_cache.name()), keys.end());
    expect_adds_one(second.create_infer_request());

    // export_model writes the core's blob (header and checksum), which import_model reads back.
    std::stringstream blob;
    first.export_model(blob);
    EXPECT_EQ(blob.str().rfind("VIREOBLB", 0), 0u);
    const uint64_t imports = core->get_property("TEST", tp::import_count.name(), {}).as<uint64_t>();
    const sdk::CompiledModelHandle imported = core->import_model(blob, "TEST", {});
    EXPECT_EQ(core->get_property("TEST", tp::import_count.name(), {}).as<uint64_t>(), imports + 1);
    EXPECT_FALSE(imported.loaded_from_cache());
    expect_adds_one(imported.create_infer_request());

    // The runtime model is the device's, held with the module: it outlives every handle and the
    // core, and the library stays loaded until it goes.
    std::shared_ptr<const Model> runtime_model = imported.get_runtime_model();
    ASSERT_NE(runtime_model, nullptr);
    EXPECT_EQ(runtime_model.get(), imported.impl()->get_runtime_model().get());
}

TEST(CoreHandle, ErrorsNameTheDevice) {
    ScratchDir dir;
    std::shared_ptr<sdk::ICore> core = core_with_test_device(dir);
    const sdk::CompiledModelHandle compiled = core->compile_model(tiny_model(), "TEST", {});
    const sdk::InferRequestHandle request = compiled.create_infer_request();
    const std::string wrong_shape = error_of<InvalidArgument>([&] {
        request.call("set_tensor", [&](sdk::IAsyncInferRequest& r) {
            r.set_tensor(compiled.inputs()[0], Tensor(element::f32, Shape{3, 3}));
        });
    });
    EXPECT_EQ(wrong_shape.rfind("TEST: ", 0), 0u) << wrong_shape;
    const std::string unknown = error_of<NotFound>([&] { compiled.get_property("NO_SUCH_KEY"); });
    EXPECT_EQ(unknown.rfind("TEST: ", 0), 0u) << unknown;
    const std::string empty =
        error_of<InvalidArgument>([] { sdk::CompiledModelHandle().create_infer_request(); });
    EXPECT_NE(empty.find("CompiledModelHandle is empty"), std::string::npos) << empty;
    error_of<NotFound>([&] { core->compile_model(tiny_model(), "NOPE", {}); });
}

TEST(CoreHandle, CreateContextGivesTheDevicesContext) {
    ScratchDir dir;
    std::shared_ptr<sdk::ICore> core = core_with_test_device(dir);
    const sdk::RemoteContextHandle context = core->create_context("TEST", {});
    ASSERT_TRUE(context);
    ASSERT_NE(context.module(), nullptr);
    EXPECT_EQ(context.impl()->get_device_name(), "TEST");
    EXPECT_EQ(context.name(), "TEST");
}

// x (f32 {2,3}) -> Result: every op is one the TEST device claims, so AUTO can choose it.
std::shared_ptr<Model> passthrough_model() {
    auto x = op::parameter(element::f32, PartialShape{2, 3}, "x");
    return std::make_shared<Model>(OutputVector{x->output(0)}, ParameterVector{x}, "pass");
}

TEST(MetaDeviceParts, AnAutoRequestRunsTheDevicesRequestAndPassesItsRowsThrough) {
    Core core;  // the build's plugins.xml (AUTO among them) and TEST
    core.register_plugin(test_plugin_path(), "TEST");
    CompiledModel compiled =
        core.compile_model(passthrough_model(), "AUTO:TEST", {enable_profiling(true)});
    const uint64_t before = core.get_property("TEST", tp::request_count);
    InferRequest request = compiled.create_infer_request();
    for (int run = 0; run < 3; ++run) {
        Tensor x = input_values();
        request.set_input_tensor(x);
        if (run == 1) {
            request.start_async();
            request.wait();
        } else {
            request.infer();
        }
        const Tensor y = request.get_output_tensor();
        for (int i = 0; i < 6; ++i)
            EXPECT_FLOAT_EQ(y.data<float>()[i], static_cast<float>(i) - 1.0f) << run << ", " << i;
    }
    // One TEST request served the three runs: AUTO drives the device's own request (a worker it
    // keeps), not a request of its own per run.
    EXPECT_EQ(core.get_property("TEST", tp::request_count), before + 1);

    // The rows are the TEST request's own, as a request compiled on TEST directly reports them.
    CompiledModel direct =
        core.compile_model(passthrough_model(), "TEST", {enable_profiling(true)});
    InferRequest direct_request = direct.create_infer_request();
    direct_request.set_input_tensor(input_values());
    direct_request.infer();
    const auto expected = direct_request.get_profiling_info();
    const auto rows = request.get_profiling_info();
    ASSERT_EQ(rows.size(), expected.size());
    ASSERT_EQ(rows.size(), 2u);  // the stage row and the op row of PERF_COUNT
    for (size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i].node_name, expected[i].node_name) << i;
        EXPECT_EQ(rows[i].node_type, expected[i].node_type) << i;
        EXPECT_EQ(rows[i].exec_type, expected[i].exec_type) << i;
        EXPECT_EQ(rows[i].status, expected[i].status) << i;
    }
}

TEST(MetaDeviceParts, AHeteroPartsRowsAreItsDevicesOwn) {
    Core core;  // the build's plugins.xml: HETERO and TEMPLATE
    const auto model = tiny_model();
    CompiledModel hetero = core.compile_model(model, "HETERO:TEMPLATE", {enable_profiling(true)});
    CompiledModel direct = core.compile_model(model, "TEMPLATE", {enable_profiling(true)});
    ASSERT_EQ(hetero.get_property(vireo::hetero::number_of_submodels), 1u);
    InferRequest through_hetero = hetero.create_infer_request();
    InferRequest on_template = direct.create_infer_request();
    for (InferRequest* request : {&through_hetero, &on_template}) {
        request->set_tensor("x", input_values());
        request->infer();
        const Tensor y = request->get_tensor("y");
        for (int i = 0; i < 6; ++i)
            EXPECT_FLOAT_EQ(y.data<float>()[i], std::max(0.0f, static_cast<float>(i) - 2.0f));
    }
    // HETERO's five stage rows (the parts' sums), then the part's rows as TEMPLATE reports them,
    // named for the part: the rows of the device's own request, nothing added or lost between.
    const auto rows = through_hetero.get_profiling_info();
    const auto expected = on_template.get_profiling_info();
    ASSERT_EQ(rows.size(), 5 + expected.size());
    for (size_t i = 0; i < 5; ++i) EXPECT_EQ(rows[i].exec_type, "HETERO") << i;
    for (size_t i = 0; i < expected.size(); ++i) {
        const ProfilingInfo& row = rows[5 + i];
        const bool stage = expected[i].node_type == "Stage";
        EXPECT_EQ(row.node_name, (stage ? "TEMPLATE #0 " : "") + expected[i].node_name) << i;
        EXPECT_EQ(row.node_type, expected[i].node_type) << i;
        EXPECT_EQ(row.exec_type, "TEMPLATE:" + expected[i].exec_type) << i;
        EXPECT_EQ(row.status, expected[i].status) << i;
    }
}

}  // namespace
}  // namespace vireo::runtime_test
