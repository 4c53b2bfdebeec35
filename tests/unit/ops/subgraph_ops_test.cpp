// Shape and type inference of the sub-graph ops If-8 and Loop-5: outputs from the body Results,
// branches of different shapes, static and dynamic iteration counts, port-map errors that name
// the node, and deep copies of bodies by clone.
#include "ops_test_utils.hpp"
#include "vireo/model.hpp"

namespace vireo::test {
namespace {

// A body of one Parameter of `shape` whose Result is Parameter + 1.
std::shared_ptr<Model> plus_one_body(const std::string& shape) {
    auto x = param(shape);
    auto y = op::add(x, op::constant<float>(element::f32, {}, {1.f}));
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "plus_one");
}

// A body taking [?] f32 and returning its concatenation with itself (a different shape).
std::shared_ptr<Model> doubling_body() {
    auto x = param("?");
    auto y = make_node("Concat", {x, x}, {{"axis", int64_t{0}}});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "doubling");
}

TEST(If, OutputsMergeBothBranchesUnlessTheConditionIsConstant) {
    auto cond = param("", element::boolean);
    auto x = param("2,3");
    auto then_b = plus_one_body("2,3");
    auto concat_x = param("2,3");
    auto wide = make_node("Concat", {concat_x, concat_x}, {{"axis", int64_t{1}}});
    auto else_b = std::make_shared<Model>(OutputVector{wide}, ParameterVector{concat_x});
    auto node = op::if_op(cond, {x}, then_b, else_b);
    ASSERT_EQ(node->get_output_size(), 1u);
    EXPECT_EQ(shape_of(node), "[2,3..6]");
    EXPECT_EQ(node->get_output_element_type(0), element::f32);
    EXPECT_EQ(node->get_attribute<std::vector<int64_t>>("then_inputs"), (std::vector<int64_t>{1}));

    auto taken_else = op::if_op(op::constant<int>(element::boolean, {}, {0}), {x}, then_b->clone(),
                                else_b->clone());
    EXPECT_EQ(shape_of(taken_else), "[2,6]");
    auto taken_then = op::if_op(op::constant<int>(element::boolean, {}, {1}), {x}, then_b->clone(),
                                else_b->clone());
    EXPECT_EQ(shape_of(taken_then), "[2,3]");

    // Different ranks give a dynamic rank.
    auto s = param("2");
    auto else_rank = std::make_shared<Model>(OutputVector{op::add(s, s)}, ParameterVector{s});
    EXPECT_EQ(shape_of(op::if_op(cond, {x}, then_b->clone(), else_rank)), "[...]");
}

TEST(If, PortMapErrorsNameTheNodeAndAttribute) {
    auto cond = param("", element::boolean);
    auto x = param("2,3");
    expect_invalid(
        [&] {
            op::if_op(cond, {x}, plus_one_body("2,3"), plus_one_body("2,3"), {{2}, {}, {}, {}});
        },
        {"If '", "then_inputs", "input 2"});
    expect_invalid(
        [&] {
            op::if_op(cond, {x}, plus_one_body("2,3"), plus_one_body("2,3"), {{}, {}, {0}, {0, 0}});
        },
        {"If '", "then_outputs has 1", "else_outputs has 2"});
    expect_invalid([&] { op::if_op(param(""), {x}, plus_one_body("2,3"), plus_one_body("2,3")); },
                   {"If '", "cond", "boolean"});
    expect_invalid(
        [&] {
            op::if_op(cond, {param("2,3", element::i32)}, plus_one_body("2,3"),
                      plus_one_body("2,3"));
        },
        {"If '", "body Parameter 0 is f32", "i32"});
    expect_invalid(
        [&] {
            make_node("If", {cond, x}, {}, {plus_one_body("2,3")});
        },
        {"If '", "no else body"});
}

// Body: (i, acc [1,2]) -> (acc + i as f32 [1,2] carried, acc [1,2] concatenated), condition Result
// optional.
std::shared_ptr<Model> accumulate_body(bool with_condition) {
    auto i = param("", element::i64);
    auto acc = param("1,2");
    auto next = op::add(acc, make_node("Convert", {i}, {{"destination_type", element::f32}}));
    OutputVector outs{next, acc};
    if (with_condition) outs.push_back(make_node("Less", {i, op::int64_scalar(5)}));
    return std::make_shared<Model>(outs, ParameterVector{i, acc}, "accumulate");
}

TEST(Loop, ConcatenatedOutputsAreStaticOnlyForAKnownIterationCount) {
    auto init = param("1,2");
    op::LoopPorts ports;
    ports.current_iteration_input_idx = 0;
    ports.back_edges = {-1, 0};
    ports.output_slicing = {-1, 0, 1, -1, 1, 0, 0, 1, -1, 1};
    auto fixed = op::loop(op::int64_scalar(4), op::constant<int>(element::boolean, {}, {1}), {init},
                          accumulate_body(false), ports);
    ASSERT_EQ(fixed->get_output_size(), 2u);
    EXPECT_EQ(fixed->get_attribute<std::vector<int64_t>>("input_ports"),
              (std::vector<int64_t>{-1, 2}));
    EXPECT_EQ(shape_of(fixed, 0), "[1,2]");
    EXPECT_EQ(shape_of(fixed, 1), "[4,2]");

    // A condition computed by the body can end the loop early.
    ports.body_condition_output_idx = 2;
    auto early = op::loop(op::int64_scalar(4), op::constant<int>(element::boolean, {}, {1}), {init},
                          accumulate_body(true), ports);
    EXPECT_EQ(early->get_attribute<std::vector<int64_t>>("output_results"),
              (std::vector<int64_t>{0, 1}));
    EXPECT_EQ(shape_of(early, 1), "[?,2]");
    // So can a run-time trip count; a constant false initial condition gives no iteration.
    ports.body_condition_output_idx = -1;
    EXPECT_EQ(
        shape_of(op::loop(param("", element::i64), op::constant<int>(element::boolean, {}, {1}),
                          {init}, accumulate_body(false), ports),
                 1),
        "[?,2]");
    EXPECT_EQ(
        shape_of(op::loop(param("", element::i64), op::constant<int>(element::boolean, {}, {0}),
                          {init}, accumulate_body(false), ports),
                 1),
        "[0,2]");
}

TEST(Loop, ACarriedValueThatGrowsCoversItsInitialShape) {
    // acc [?, 2] starts as [0, 2] and each iteration appends a row (a body Result of [?, 2] only
    // because its Parameter is [?, 2]): with a run-time trip count the final value may be the
    // initial one, so its shape covers [0, 2]; with no iteration it is exactly that. It was the
    // body Result's shape alone (an exporter declaring the Parameter [0, 2] made it [1, 2]).
    auto acc = param("?,2");
    auto grown = make_node("Concat", {acc, op::constant<float>(element::f32, {1, 2}, {1.f, 2.f})},
                           {{"axis", int64_t{0}}});
    auto body = std::make_shared<Model>(OutputVector{grown}, ParameterVector{acc}, "append");
    op::LoopPorts ports;
    ports.back_edges = {0};
    auto init = op::constant<float>(element::f32, {0, 2}, {});
    const auto run_time = op::loop(
        param("", element::i64), op::constant<int>(element::boolean, {}, {1}), {init}, body, ports);
    EXPECT_EQ(shape_of(run_time, 0), "[?,2]");
    const auto none = op::loop(op::int64_scalar(0), op::constant<int>(element::boolean, {}, {1}),
                               {init}, body, ports);
    EXPECT_EQ(shape_of(none, 0), "[0,2]");
    // A body that keeps the shape keeps it static.
    ports.output_slicing = {};
    EXPECT_EQ(
        shape_of(op::loop(param("", element::i64), op::constant<int>(element::boolean, {}, {1}),
                          {param("1,2")}, plus_one_body("1,2"), ports),
                 0),
        "[1,2]");
}

TEST(Loop, PortMapErrorsNameTheNodeAndAttribute) {
    auto init = param("1,2");
    auto yes = op::constant<int>(element::boolean, {}, {1});
    op::LoopPorts ports;
    ports.current_iteration_input_idx = 0;
    ports.back_edges = {-1, 7};
    expect_invalid(
        [&] { op::loop(op::int64_scalar(2), yes, {init}, accumulate_body(false), ports); },
        {"Loop '", "back_edges", "Result 7"});
    ports.back_edges = {};
    ports.input_slicing = {0, 0, 1};
    expect_invalid(
        [&] { op::loop(op::int64_scalar(2), yes, {init}, accumulate_body(false), ports); },
        {"Loop '", "input_slicing", "got 3"});
    ports.input_slicing = {};
    ports.current_iteration_input_idx = -1;
    ports.input_ports = {0, -1};
    expect_invalid(
        [&] {
            op::loop(op::int64_scalar(2), yes, {init, init}, accumulate_body(false), ports);
        },
        {"Loop '", "body Parameter 1", "no input"});
    ports.input_ports = {};
    ports.current_iteration_input_idx = 0;
    expect_invalid(
        [&] { op::loop(op::int64_scalar(2), param(""), {init}, accumulate_body(false), ports); },
        {"Loop '", "execution_condition", "boolean"});
}

TEST(SubgraphOps, CloneDeepCopiesBodies) {
    auto cond = param("", element::boolean);
    auto x = param("?");
    auto node = op::if_op(cond, {x}, plus_one_body("?"), doubling_body());
    auto model = std::make_shared<Model>(OutputVector{node}, ParameterVector{cond, x});
    auto copy = model->clone();
    const Node* copied_if = copy->output(0).get_node()->input_value(0).get_node();
    ASSERT_EQ(copied_if->get_type_name(), "If");
    ASSERT_EQ(copied_if->get_bodies().size(), 2u);
    for (size_t b = 0; b < 2; ++b) {
        EXPECT_NE(copied_if->get_bodies()[b], node->get_bodies()[b]);
        EXPECT_NE(copied_if->get_bodies()[b]->get_parameters()[0],
                  node->get_bodies()[b]->get_parameters()[0]);
        EXPECT_EQ(copied_if->get_bodies()[b]->get_ordered_ops().size(),
                  node->get_bodies()[b]->get_ordered_ops().size());
    }
    // Reshaping the copy's body leaves the original's alone.
    copied_if->get_bodies()[1]->reshape(PartialShape{3});
    EXPECT_EQ(node->get_bodies()[1]->output(0).get_partial_shape().to_string(), "[?]");
    EXPECT_EQ(copied_if->get_bodies()[1]->output(0).get_partial_shape().to_string(), "[6]");
    auto again = node->clone_with_new_inputs({cond, x});
    EXPECT_NE(again->get_bodies()[0], node->get_bodies()[0]);
    EXPECT_EQ(shape_of(again), "[?]");
}

}  // namespace
}  // namespace vireo::test
