// Conformance category "Holders": compiled models, requests, output tensors, states, contexts,
// property values and runtime models outlive the Core and unload_plugin, destroyed in every
// order. (Each test already runs in its own process, so a crash is reported as such.)
#include <algorithm>
#include <optional>
#include <sstream>

#include "vireo/conformance/suite.hpp"

namespace vireo::conformance {

TEST(Holders, EveryDestructionOrder) {
    ReferenceModel m = elementwise_model();
    // 0 core, 1 compiled model, 2 request, 3 output tensor; with and without unload_plugin first.
    std::vector<int> order{0, 1, 2, 3};
    int permutations = 0;
    do {
        for (bool unload : {false, true}) {
            SCOPED_TRACE("order " + std::to_string(order[0]) + std::to_string(order[1]) +
                         std::to_string(order[2]) + std::to_string(order[3]) +
                         (unload ? " after unload_plugin" : ""));
            std::optional<Core> c(make_core());
            std::optional<CompiledModel> compiled(c->compile_model(m.model, device_name()));
            std::optional<InferRequest> request(compiled->create_infer_request());
            const auto inputs = set_inputs(*request, *compiled, 1);
            request->infer();
            std::optional<Tensor> output(request->get_output_tensor());
            const auto expected = m.reference(inputs)[0];
            if (unload) c->unload_plugin(device_base_name());
            for (int victim : order) {
                if (victim == 0) c.reset();
                if (victim == 1) compiled.reset();
                if (victim == 2) request.reset();
                if (victim == 3) output.reset();
                // What is left still works.
                if (output) {
                    EXPECT_TRUE(values_near(to_vector(*output), expected));
                }
                if (request) {
                    request->infer();
                    EXPECT_TRUE(values_near(to_vector(request->get_output_tensor()), expected));
                }
                if (compiled) {
                    EXPECT_FALSE(compiled->get_property(model_name).empty());
                }
            }
        }
        ++permutations;
    } while (std::next_permutation(order.begin(), order.end()));
    EXPECT_EQ(permutations, 24);
}

TEST(Holders, PropertyValueOutlivesCore) {
    Any properties;
    Any full_name;
    {
        Core c = make_core();
        const CompiledModel compiled = c.compile_model(mlp_model().model, device_name());
        properties = compiled.get_property(supported_properties.name());
        full_name = c.get_property(device_name(), device::full_name.name());
        c.unload_plugin(device_base_name());
    }
    EXPECT_FALSE(properties.to_string().empty());
    EXPECT_FALSE(full_name.as<std::string>().empty());
}

TEST(Holders, RuntimeModelOutlivesCore) {
    std::shared_ptr<const Model> runtime;
    {
        Core c = make_core();
        runtime = c.compile_model(mlp_model().model, device_name()).get_runtime_model();
        c.unload_plugin(device_base_name());
    }
    ASSERT_NE(runtime, nullptr);
    EXPECT_FALSE(runtime->get_ordered_ops().empty());
    for (const auto& op : runtime->get_ordered_ops()) EXPECT_FALSE(op->get_friendly_name().empty());
}

TEST(Holders, StateOutlivesCoreAndRequest) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kStates);
    std::optional<VariableState> state;
    const auto x = make_values(3, 2);
    {
        Core c = make_core();
        InferRequest request =
            c.compile_model(stateful_model().model, device_name()).create_infer_request();
        request.set_tensor("x", make_tensor({1, 3}, x));
        request.infer();
        state = request.query_state()[0];
        c.unload_plugin(device_base_name());
    }
    EXPECT_EQ(state->get_name(), "acc");
    EXPECT_TRUE(values_near(to_vector(state->get_state()), x));
    state->reset();
    EXPECT_TRUE(values_near(to_vector(state->get_state()), {0.f, 0.f, 0.f}));
}

TEST(Holders, RemoteContextAndTensorOutliveCore) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kRemoteTensors);
    std::optional<RemoteContext> context;
    std::optional<Tensor> remote;
    const auto values = make_values(6, 3);
    {
        Core c = make_core();
        context = c.get_default_context(device_name());
        remote = context->create_tensor(element::f32, {2, 3});
        make_tensor({2, 3}, values).copy_to(*remote);
        c.unload_plugin(device_base_name());
    }
    EXPECT_EQ(to_vector(*remote), values);
    context.reset();
    EXPECT_EQ(to_vector(*remote), values) << "the remote tensor after its context is gone";
    remote.reset();
}

TEST(Holders, ImportedModelOutlivesCore) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kExportImport);
    ReferenceModel m = cnn_model();
    std::stringstream blob;
    compile(m.model).export_model(blob);
    std::optional<CompiledModel> imported;
    {
        Core c = make_core();
        imported = c.import_model(blob, device_name());
    }
    InferRequest request = imported->create_infer_request();
    const auto inputs = set_inputs(request, *imported, 4);
    imported.reset();
    request.infer();
    EXPECT_TRUE(values_near(to_vector(request.get_output_tensor()), m.reference(inputs)[0]));
}

}  // namespace vireo::conformance
