// Sub-graph ops on TEMPLATE: Loop (summing, data-dependent early exit, invariant inputs, sliced
// inputs and reversed concatenation, export and import), If with branches of different shapes, If
// nested in a Loop.
// Expected values come from plain loops.
#include <gtest/gtest.h>

#include <sstream>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::template_test {
namespace {

NodePtr f32_scalar(float v) {
    return op::constant<float>(element::f32, Shape{}, {v});
}
NodePtr truth(bool v) {
    return op::constant<int>(element::boolean, Shape{}, {v ? 1 : 0});
}
NodePtr to_f32(const Output& x) {
    return make_node("Convert", {x}, {{"destination_type", element::f32}});
}
NodePtr unsqueeze0(const Output& x) {
    return make_node("Unsqueeze", {x, op::int64_vector({0})});
}

Tensor scalar_i64(int64_t v) {
    Tensor t(element::i64, Shape{});
    *t.data<int64_t>() = v;
    return t;
}
Tensor scalar_f32(float v) {
    Tensor t(element::f32, Shape{});
    *t.data<float>() = v;
    return t;
}
Tensor scalar_bool(bool v) {
    Tensor t(element::boolean, Shape{});
    *static_cast<uint8_t*>(t.data()) = v ? 1 : 0;
    return t;
}

// sum = init + 0 + 1 + ... + (n-1) and the iteration numbers stacked: body (i, acc) -> (acc + i,
// [i]), the second concatenated on axis 0; n is a run-time input.
std::shared_ptr<Model> summing_loop() {
    auto n = op::parameter(element::i64, Shape{}, "n");
    auto init = op::parameter(element::f32, Shape{}, "init");
    auto i = op::parameter(element::i64, Shape{}, "i");
    auto acc = op::parameter(element::f32, Shape{}, "acc");
    auto body =
        std::make_shared<Model>(OutputVector{op::add(acc, to_f32(i)), unsqueeze0(to_f32(i))},
                                ParameterVector{i, acc}, "sum_body");
    op::LoopPorts ports;
    ports.current_iteration_input_idx = 0;
    ports.back_edges = {-1, 0};
    ports.output_slicing = {-1, 0, 1, -1, 1, 0, 0, 1, -1, 1};
    auto loop = op::loop(n, truth(true), {init}, body, ports);
    loop->output(0).set_names({"sum"});
    loop->output(1).set_names({"steps"});
    return std::make_shared<Model>(OutputVector{loop->output(0), loop->output(1)},
                                   ParameterVector{n, init}, "sum");
}

TEST(TemplateSubgraph, LoopSumsForARunTimeTripCount) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(summing_loop(), "TEMPLATE");
    EXPECT_EQ(compiled.output(1).get_partial_shape().to_string(), "[?]");
    InferRequest request = compiled.create_infer_request();
    for (int64_t n : {4, 0, 7, 1}) {
        request.set_tensor("n", scalar_i64(n));
        request.set_tensor("init", scalar_f32(10.f));
        request.infer();
        float expected = 10.f;
        for (int64_t k = 0; k < n; ++k) expected += static_cast<float>(k);
        EXPECT_EQ(*request.get_tensor("sum").data<float>(), expected) << "n=" << n;
        const Tensor steps = request.get_tensor("steps");
        ASSERT_EQ(steps.get_shape(), (Shape{static_cast<size_t>(n)}));
        for (int64_t k = 0; k < n; ++k) EXPECT_EQ(steps.data<float>()[k], static_cast<float>(k));
    }
}

TEST(TemplateSubgraph, ExportedLoopImportsAndRunsTheSame) {
    // The blob holds the transformed model as IR: the Loop's body and port maps go through it.
    Core core = make_core();
    CompiledModel compiled = core.compile_model(summing_loop(), "TEMPLATE");
    std::ostringstream out(std::ios::binary);
    compiled.export_model(out);
    std::istringstream blob(out.str(), std::ios::binary);
    InferRequest request = core.import_model(blob, "TEMPLATE").create_infer_request();
    request.set_tensor("n", scalar_i64(6));
    request.set_tensor("init", scalar_f32(-1.f));
    request.infer();
    EXPECT_EQ(*request.get_tensor("sum").data<float>(), -1.f + 0 + 1 + 2 + 3 + 4 + 5);
    ASSERT_EQ(request.get_tensor("steps").get_shape(), (Shape{6}));
    EXPECT_EQ(request.get_tensor("steps").data<float>()[5], 5.f);
}

TEST(TemplateSubgraph, LoopEndsWhenTheBodyConditionTurnsFalse) {
    // acc doubles while it stays below `limit`; no trip count (-1); also counts its iterations.
    auto x = op::parameter(element::f32, Shape{}, "x");
    auto limit = op::parameter(element::f32, Shape{}, "limit");
    auto acc = op::parameter(element::f32, Shape{}, "acc");
    auto lim = op::parameter(element::f32, Shape{}, "lim");
    auto count = op::parameter(element::i64, Shape{}, "count");
    auto next = op::multiply(acc, f32_scalar(2.f));
    auto body = std::make_shared<Model>(
        OutputVector{next, make_node("Less", {next, lim}), op::add(count, op::int64_scalar(1))},
        ParameterVector{acc, lim, count}, "doubling");
    op::LoopPorts ports;
    ports.body_condition_output_idx = 1;
    ports.back_edges = {0, -1, 2};
    auto loop = op::loop(op::int64_scalar(-1), make_node("Less", {x, limit}),
                         {x, limit, op::int64_scalar(0)}, body, ports);
    ASSERT_EQ(loop->get_output_size(), 2u);
    auto model = std::make_shared<Model>(OutputVector{loop->output(0), loop->output(1)},
                                         ParameterVector{x, limit});
    InferRequest request = make_core().compile_model(model, "TEMPLATE").create_infer_request();
    for (auto [start, stop] :
         std::vector<std::pair<float, float>>{{1.f, 100.f}, {3.f, 3.5f}, {0.75f, 1000.f}}) {
        request.set_input_tensor(0, scalar_f32(start));
        request.set_input_tensor(1, scalar_f32(stop));
        request.infer();
        float value = start;
        int64_t iterations = 0;
        if (value < stop) {
            do {
                value *= 2.f;
                ++iterations;
            } while (value < stop);
        }
        EXPECT_EQ(*request.get_output_tensor(0).data<float>(), value) << start << " " << stop;
        EXPECT_EQ(*request.get_output_tensor(1).data<int64_t>(), iterations)
            << start << " " << stop;
    }
    // A false initial condition runs no iteration: the carried outputs are the initial values.
    request.set_input_tensor(0, scalar_f32(50.f));
    request.set_input_tensor(1, scalar_f32(20.f));
    request.infer();
    EXPECT_EQ(*request.get_output_tensor(0).data<float>(), 50.f);
    EXPECT_EQ(*request.get_output_tensor(1).data<int64_t>(), 0);
}

TEST(TemplateSubgraph, IfRunsBranchesOfDifferentShapes) {
    // then: x concatenated with itself ([2n]); else: -x ([n]).
    auto cond = op::parameter(element::boolean, Shape{}, "cond");
    auto x = op::parameter(element::f32, PartialShape{Dimension::dynamic()}, "x");
    auto tx = op::parameter(element::f32, PartialShape{Dimension::dynamic()});
    auto then_b = std::make_shared<Model>(
        OutputVector{make_node("Concat", {tx, tx}, {{"axis", int64_t{0}}})}, ParameterVector{tx});
    auto ex = op::parameter(element::f32, PartialShape{Dimension::dynamic()});
    auto else_b =
        std::make_shared<Model>(OutputVector{make_node("Negative", {ex})}, ParameterVector{ex});
    auto y = op::if_op(cond, {x}, then_b, else_b);
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{cond, x});
    Core core = make_core();
    const auto supported = core.query_model(model, "TEMPLATE");
    EXPECT_EQ(supported.count(y->get_friendly_name()), 1u);
    InferRequest request = core.compile_model(model, "TEMPLATE").create_infer_request();
    for (size_t n : {3u, 1u, 5u}) {
        for (bool c : {true, false}) {
            Tensor in(element::f32, Shape{n});
            for (size_t i = 0; i < n; ++i) in.data<float>()[i] = 1.5f * static_cast<float>(i) - 2.f;
            request.set_input_tensor(0, scalar_bool(c));
            request.set_input_tensor(1, in);
            request.infer();
            const Tensor out = request.get_output_tensor(0);
            ASSERT_EQ(out.get_shape(), (Shape{c ? 2 * n : n}));
            for (size_t i = 0; i < out.get_size(); ++i) {
                const float v = in.data<float>()[i % n];
                EXPECT_EQ(out.data<float>()[i], c ? v : -v)
                    << "n=" << n << " cond=" << c << " i=" << i;
            }
        }
    }
}

TEST(TemplateSubgraph, LoopBodyReadsAnOuterValueEveryIteration) {
    // acc += w for 5 iterations; w is an outer model input passed to the body unchanged.
    auto w = op::parameter(element::f32, Shape{3}, "w");
    auto init = op::parameter(element::f32, Shape{3}, "init");
    auto acc = op::parameter(element::f32, Shape{3});
    auto captured = op::parameter(element::f32, Shape{3});
    auto body = std::make_shared<Model>(OutputVector{op::add(acc, captured)},
                                        ParameterVector{acc, captured});
    op::LoopPorts ports;
    ports.back_edges = {0, -1};
    auto loop = op::loop(op::int64_scalar(5), truth(true), {init, w}, body, ports);
    EXPECT_EQ(loop->get_output_partial_shape(0).to_string(), "[3]");
    auto model = std::make_shared<Model>(OutputVector{loop}, ParameterVector{w, init});
    InferRequest request = make_core().compile_model(model, "TEMPLATE").create_infer_request();
    Tensor wt(element::f32, Shape{3});
    Tensor it(element::f32, Shape{3});
    for (size_t i = 0; i < 3; ++i) {
        wt.data<float>()[i] = 0.5f + static_cast<float>(i);
        it.data<float>()[i] = -1.f * static_cast<float>(i);
    }
    request.set_input_tensor(0, wt);
    request.set_input_tensor(1, it);
    request.infer();
    for (size_t i = 0; i < 3; ++i) {
        float expected = it.data<float>()[i];
        for (int k = 0; k < 5; ++k) expected += wt.data<float>()[i];
        EXPECT_EQ(request.get_output_tensor(0).data<float>()[i], expected) << i;
    }
}

TEST(TemplateSubgraph, IfNestedInLoopAlternatesBranches) {
    // acc = acc + i for even i, acc - 2i for odd i; i < 6.
    auto init = op::parameter(element::f32, Shape{}, "init");
    auto i = op::parameter(element::i64, Shape{});
    auto acc = op::parameter(element::f32, Shape{});
    auto even =
        make_node("Equal", {make_node("FloorMod", {i, op::int64_scalar(2)}), op::int64_scalar(0)});
    auto ta = op::parameter(element::f32, Shape{});
    auto ti = op::parameter(element::f32, Shape{});
    auto then_b = std::make_shared<Model>(OutputVector{op::add(ta, ti)}, ParameterVector{ta, ti});
    auto ea = op::parameter(element::f32, Shape{});
    auto ei = op::parameter(element::f32, Shape{});
    auto else_b = std::make_shared<Model>(
        OutputVector{op::subtract(ea, op::multiply(ei, f32_scalar(2.f)))}, ParameterVector{ea, ei});
    auto branch = op::if_op(even, {acc, to_f32(i)}, then_b, else_b);
    auto body = std::make_shared<Model>(OutputVector{branch}, ParameterVector{i, acc});
    op::LoopPorts ports;
    ports.current_iteration_input_idx = 0;
    ports.back_edges = {-1, 0};
    auto loop = op::loop(op::int64_scalar(6), truth(true), {init}, body, ports);
    auto model = std::make_shared<Model>(OutputVector{loop}, ParameterVector{init});
    InferRequest request =
        make_core().compile_model(model->clone(), "TEMPLATE").create_infer_request();
    request.set_input_tensor(0, scalar_f32(100.f));
    request.infer();
    float expected = 100.f;
    for (int k = 0; k < 6; ++k)
        expected =
            k % 2 == 0 ? expected + static_cast<float>(k) : expected - 2.f * static_cast<float>(k);
    EXPECT_EQ(*request.get_output_tensor(0).data<float>(), expected);
}

TEST(TemplateSubgraph, LoopSlicesAnInputAndConcatenatesBackwards) {
    // x [4, 2] sliced into rows; running sums of the rows, concatenated in reverse order.
    auto x = op::parameter(element::f32, Shape{4, 2}, "x");
    auto row = op::parameter(element::f32, Shape{1, 2});
    auto acc = op::parameter(element::f32, Shape{1, 2});
    auto sum = op::add(acc, row);
    auto body = std::make_shared<Model>(OutputVector{sum}, ParameterVector{row, acc});
    op::LoopPorts ports;
    ports.input_ports = {2, 3};
    ports.input_slicing = {0, 0, 1, -1, 1, -1, 0, 1, -1, 1};
    ports.back_edges = {-1, 0};
    ports.output_results = {0, 0};
    ports.output_slicing = {-1, 0, 1, -1, 1, 0, -1, -1, 0, 1};
    auto loop = op::loop(op::int64_scalar(4), truth(true),
                         {x, op::constant<float>(element::f32, {1, 2}, {0.f})}, body, ports);
    EXPECT_EQ(loop->get_output_partial_shape(1).to_string(), "[4,2]");
    auto model =
        std::make_shared<Model>(OutputVector{loop->output(0), loop->output(1)}, ParameterVector{x});
    InferRequest request = make_core().compile_model(model, "TEMPLATE").create_infer_request();
    Tensor in(element::f32, Shape{4, 2});
    for (size_t k = 0; k < 8; ++k) in.data<float>()[k] = static_cast<float>(k * k) - 3.f;
    request.set_input_tensor(0, in);
    request.infer();
    std::vector<float> running(8);
    float s0 = 0.f, s1 = 0.f;
    for (size_t r = 0; r < 4; ++r) {
        s0 += in.data<float>()[2 * r];
        s1 += in.data<float>()[2 * r + 1];
        running[2 * (3 - r)] = s0;  // reversed order
        running[2 * (3 - r) + 1] = s1;
    }
    EXPECT_EQ(request.get_output_tensor(0).data<float>()[0], s0);
    EXPECT_EQ(request.get_output_tensor(0).data<float>()[1], s1);
    const Tensor all = request.get_output_tensor(1);
    ASSERT_EQ(all.get_shape(), (Shape{4, 2}));
    for (size_t k = 0; k < 8; ++k) EXPECT_EQ(all.data<float>()[k], running[k]) << k;
}

}  // namespace
}  // namespace vireo::template_test
