// Conformance categories "Profiling" (stage and per-op rows with enable_profiling), "States"
// (ReadValue/Assign variables per request) and "Remote" (contexts, remote tensors, copies and
// remote I/O). Each is skipped when the device does not claim the capability.
#include <set>

#include "vireo/conformance/suite.hpp"

namespace vireo::conformance {
namespace {

void expect_profiling_rows(const std::vector<ProfilingInfo>& rows, const Model& model) {
    ASSERT_FALSE(rows.empty()) << "no profiling rows";
    std::set<std::string> names, op_names;
    for (const auto& op : model.get_ordered_ops()) op_names.insert(op->get_friendly_name());
    bool op_row = false;
    for (const auto& row : rows) {
        names.insert(row.node_name);
        EXPECT_GE(row.real_time.count(), 0) << row.node_name;
        EXPECT_GE(row.cpu_time.count(), 0) << row.node_name;
        if (row.node_type != "Stage" && op_names.count(row.node_name)) op_row = true;
    }
    for (const char* stage : {kStageInputPreprocessing, kStageInputTransfer, kStageExecution,
                              kStageOutputTransfer, kStageOutputPostprocessing})
        EXPECT_TRUE(names.count(stage)) << "no profiling row for stage '" << stage << "'";
    std::string seen;
    for (const auto& row : rows) seen += " '" + row.node_name + "' (" + row.node_type + ")";
    EXPECT_TRUE(op_row) << "with enable_profiling no row names an op of the model; rows:" << seen;
}

std::vector<float> plus(const std::vector<float>& a, const std::vector<float>& b) {
    std::vector<float> out(a.size());
    for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
    return out;
}

}  // namespace

TEST(Profiling, RowsAfterInfer) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kProfiling);
    ReferenceModel m = cnn_model();
    const CompiledModel compiled = compile(m.model, {enable_profiling(true)});
    InferRequest request = compiled.create_infer_request();
    set_inputs(request, compiled, 1);
    request.infer();
    expect_profiling_rows(request.get_profiling_info(), *m.model);
}

TEST(Profiling, RowsAfterStartAsync) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kProfiling);
    ReferenceModel m = mlp_model();
    const CompiledModel compiled = compile(m.model, {enable_profiling(true)});
    InferRequest request = compiled.create_infer_request();
    set_inputs(request, compiled, 1);
    request.start_async();
    request.wait();
    expect_profiling_rows(request.get_profiling_info(), *m.model);
}

TEST(Profiling, StageRowsWithoutEnableProfiling) {
    const CompiledModel compiled = compile(mlp_model().model);
    InferRequest request = compiled.create_infer_request();
    set_inputs(request, compiled, 1);
    request.infer();
    std::set<std::string> names;
    for (const auto& row : request.get_profiling_info()) names.insert(row.node_name);
    for (const char* stage : {kStageInputPreprocessing, kStageInputTransfer, kStageExecution,
                              kStageOutputTransfer, kStageOutputPostprocessing})
        EXPECT_TRUE(names.count(stage)) << "no profiling row for stage '" << stage << "'";
}

TEST(States, QueryStateListsTheVariables) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kStates);
    const CompiledModel compiled = compile(stateful_model().model);
    InferRequest request = compiled.create_infer_request();
    const auto states = request.query_state();
    ASSERT_EQ(states.size(), 1u);
    EXPECT_EQ(states[0].get_name(), "acc");
    EXPECT_TRUE(values_near(to_vector(states[0].get_state()), {0.f, 0.f, 0.f}))
        << "a variable starts at zero";
}

TEST(States, KeptAcrossInferencesAndReset) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kStates);
    const CompiledModel compiled = compile(stateful_model().model);
    InferRequest request = compiled.create_infer_request();
    const auto a = make_values(3, 1), b = make_values(3, 2), c = make_values(3, 3);
    request.set_tensor("x", make_tensor({1, 3}, a));
    request.infer();
    EXPECT_TRUE(values_near(to_vector(request.get_tensor("acc_out")), a));
    request.set_tensor("x", make_tensor({1, 3}, b));
    request.infer();
    EXPECT_TRUE(values_near(to_vector(request.get_tensor("acc_out")), plus(a, b)));
    EXPECT_TRUE(values_near(to_vector(request.query_state()[0].get_state()), plus(a, b)));
    request.reset_state();
    request.set_tensor("x", make_tensor({1, 3}, c));
    request.infer();
    EXPECT_TRUE(values_near(to_vector(request.get_tensor("acc_out")), c))
        << "reset_state did not zero the variable";
    request.query_state()[0].reset();
    request.infer();
    EXPECT_TRUE(values_near(to_vector(request.get_tensor("acc_out")), c))
        << "VariableState::reset did not zero it";
}

TEST(States, SetAndGetState) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kStates);
    const CompiledModel compiled = compile(stateful_model().model);
    InferRequest request = compiled.create_infer_request();
    const std::vector<float> start{10.f, 20.f, 30.f};
    auto state = request.query_state()[0];
    state.set_state(make_tensor({1, 3}, start));
    EXPECT_TRUE(values_near(to_vector(state.get_state()), start));
    const auto x = make_values(3, 4);
    request.set_tensor("x", make_tensor({1, 3}, x));
    request.infer();
    EXPECT_TRUE(values_near(to_vector(request.get_tensor("acc_out")), plus(start, x)));
    EXPECT_TRUE(throws_kind(
        [&] {
            state.set_state(make_tensor({1, 4}, {1.f, 2.f, 3.f, 4.f}));
        },
        ErrorKind::kInvalidArgument));
}

TEST(States, IndependentBetweenRequests) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kStates);
    const CompiledModel compiled = compile(stateful_model().model);
    InferRequest first = compiled.create_infer_request(), second = compiled.create_infer_request();
    const auto a = make_values(3, 5), b = make_values(3, 6);
    first.set_tensor("x", make_tensor({1, 3}, a));
    first.infer();
    first.infer();
    second.set_tensor("x", make_tensor({1, 3}, b));
    second.infer();
    EXPECT_TRUE(values_near(to_vector(first.get_tensor("acc_out")), plus(a, a)));
    EXPECT_TRUE(values_near(to_vector(second.get_tensor("acc_out")), b))
        << "the second request saw the first's state";
    EXPECT_TRUE(values_near(to_vector(second.query_state()[0].get_state()), b));
}

TEST(Remote, ContextsAndRemoteTensors) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kRemoteTensors);
    RemoteContext context = core().get_default_context(device_name());
    EXPECT_EQ(context.get_device_name().substr(0, device_base_name().size()), device_base_name());
    Tensor remote = context.create_tensor(element::f32, {2, 3});
    EXPECT_TRUE(remote.is_remote());
    EXPECT_EQ(remote.data(), nullptr);
    EXPECT_EQ(remote.get_shape(), Shape({2, 3}));
    const auto values = make_values(6, 1);
    Tensor host = make_tensor({2, 3}, values);
    host.copy_to(remote);
    Tensor back(element::f32, {2, 3});
    remote.copy_to(back);
    EXPECT_EQ(to_vector(back), values) << "host -> remote -> host changed the values";
    Tensor staging = context.create_host_tensor(element::f32, {2, 3});
    EXPECT_FALSE(staging.is_remote());
    EXPECT_NE(staging.data(), nullptr);
}

TEST(Remote, RemoteTensorsAsInputAndOutput) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kRemoteTensors);
    ReferenceModel m = elementwise_model();
    RemoteContext context = core().get_default_context(device_name());
    const CompiledModel compiled = core().compile_model(m.model, context);
    InferRequest request = compiled.create_infer_request();
    const auto x = make_values(24, 1), y = make_values(24, 2);
    Tensor remote_x = context.create_tensor(element::f32, {2, 3, 4});
    make_tensor({2, 3, 4}, x).copy_to(remote_x);
    Tensor remote_z = context.create_tensor(element::f32, {2, 3, 4});
    request.set_tensor("x", remote_x);
    request.set_tensor("y", make_tensor({2, 3, 4}, y));
    request.set_tensor("z", remote_z);
    request.infer();
    EXPECT_TRUE(values_near(to_vector(remote_z), m.reference({x, y})[0]));
    EXPECT_TRUE(values_near(to_vector(request.get_tensor("z")), m.reference({x, y})[0]));
}

}  // namespace vireo::conformance
