// HETERO affinity and splitting over PARTIAL (five ops) and TEMPLATE: which ops move, how many
// parts, cycles, unused and pass-through Parameters, manual affinity, per-device properties and
// the runtime model; values against plain loops.
#include <algorithm>
#include <map>
#include <set>

#include "test_utils.hpp"
#include "vireo/hetero/properties.hpp"

namespace {
using namespace vireo;
using namespace hetero_test;

NodePtr named(NodePtr node, const std::string& name) {
    node->set_friendly_name(name);
    return node;
}

// x -> add(+0.5) -> sigmoid -> multiply(*2) -> relu; PARTIAL runs all but sigmoid.
std::shared_ptr<Model> chain_model() {
    auto x = op::parameter(element::f32, {1, 8}, "x");
    auto a = named(op::add(x, op::constant<float>(element::f32, {1}, {0.5f})), "add");
    auto s = named(op::sigmoid(a), "sigmoid");
    auto m = named(op::multiply(s, op::constant<float>(element::f32, {1}, {2.f})), "mul");
    auto r = named(op::relu(m), "relu");
    return std::make_shared<Model>(OutputVector{r}, ParameterVector{x}, "chain");
}

std::vector<float> chain_expected(const Tensor& x) {
    std::vector<float> out;
    for (float v : values_of(x)) out.push_back(std::max(0.f, 2.f * sigmoid(v + 0.5f)));
    return out;
}

uint32_t parts_of(const CompiledModel& compiled) {
    return compiled.get_property(vireo::hetero::number_of_submodels);
}

TEST(HeteroSplit, QueryMovesExactlyTheUnsupportedOp) {
    Core core = make_core();
    auto model = chain_model();
    const auto ops = core.query_model(model, "HETERO:PARTIAL,TEMPLATE");
    EXPECT_EQ(ops.at("add"), "PARTIAL");
    EXPECT_EQ(ops.at("sigmoid"), "TEMPLATE");
    EXPECT_EQ(ops.at("mul"), "PARTIAL");
    EXPECT_EQ(ops.at("relu"), "PARTIAL");
}

TEST(HeteroSplit, ChainRunsInThreePartsWithTemplateValues) {
    Core core = make_core();
    auto model = chain_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:PARTIAL,TEMPLATE");
    EXPECT_EQ(parts_of(compiled), 3u);  // PARTIAL | TEMPLATE | PARTIAL
    EXPECT_EQ(compiled.get_property(execution_devices),
              (std::vector<std::string>{"PARTIAL", "TEMPLATE"}));
    InferRequest request = compiled.create_infer_request();
    const Tensor x = make_input({1, 8}, -2.f, 0.5f);
    request.set_input_tensor(x);
    request.infer();
    expect_near(values_of(request.get_output_tensor()), chain_expected(x));

    // The same model on plain TEMPLATE gives the same values.
    InferRequest plain = core.compile_model(model, "TEMPLATE").create_infer_request();
    plain.set_input_tensor(x);
    plain.infer();
    expect_near(values_of(request.get_output_tensor()), values_of(plain.get_output_tensor()));
}

TEST(HeteroSplit, PriorityOrderDecides) {
    Core core = make_core();
    auto model = chain_model();
    const auto ops = core.query_model(model, "HETERO:TEMPLATE,PARTIAL");
    for (const char* name : {"add", "sigmoid", "mul", "relu"})
        EXPECT_EQ(ops.at(name), "TEMPLATE") << name;
    CompiledModel compiled = core.compile_model(model, "HETERO:TEMPLATE,PARTIAL");
    EXPECT_EQ(parts_of(compiled), 1u);
    EXPECT_EQ(compiled.get_property(execution_devices), std::vector<std::string>{"TEMPLATE"});
}

TEST(HeteroSplit, PrioritiesAsProperty) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(chain_model(), "HETERO",
                                                {{device::priorities.name(), "PARTIAL,TEMPLATE"}});
    EXPECT_EQ(parts_of(compiled), 3u);
}

TEST(HeteroSplit, ManualAffinityOverridesQuery) {
    Core core = make_core();
    auto model = chain_model();
    for (const auto& node : model->get_ordered_ops())
        if (node->get_friendly_name() == "mul" || node->get_friendly_name() == "relu")
            node->get_rt_info()["affinity"] = "TEMPLATE";
    const auto ops = core.query_model(model, "HETERO:PARTIAL,TEMPLATE");
    EXPECT_EQ(ops.at("add"), "PARTIAL");
    EXPECT_EQ(ops.at("mul"), "TEMPLATE");
    EXPECT_EQ(ops.at("relu"), "TEMPLATE");
    CompiledModel compiled = core.compile_model(model, "HETERO:PARTIAL,TEMPLATE");
    EXPECT_EQ(parts_of(compiled), 2u);  // add | sigmoid, mul, relu
    InferRequest request = compiled.create_infer_request();
    const Tensor x = make_input({1, 8}, -1.f, 0.25f);
    request.set_input_tensor(x);
    request.infer();
    expect_near(values_of(request.get_output_tensor()), chain_expected(x));
}

// a = relu(x) [PARTIAL]; b = sigmoid(a) [TEMPLATE]; c = add(a, b) [PARTIAL]. c cannot join a's
// part (b depends on it and c depends on b): three parts.
TEST(HeteroSplit, CycleFormingSplitIsBroken) {
    Core core = make_core();
    auto x = op::parameter(element::f32, {2, 3}, "x");
    auto a = named(op::relu(x), "a");
    auto b = named(op::sigmoid(a), "b");
    auto c = named(op::add(a, b), "c");
    auto model = std::make_shared<Model>(OutputVector{c}, ParameterVector{x}, "cycle");
    CompiledModel compiled = core.compile_model(model, "HETERO:PARTIAL,TEMPLATE");
    EXPECT_EQ(parts_of(compiled), 3u);
    InferRequest request = compiled.create_infer_request();
    const Tensor input = make_input({2, 3}, -1.5f, 0.6f);
    request.set_input_tensor(input);
    request.infer();
    std::vector<float> expected;
    for (float v : values_of(input)) {
        const float r = std::max(0.f, v);
        expected.push_back(r + sigmoid(r));
    }
    expect_near(values_of(request.get_output_tensor()), expected);
}

// Two branches of one device from one Parameter, joined on that device: one part, not two.
TEST(HeteroSplit, BranchesOfOneDeviceMerge) {
    Core core = make_core();
    auto x = op::parameter(element::f32, {4}, "x");
    auto r = named(op::relu(x), "r");
    auto m = named(op::multiply(x, x), "m");
    auto s = named(op::add(r, m), "s");
    auto t = named(op::sigmoid(x), "t");  // TEMPLATE, independent
    auto model = std::make_shared<Model>(OutputVector{s, t}, ParameterVector{x}, "branches");
    CompiledModel compiled = core.compile_model(model, "HETERO:PARTIAL,TEMPLATE");
    EXPECT_EQ(parts_of(compiled), 2u);
    InferRequest request = compiled.create_infer_request();
    const Tensor input = make_input({4}, -1.f, 1.f);
    request.set_input_tensor(input);
    request.infer();
    std::vector<float> s_expected, t_expected;
    for (float v : values_of(input)) {
        s_expected.push_back(std::max(0.f, v) + v * v);
        t_expected.push_back(sigmoid(v));
    }
    expect_near(values_of(request.get_output_tensor(0)), s_expected);
    expect_near(values_of(request.get_output_tensor(1)), t_expected);
}

TEST(HeteroSplit, UnusedParameterAndParameterToResult) {
    Core core = make_core();
    auto x = op::parameter(element::f32, {3}, "x");
    auto unused = op::parameter(element::f32, {2}, "unused");
    auto y = named(op::relu(op::sigmoid(x)), "y");
    auto model = std::make_shared<Model>(OutputVector{y, x}, ParameterVector{x, unused}, "edges");
    CompiledModel compiled = core.compile_model(model, "HETERO:PARTIAL,TEMPLATE");
    ASSERT_EQ(compiled.inputs().size(), 2u);
    ASSERT_EQ(compiled.outputs().size(), 2u);
    InferRequest request = compiled.create_infer_request();
    const Tensor input = make_input({3}, -1.f, 1.f);
    request.set_tensor("x", input);
    request.set_tensor("unused", make_input({2}, 7.f, 1.f));
    request.infer();
    std::vector<float> expected;
    for (float v : values_of(input)) expected.push_back(sigmoid(v));
    expect_near(values_of(request.get_output_tensor(0)), expected);
    expect_near(values_of(request.get_output_tensor(1)), values_of(input));  // x passed through
    // And asynchronously (the pass-through is a stage of its own).
    const Tensor second = make_input({3}, 3.f, -2.f);
    request.set_tensor("x", second);
    request.start_async();
    request.wait();
    expect_near(values_of(request.get_output_tensor(1)), values_of(second));
}

// One Parameter feeding ops of both devices, and a model output that a later part also reads.
TEST(HeteroSplit, ParameterFeedsSeveralPartsAndOutputFeedsALaterPart) {
    Core core = make_core();
    auto x = op::parameter(element::f32, {5}, "x");
    auto r = named(op::relu(x), "r");        // PARTIAL, also a model output
    auto s = named(op::sigmoid(x), "s");     // TEMPLATE
    auto sum = named(op::add(r, s), "sum");  // PARTIAL, reads r and s
    auto model = std::make_shared<Model>(OutputVector{sum, r}, ParameterVector{x}, "fanout");
    CompiledModel compiled = core.compile_model(model, "HETERO:PARTIAL,TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    const Tensor input = make_input({5}, -2.f, 1.f);
    request.set_input_tensor(input);
    request.infer();
    std::vector<float> sum_expected, r_expected;
    for (float v : values_of(input)) {
        r_expected.push_back(std::max(0.f, v));
        sum_expected.push_back(std::max(0.f, v) + sigmoid(v));
    }
    expect_near(values_of(request.get_output_tensor(0)), sum_expected);
    expect_near(values_of(request.get_output_tensor(1)), r_expected);
}

TEST(HeteroSplit, PerDeviceProperties) {
    Core core = make_core();
    AnyMap per_device{{"PARTIAL", AnyMap{{"PARTIAL_DEVICE_TIME_US", "123"}}},
                      {"TEMPLATE", AnyMap{{enable_profiling.name(), true}}}};
    CompiledModel compiled = core.compile_model(chain_model(), "HETERO:PARTIAL,TEMPLATE",
                                                {{device::properties.name(), per_device}});
    const AnyMap reported = compiled.get_property(device::properties.name()).as<AnyMap>();
    EXPECT_EQ(reported.at("PARTIAL").as<AnyMap>().at("PARTIAL_DEVICE_TIME_US").to_string(), "123");
    EXPECT_EQ(reported.at("TEMPLATE").as<AnyMap>().at(enable_profiling.name()).as<bool>(), true);
    EXPECT_EQ(reported.at("PARTIAL").as<AnyMap>().at(enable_profiling.name()).as<bool>(), false);

    // The same as text (as plugins.xml or a command line gives it).
    CompiledModel from_text =
        core.compile_model(chain_model(), "HETERO:PARTIAL,TEMPLATE",
                           {{device::properties.name(), "{PARTIAL:{PARTIAL_DEVICE_TIME_US:7}}"}});
    EXPECT_EQ(from_text.get_property(device::properties.name())
                  .as<AnyMap>()
                  .at("PARTIAL")
                  .as<AnyMap>()
                  .at("PARTIAL_DEVICE_TIME_US")
                  .to_string(),
              "7");
}

TEST(HeteroSplit, ProfilingRowsNameTheirDevice) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(chain_model(), "HETERO:PARTIAL,TEMPLATE",
                                                {{enable_profiling.name(), true}});
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(make_input({1, 8}, 0.f, 1.f));
    request.infer();
    std::map<std::string, std::string> op_device;
    for (const auto& row : request.get_profiling_info())
        if (row.node_type != "Stage")
            op_device[row.node_name] = row.exec_type.substr(0, row.exec_type.find(':'));
    EXPECT_EQ(op_device["add"], "PARTIAL");
    EXPECT_EQ(op_device["sigmoid"], "TEMPLATE");
    EXPECT_EQ(op_device["relu"], "PARTIAL");
}

TEST(HeteroSplit, RuntimeModelHasEveryOpOnceWithItsDevice) {
    Core core = make_core();
    auto model = chain_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:PARTIAL,TEMPLATE");
    auto runtime = compiled.get_runtime_model();
    std::multiset<std::string> original, seen;
    for (const auto& node : model->get_ordered_ops()) original.insert(node->get_friendly_name());
    std::map<std::string, std::string> device;
    std::map<std::string, int64_t> order;
    for (const auto& node : runtime->get_ordered_ops()) {
        seen.insert(node->get_friendly_name());
        device[node->get_friendly_name()] = node->get_rt_info().at("execution_device").to_string();
        order[node->get_friendly_name()] = node->get_rt_info().at("execOrder").as<int64_t>();
    }
    EXPECT_EQ(seen, original);
    EXPECT_EQ(device["add"], "PARTIAL");
    EXPECT_EQ(device["sigmoid"], "TEMPLATE");
    EXPECT_EQ(device["mul"], "PARTIAL");
    EXPECT_LT(order["add"], order["sigmoid"]);
    EXPECT_LT(order["sigmoid"], order["mul"]);
    EXPECT_LT(order["mul"], order["relu"]);
}

TEST(HeteroSplit, OpNoDeviceRunsIsNamed) {
    Core core = make_core();
    const std::string message = error_of(
        [&] { core.compile_model(chain_model(), "HETERO:PARTIAL"); }, ErrorKind::kNotImplemented);
    EXPECT_NE(message.find("Sigmoid 'sigmoid'"), std::string::npos) << message;
    EXPECT_NE(message.find("PARTIAL"), std::string::npos) << message;
}

TEST(HeteroSplit, ManualAffinityOutsideTheListIsRefused) {
    Core core = make_core();
    auto model = chain_model();
    model->get_ordered_ops()[2]->get_rt_info()["affinity"] = "MOCK_REMOTE";
    const std::string message = error_of(
        [&] { core.compile_model(model, "HETERO:PARTIAL,TEMPLATE"); }, ErrorKind::kInvalidArgument);
    EXPECT_NE(message.find("MOCK_REMOTE"), std::string::npos) << message;
}

TEST(HeteroSplit, CompiledModelOutlivesTheCore) {
    CompiledModel compiled;
    {
        Core core = make_core();
        compiled = core.compile_model(chain_model(), "HETERO:PARTIAL,TEMPLATE");
    }
    InferRequest request = compiled.create_infer_request();
    const Tensor x = make_input({1, 8}, 1.f, -0.5f);
    request.set_input_tensor(x);
    request.infer();
    expect_near(values_of(request.get_output_tensor()), chain_expected(x));
}

}  // namespace

namespace {
using namespace vireo;
using namespace hetero_test;

// A dynamic batch through a cut: relu [PARTIAL] -> sigmoid [TEMPLATE] -> add [PARTIAL]; both
// devices take dynamic shapes, and the shape changes between inferences.
TEST(HeteroSplit, DynamicShapesThroughCuts) {
    Core core = make_core();
    auto x = op::parameter(element::f32, PartialShape{Dimension::dynamic(), 3}, "x");
    auto r = op::relu(x);
    auto s = op::sigmoid(r);
    auto a = op::add(s, op::constant<float>(element::f32, {1}, {1.f}));
    auto model = std::make_shared<Model>(OutputVector{a}, ParameterVector{x}, "dynamic");
    CompiledModel compiled = core.compile_model(model, "HETERO:PARTIAL,TEMPLATE");
    EXPECT_EQ(compiled.get_property(vireo::hetero::number_of_submodels), 3u);
    InferRequest request = compiled.create_infer_request();
    for (size_t batch : {2u, 5u, 1u}) {
        const Tensor input = make_input({batch, 3}, -1.f, 0.3f);
        request.set_input_tensor(input);
        request.infer();
        const Tensor out = request.get_output_tensor();
        ASSERT_EQ(out.get_shape(), (Shape{batch, 3}));
        std::vector<float> expected;
        for (float v : values_of(input)) expected.push_back(sigmoid(std::max(0.f, v)) + 1.f);
        expect_near(values_of(out), expected);
    }
}

}  // namespace
