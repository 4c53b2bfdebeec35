// Tests that every object handed out keeps the plugin library loaded: release in every order
// (Core first included), unload_plugin while objects live, and the library really unloads once
// the last holder is gone.
#include <algorithm>
#include <functional>
#include <optional>

#include "runtime_test_utils.hpp"

namespace vireo::runtime_test {
namespace {

// The five objects of one scenario, each releasable on its own.
struct Objects {
    std::optional<Core> core;
    std::optional<CompiledModel> compiled;
    std::optional<InferRequest> request;
    std::optional<Tensor> tensor;
    std::optional<VariableState> state;

    size_t alive() const {
        return core.has_value() + compiled.has_value() + request.has_value() + tensor.has_value() +
               state.has_value();
    }
    void release(int which) {
        switch (which) {
            case 0:
                core.reset();
                break;
            case 1:
                compiled.reset();
                break;
            case 2:
                request.reset();
                break;
            case 3:
                tensor.reset();
                break;
            case 4:
                state.reset();
                break;
        }
    }
    // Whatever is still alive must still work, whatever died before.
    void exercise() {
        if (request) expect_adds(*request, 1.0f);
        if (compiled) {
            InferRequest fresh = compiled->create_infer_request();
            expect_adds(fresh, 1.0f);
        }
        if (tensor) {
            EXPECT_EQ(tensor->get_shape(), (Shape{2, 3}));
        }
        if (state) {
            EXPECT_GE(state->get_state().data<float>()[0], 1.0f);
        }
    }
};

TEST(Holders, EveryReleaseOrderOfCoreCompiledRequestTensorState) {
    ScratchDir dir;
    const std::string path = test_plugin_path();
    ASSERT_FALSE(is_loaded(path));
    std::vector<int> order{0, 1, 2, 3, 4};
    int permutations = 0;
    do {
        Objects o;
        o.core = empty_core(dir);
        o.core->register_plugin(path, "TEST");
        o.compiled = o.core->compile_model(tiny_model(), "TEST");
        o.request = o.compiled->create_infer_request();
        expect_adds(*o.request, 1.0f);
        o.tensor = o.request->get_output_tensor(0);
        o.state = o.request->query_state().at(0);
        ASSERT_TRUE(is_loaded(path));
        for (int which : order) {
            o.release(which);
            ASSERT_EQ(is_loaded(path), o.alive() > 0) << "after releasing " << which;
            o.exercise();
        }
        ASSERT_FALSE(is_loaded(path)) << "permutation " << permutations;
        ++permutations;
    } while (std::next_permutation(order.begin(), order.end()));
    EXPECT_EQ(permutations, 120);
}

TEST(Holders, CoreAloneDoesNotKeepAnUnusedPluginLoaded) {
    ScratchDir dir;
    Core core = empty_core(dir);
    core.register_plugin(test_plugin_path(), "TEST");
    EXPECT_FALSE(is_loaded(test_plugin_path()));  // lazy: registered only
    core.get_versions("TEST");
    EXPECT_TRUE(is_loaded(test_plugin_path()));
    core.unload_plugin("TEST");
    EXPECT_FALSE(is_loaded(test_plugin_path()));
}

TEST(Holders, UnloadPluginWhileObjectsLive) {
    ScratchDir dir;
    Core core = empty_core(dir);
    core.register_plugin(test_plugin_path(), "TEST");
    const uint64_t first = core.get_property("TEST", tp::instance_id);
    CompiledModel compiled = core.compile_model(tiny_model(), "TEST");
    InferRequest request = compiled.create_infer_request();
    core.unload_plugin("TEST");
    EXPECT_TRUE(is_loaded(test_plugin_path()));
    expect_adds(request, 1.0f);  // old objects keep working
    InferRequest another = compiled.create_infer_request();
    expect_adds(another, 1.0f);
    // The next use loads a fresh plugin object; the old compiled model still runs.
    CompiledModel second = core.compile_model(tiny_model(), "TEST");
    EXPECT_NE(core.get_property("TEST", tp::instance_id), first);
    expect_adds(second, 1.0f);
    core.unload_plugin("TEST");
    second = CompiledModel();
    request = InferRequest();
    another = InferRequest();
    compiled = CompiledModel();
    EXPECT_FALSE(is_loaded(test_plugin_path()));
}

TEST(Holders, RemoteContextAndItsTensorsOutliveTheCore) {
    ScratchDir dir;
    std::optional<RemoteContext> context;
    std::optional<Tensor> remote;
    {
        Core core = empty_core(dir);
        core.register_plugin(test_plugin_path(), "TEST");
        context = core.create_context("TEST.1", {{"TEST_PARAM", 5}});
    }
    EXPECT_EQ(context->get_device_name(), "TEST.1");
    EXPECT_EQ(context->get_params().at("TEST_PARAM").as<int>(), 5);
    remote = context->create_tensor(element::f32, Shape{4});
    EXPECT_TRUE(remote->is_remote());
    context.reset();
    EXPECT_TRUE(is_loaded(test_plugin_path()));
    // Round trip through the device tensor, whose code lives in the plugin.
    Tensor host(element::f32, Shape{4});
    for (int i = 0; i < 4; ++i) host.data<float>()[i] = static_cast<float>(i * i);
    host.copy_to(*remote);
    Tensor back(element::f32, Shape{4});
    remote->copy_to(back);
    for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(back.data<float>()[i], static_cast<float>(i * i));
    remote.reset();
    EXPECT_FALSE(is_loaded(test_plugin_path()));
}

TEST(Holders, RuntimeModelAndImportedModelOutliveTheCore) {
    ScratchDir dir;
    std::shared_ptr<const Model> runtime_model;
    std::optional<InferRequest> request;
    {
        Core core = empty_core(dir);
        core.register_plugin(test_plugin_path(), "TEST");
        std::stringstream blob;
        core.compile_model(tiny_model(), "TEST").export_model(blob);
        CompiledModel imported = core.import_model(blob, "TEST");
        runtime_model = imported.get_runtime_model();
        // Replace the core entirely, then use the imported model (OpenVINO's
        // CreateRequestWithCoreRemoved).
        core = empty_core(dir);
        request = imported.create_infer_request();
    }
    expect_adds(*request, 1.0f);
    EXPECT_EQ(runtime_model->get_name(), "tiny");
    request.reset();
    EXPECT_TRUE(is_loaded(test_plugin_path()));  // the runtime model still holds it
    runtime_model.reset();
    EXPECT_FALSE(is_loaded(test_plugin_path()));
}

TEST(Holders, GetCompiledModelFromARequestOutlivesEverythingElse) {
    ScratchDir dir;
    std::optional<CompiledModel> compiled;
    {
        Core core = empty_core(dir);
        core.register_plugin(test_plugin_path(), "TEST");
        InferRequest request = core.compile_model(tiny_model(), "TEST").create_infer_request();
        compiled = request.get_compiled_model();
    }
    expect_adds(*compiled, 1.0f);
    compiled.reset();
    EXPECT_FALSE(is_loaded(test_plugin_path()));
}

}  // namespace
}  // namespace vireo::runtime_test
