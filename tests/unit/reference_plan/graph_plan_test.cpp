// Tests of the SDK's graph plan: values and steps, liveness ranges and arena offsets on a chain
// and a diamond (expected offsets worked out by hand from the planner's rules), slots of a
// dynamic plan, shapes re-inferred at run time, the cancel check between steps, per-op timing
// rows and the default hooks.
#include "vireo/reference/graph_plan.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>

#include "vireo/exception.hpp"
#include "vireo/ops.hpp"
#include "vireo/reference/plan_runner.hpp"

namespace vireo {
namespace {

using reference::GraphPlan;
using reference::PlanRunner;
using reference::StepTiming;
using reference::ValueKind;

// f32 [16] = 64 bytes: one alignment unit of the arena, so offsets are multiples of 64.
constexpr size_t kElems = 16;

// x -> Relu a -> Relu b -> Relu c -> Result.
std::shared_ptr<Model> chain(const PartialShape& shape) {
    auto x = op::parameter(element::f32, shape, "x");
    auto a = op::relu(x);
    auto b = op::relu(a);
    auto c = op::relu(b);
    return std::make_shared<Model>(OutputVector{c}, ParameterVector{x}, "chain");
}

size_t value_of(const GraphPlan& plan, const NodePtr& node) {
    const long s = plan.step_of(node.get());
    EXPECT_GE(s, 0) << node->describe();
    return plan.steps().at(static_cast<size_t>(s)).outputs.at(0);
}

std::vector<float> ramp(size_t n) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) - static_cast<float>(n) / 2;
    return v;
}

Tensor tensor_of(const Shape& shape, const std::vector<float>& values) {
    Tensor t(element::f32, shape);
    for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
    return t;
}

TEST(GraphPlan, ChainLivenessAndArenaReuse) {
    auto model = chain(PartialShape{kElems});
    const GraphPlan plan(model, {"TEST", true});
    ASSERT_FALSE(plan.is_dynamic());
    ASSERT_EQ(plan.steps().size(), 3u);
    ASSERT_EQ(plan.values().size(), 4u);  // x, a, b, c
    const size_t x = plan.parameter_values().at(0);
    EXPECT_EQ(plan.values()[x].kind, ValueKind::kParameter);
    // Steps in order: each reads the previous value, writes the next.
    std::vector<size_t> ids{x};
    for (size_t s = 0; s < 3; ++s) {
        const auto& step = plan.steps()[s];
        EXPECT_EQ(step.kind, reference::StepKind::kKernel);
        ASSERT_TRUE(step.kernel);
        ASSERT_EQ(step.inputs.size(), 1u);
        EXPECT_EQ(step.inputs[0], ids.back());
        ASSERT_EQ(step.outputs.size(), 1u);
        ids.push_back(step.outputs[0]);
        EXPECT_EQ(plan.values()[ids.back()].producer, s);
    }
    EXPECT_EQ(plan.result_values().at(0), ids[3]);
    // Liveness [first, last]: x [0,0], a [0,1], b [1,2], c [2,3] (3 = read after the last step).
    const size_t first[] = {0, 0, 1, 2}, last[] = {0, 1, 2, 3};
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(plan.values()[ids[i]].first, first[i]) << i;
        EXPECT_EQ(plan.values()[ids[i]].last, last[i]) << i;
        EXPECT_EQ(plan.values()[ids[i]].bytes, 64u) << i;
    }
    // By hand: x at 0; a overlaps x -> 64; b overlaps only a -> the gap at 0; c overlaps only
    // b -> 64. Two buffers of 64 bytes instead of four.
    const size_t offset[] = {0, 64, 0, 64};
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(plan.values()[ids[i]].offset, offset[i]) << i;
    EXPECT_EQ(plan.arena_bytes(), 128u);
}

TEST(GraphPlan, DiamondLivenessAndArenaReuse) {
    auto x = op::parameter(element::f32, PartialShape{kElems}, "x");
    auto a = op::relu(x);
    auto b = op::relu(a);
    auto c = op::sigmoid(a);
    auto d = op::add(b, c);
    auto model = std::make_shared<Model>(OutputVector{d}, ParameterVector{x}, "diamond");
    const GraphPlan plan(model, {"TEST", true});
    ASSERT_EQ(plan.steps().size(), 4u);
    ASSERT_EQ(plan.step_of(a.get()), 0);
    ASSERT_EQ(plan.step_of(d.get()), 3);
    const bool b_first = plan.step_of(b.get()) == 1;
    const size_t vx = plan.parameter_values()[0], va = value_of(plan, a), vb = value_of(plan, b),
                 vc = value_of(plan, c), vd = value_of(plan, d);
    const size_t sb = b_first ? 1 : 2, sc = b_first ? 2 : 1;
    // a is read by steps 1 and 2; b and c by step 3; d after the last step (4).
    EXPECT_EQ(plan.values()[va].first, 0u);
    EXPECT_EQ(plan.values()[va].last, 2u);
    EXPECT_EQ(plan.values()[vb].first, sb);
    EXPECT_EQ(plan.values()[vb].last, 3u);
    EXPECT_EQ(plan.values()[vc].first, sc);
    EXPECT_EQ(plan.values()[vc].last, 3u);
    EXPECT_EQ(plan.values()[vd].first, 3u);
    EXPECT_EQ(plan.values()[vd].last, 4u);
    // By hand (ids in order x, a, first branch, second branch, d; all 64 bytes): x 0; a 64; the
    // first branch overlaps only a -> 0; the second overlaps a and the first -> 128; d overlaps
    // both branches but not a -> a's 64. Three buffers for five values.
    const size_t first_branch = b_first ? vb : vc, second_branch = b_first ? vc : vb;
    EXPECT_EQ(plan.values()[vx].offset, 0u);
    EXPECT_EQ(plan.values()[va].offset, 64u);
    EXPECT_EQ(plan.values()[first_branch].offset, 0u);
    EXPECT_EQ(plan.values()[second_branch].offset, 128u);
    EXPECT_EQ(plan.values()[vd].offset, 64u);
    EXPECT_EQ(plan.arena_bytes(), 192u);

    // And it computes: d = relu(relu(x)) + sigmoid(relu(x)).
    PlanRunner runner(std::make_shared<const GraphPlan>(model, reference::GraphPlanOptions{}),
                      nullptr);
    const auto in = ramp(kElems);
    Tensor out(element::f32, Shape{kElems});
    runner.bind_input(0, tensor_of(Shape{kElems}, in));
    runner.bind_output(0, out);
    runner.run({}, nullptr);
    runner.finish();
    for (size_t i = 0; i < kElems; ++i) {
        const float r = in[i] > 0 ? in[i] : 0.0f;
        EXPECT_NEAR(out.data<float>()[i], r + 1.0f / (1.0f + std::exp(-r)), 1e-6f) << i;
    }
    EXPECT_TRUE(runner.output_in_place(0));
}

TEST(GraphPlan, WithoutMemoryPlanLeavesPlacementToThePlugin) {
    const GraphPlan plan(chain(PartialShape{kElems}), {"TEST", false});
    EXPECT_EQ(plan.arena_bytes(), 0u);
    for (const auto& v : plan.values()) {
        EXPECT_EQ(v.offset, 0u);
        EXPECT_EQ(v.bytes, 64u);  // still known, for the plugin's own buffers
    }
}

TEST(GraphPlan, DynamicPlanUsesSlotsAndReinfersShapesAtRunTime) {
    auto model = chain(PartialShape{Dimension::dynamic(), 2});
    auto plan = std::make_shared<const GraphPlan>(model, reference::GraphPlanOptions{"TEST", true});
    ASSERT_TRUE(plan->is_dynamic());
    // Slots by hand: a [0,1] slot 0; b [1,2] overlaps a -> slot 1; c [2,3] after a -> slot 0.
    std::vector<size_t> ids;
    for (const auto& step : plan->steps()) ids.push_back(step.outputs[0]);
    EXPECT_EQ(plan->values()[ids[0]].slot, 0u);
    EXPECT_EQ(plan->values()[ids[1]].slot, 1u);
    EXPECT_EQ(plan->values()[ids[2]].slot, 0u);
    EXPECT_EQ(plan->slot_count(), 2u);

    size_t allocations = 0;
    PlanRunner runner(plan, [&] { ++allocations; });
    Tensor out(element::f32, Shape{0, 2});  // the request's own tensor: resized by the run
    for (size_t rows : {3u, 20u, 2u}) {
        const auto in = ramp(rows * 2);
        runner.bind_input(0, tensor_of(Shape{rows, 2}, in));
        runner.bind_output(0, out);
        runner.run({}, nullptr);
        runner.finish();
        ASSERT_EQ(out.get_shape(), (Shape{rows, 2})) << rows;
        for (size_t i = 0; i < rows * 2; ++i)
            EXPECT_EQ(out.data<float>()[i], in[i] > 0 ? in[i] : 0.0f) << rows << " " << i;
    }
    // Slots are allocated for 3 rows (a's slot 0 and b's slot 1, 24 bytes rounded up to 64; c
    // is written into `out`), grow for 20 rows (160 bytes); 2 rows fit in what is there.
    EXPECT_EQ(allocations, 4u);
}

TEST(GraphPlan, InputsInPlaceOrCopiedAndOutputsOptional) {
    for (bool dynamic : {false, true}) {
        SCOPED_TRACE(dynamic ? "dynamic plan" : "static plan");
        const PartialShape shape =
            dynamic ? PartialShape{Dimension::dynamic()} : PartialShape{kElems};
        PlanRunner runner(std::make_shared<const GraphPlan>(chain(shape)), nullptr);
        Tensor in = tensor_of(Shape{kElems}, std::vector<float>(kElems, 1.0f));
        // In place (the default): the run reads the tensor as it is at run time.
        runner.bind_input(0, in);
        in.data<float>()[0] = 5.0f;
        runner.run({}, nullptr);
        runner.finish();  // no output bound: nothing to copy, no error
        EXPECT_EQ(runner.result(0).data<float>()[0], 5.0f);
        // Copied: the run reads the values the tensor had when it was bound.
        runner.bind_input(0, in, PlanRunner::InputBinding::kCopy);
        in.data<float>()[0] = 7.0f;
        in.data<float>()[1] = -3.0f;
        runner.run({}, nullptr);
        runner.finish();
        EXPECT_EQ(runner.result(0).data<float>()[0], 5.0f);
        EXPECT_EQ(runner.result(0).data<float>()[1], 1.0f);
        EXPECT_FALSE(runner.output_in_place(0));
    }
}

TEST(GraphPlan, CancelCheckStopsBetweenSteps) {
    PlanRunner runner(std::make_shared<const GraphPlan>(chain(PartialShape{kElems})), nullptr);
    runner.bind_input(0, tensor_of(Shape{kElems}, ramp(kElems)));
    runner.bind_output(0, Tensor(element::f32, Shape{kElems}));
    size_t polls = 0;
    std::vector<StepTiming> timings;
    // The third poll (before step 2) asks to stop: steps 0 and 1 ran, step 2 did not.
    EXPECT_THROW(runner.run([&] { return ++polls == 3; }, &timings), Cancelled);
    EXPECT_EQ(polls, 3u);
    EXPECT_EQ(runner.executed_steps(), 2u);
    ASSERT_EQ(timings.size(), 3u);
    EXPECT_TRUE(timings[0].executed);
    EXPECT_TRUE(timings[1].executed);
    EXPECT_FALSE(timings[2].executed);
    // A run that is not stopped runs all three.
    runner.run([] { return false; }, nullptr);
    EXPECT_EQ(runner.executed_steps(), 3u);
}

TEST(GraphPlan, TimingRowsOnePerStep) {
    auto plan = std::make_shared<const GraphPlan>(chain(PartialShape{kElems}));
    PlanRunner runner(plan, nullptr);
    runner.bind_input(0, tensor_of(Shape{kElems}, ramp(kElems)));
    runner.bind_output(0, Tensor(element::f32, Shape{kElems}));
    std::vector<StepTiming> timings(7);  // resized by the run
    runner.run({}, &timings);
    ASSERT_EQ(timings.size(), plan->steps().size());
    for (const auto& t : timings) {
        EXPECT_TRUE(t.executed);
        EXPECT_GE(t.real.count(), 0);
        EXPECT_GE(t.cpu.count(), 0);
    }
}

TEST(GraphPlan, RunStepsOnCallerPlacedValues) {
    // What MOCK_REMOTE does: no memory plan, one buffer per value owned by the caller.
    const GraphPlan plan(chain(PartialShape{kElems}), {"TEST", false});
    std::vector<Tensor> values;
    for (const auto& v : plan.values()) values.emplace_back(v.type, v.shape.to_shape());
    const auto in = ramp(kElems);
    values[plan.parameter_values()[0]] = tensor_of(Shape{kElems}, in);
    size_t executed = 0;
    std::vector<StepTiming> timings;
    reference::run_steps(plan, values, {}, {}, &timings, &executed);
    EXPECT_EQ(executed, 3u);
    EXPECT_EQ(timings.size(), 3u);
    const Tensor& out = values[plan.result_values()[0]];
    for (size_t i = 0; i < kElems; ++i)
        EXPECT_EQ(out.data<float>()[i], in[i] > 0 ? in[i] : 0.0f) << i;
}

TEST(GraphPlan, VariablesNeedThePluginsHook) {
    // ReadValue/Assign are planned (variable index) but run only by a plugin's hook: the default
    // PlanRunner refuses them naming the node.
    auto x = op::parameter(element::f32, PartialShape{kElems}, "x");
    auto read = op::read_value("v", element::f32, PartialShape{kElems}, x);
    auto sum = op::add(read, x);
    auto assign = op::assign(sum, "v");
    auto model = std::make_shared<Model>(ResultVector{op::result(sum)}, SinkVector{assign},
                                         ParameterVector{x}, "stateful");
    auto plan = std::make_shared<const GraphPlan>(model, reference::GraphPlanOptions{"TEST", true});
    ASSERT_EQ(plan->variables().size(), 1u);
    ASSERT_EQ(plan->assign_steps().size(), 1u);
    EXPECT_EQ(plan->steps()[plan->step_of(read.get())].kind, reference::StepKind::kReadValue);
    PlanRunner runner(plan, nullptr);
    runner.bind_input(0, tensor_of(Shape{kElems}, ramp(kElems)));
    runner.bind_output(0, Tensor(element::f32, Shape{kElems}));
    try {
        runner.run({}, nullptr);
        FAIL() << "expected NotImplemented";
    } catch (const NotImplemented& e) {
        EXPECT_NE(std::string(e.what()).find("TEST"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("ReadValue"), std::string::npos) << e.what();
    }
    EXPECT_EQ(runner.executed_steps(), 0u);
}

}  // namespace
}  // namespace vireo
