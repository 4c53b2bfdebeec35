// Data movement on CPU: Transpose, Reshape, Squeeze, Unsqueeze and unit-step Slice. Copies run as
// one oneDNN reorder (exactly TEMPLATE's bytes), reshapes of computed values are views (no step,
// no copy, the source kept alive while they are read), a scalar scale after a transpose is the
// reorder's output scale, a channel shuffle of channels-last values is one reorder. Values are
// compared exactly where no arithmetic runs: moving data must not change a bit.
#include <gtest/gtest.h>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

using ModelPtr = std::shared_ptr<Model>;

NodePtr i64s(const std::vector<int64_t>& values) {
    return op::constant<int64_t>(element::i64, {values.size()}, values);
}

std::vector<ProfilingInfo> rows_named(const std::vector<ProfilingInfo>& rows,
                                      const std::string& type) {
    std::vector<ProfilingInfo> out;
    for (const auto& r : rows)
        if (r.node_type == type) out.push_back(r);
    return out;
}

TEST(Movement, TransposesAreOneReorderEachAndExact) {
    const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
        {{2, 3, 4, 5}, {0, 2, 3, 1}},
        {{2, 3, 4, 5}, {3, 2, 1, 0}},
        {{3, 4, 5}, {1, 2, 0}},
        {{6, 7}, {1, 0}},
        {{2, 1, 3, 4, 2}, {4, 0, 3, 2, 1}}};
    for (const auto& [shape, order] : cases) {
        auto x = op::parameter(element::f32, PartialShape(shape), "x");
        auto t = op::transpose(op::relu(x), i64s(order));
        auto model = std::make_shared<Model>(OutputVector{t}, ParameterVector{x}, "transpose");
        expect_matches_template(model, 0, 0);
        const auto transposes = rows_named(cpu_profile(model), "Transpose");
        ASSERT_EQ(transposes.size(), 1u) << shape.to_string();
        EXPECT_EQ(transposes[0].status, ProfilingInfo::Status::EXECUTED);
        EXPECT_NE(transposes[0].exec_type, "ref") << shape.to_string();
    }
}

TEST(Movement, ReshapesOfComputedValuesAreViews) {
    auto x = op::parameter(element::f32, {2, 3, 4}, "x");
    auto a = op::relu(x);
    auto r = op::reshape(a, i64s({6, 4}), false);
    auto u = op::unsqueeze(r, i64s({0}));
    auto s = op::squeeze(u, i64s({0}));
    auto unit = op::transpose(op::unsqueeze(s, i64s({1})), i64s({1, 0, 2}));  // moves a 1
    auto y = op::relu(unit);
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "views");
    expect_matches_template(model, 0, 0);
    const auto rows = cpu_profile(model);
    size_t views = 0, executed = 0;
    for (const auto& row : rows) {
        if (row.exec_type == "view") {
            ++views;
            EXPECT_EQ(row.status, ProfilingInfo::Status::OPTIMIZED_OUT) << row.node_name;
        } else {
            ++executed;
            EXPECT_EQ(row.node_type, "Relu") << row.node_name;
        }
    }
    EXPECT_EQ(views, 5u);  // reshape, unsqueeze, squeeze, unsqueeze, transpose of a unit axis
    EXPECT_EQ(executed, 2u);

    Core core = make_core();
    const auto runtime = core.compile_model(model, "CPU").get_runtime_model();
    size_t marked = 0;
    for (const auto& node : runtime->get_ordered_ops())
        if (node->get_rt_info().count("primitiveType") &&
            node->get_rt_info().at("primitiveType").as<std::string>() == "view")
            ++marked;
    EXPECT_EQ(marked, 5u);
}

// The view is read long after the op it views; in between, values as large as its source are
// made and dropped. Without the view keeping its source alive, they would reuse its memory.
TEST(Movement, AViewKeepsItsSourceAlive) {
    auto x = op::parameter(element::f32, {8, 16}, "x");
    auto source = op::relu(x);
    auto view = op::reshape(source, i64s({16, 8}), false);
    Output other = op::multiply(x, x);
    for (int i = 0; i < 4; ++i) other = op::relu(op::add(other, x));  // intermediates die
    auto back = op::reshape(other, i64s({16, 8}), false);
    auto y = op::add(view, back);
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "alive");
    expect_matches_template(model, 0, 0);
    // Two requests, run twice with other inputs: each has its own arena.
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "CPU");
    CompiledModel reference = core.compile_model(model, "TEMPLATE");
    InferRequest a = compiled.create_infer_request(), b = compiled.create_infer_request();
    for (unsigned seed = 10; seed < 12; ++seed) {
        const Tensor in_a = random_tensor({8, 16}, seed), in_b = random_tensor({8, 16}, seed + 5);
        a.set_input_tensor(in_a);
        b.set_input_tensor(in_b);
        a.infer();
        b.infer();
        InferRequest ref = reference.create_infer_request();
        ref.set_input_tensor(in_a);
        ref.infer();
        EXPECT_TRUE(all_close(a.get_output_tensor(), ref.get_output_tensor(), 0, 0));
        ref.set_input_tensor(in_b);
        ref.infer();
        EXPECT_TRUE(all_close(b.get_output_tensor(), ref.get_output_tensor(), 0, 0));
    }
}

// A view may be a model output, next to its source as another output; a reshape of a parameter
// (the application's memory) is a copy, not a view.
TEST(Movement, ViewsAsOutputsAndReshapesOfParameters) {
    auto x = op::parameter(element::f32, {4, 6}, "x");
    auto source = op::relu(x);
    auto as_view = op::reshape(source, i64s({2, 12}), false);
    auto of_parameter = op::reshape(x, i64s({24}), false);
    auto model = std::make_shared<Model>(OutputVector{as_view, source, of_parameter},
                                         ParameterVector{x}, "outputs");
    expect_matches_template(model, 0, 0);
    const auto reshapes = rows_named(cpu_profile(model), "Reshape");
    ASSERT_EQ(reshapes.size(), 2u);
    size_t views = 0;
    for (const auto& r : reshapes) views += r.exec_type == "view";
    EXPECT_EQ(views, 1u);
}

// A view read in another layout (a convolution wants NHWC) is converted by a reorder into a value
// of its own: the reorder must not write over the view's source while reading it.
TEST(Movement, AViewConvertedToAnotherLayoutGetsItsOwnMemory) {
    auto x = op::parameter(element::f32, {1, 8, 6, 6}, "x");
    auto flat = op::reshape(op::relu(x), i64s({1, 8, 36}), false);
    auto view = op::reshape(flat, i64s({1, 8, 6, 6}), false);
    auto w = op::constant(random_tensor({4, 8, 3, 3}, 5, -0.3f, 0.3f));
    auto conv = op::convolution(view, w, {1, 1}, {1, 1}, {1, 1}, {1, 1});
    // The source is read again after the convolution.
    auto y = op::add(op::reduce_sum(conv, i64s({1}), true), op::reduce_sum(view, i64s({1}), true));
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "view_layout");
    expect_matches_template(model, 1e-4, 1e-5);
}

TEST(Movement, UnitStepSlicesAreReordersOthersStayReference) {
    auto x = op::parameter(element::f32, {4, 6, 8}, "x");
    auto a = op::relu(x);
    // Negative start, two axes given out of order, a stop past the end.
    auto unit = op::slice(a, i64s({-5, 1}), i64s({7, 3}), i64s({1, 1}), i64s({2, 0}));
    auto stepped = op::slice(a, i64s({0}), i64s({6}), i64s({2}), i64s({1}));
    auto model = std::make_shared<Model>(OutputVector{unit, stepped}, ParameterVector{x}, "slices");
    expect_matches_template(model, 0, 0);
    const auto slices = rows_named(cpu_profile(model), "Slice");
    ASSERT_EQ(slices.size(), 2u);
    size_t reference = 0;
    for (const auto& r : slices) reference += r.exec_type == "ref";
    EXPECT_EQ(reference, 1u);
}

// conv -> channel shuffle (Reshape [1, g, C/g, H, W] -> Transpose `order` -> Reshape back) ->
// the two channel halves (Slice) -> a conv on one, Concat with the other: ShuffleNet's unit.
ModelPtr shuffle_unit(size_t groups, const std::vector<int64_t>& order) {
    const size_t c = 12, h = 5, w = 6;
    auto x = op::parameter(element::f32, {1, 4, h, w}, "x");
    auto conv = op::relu(op::convolution(x, op::constant(random_tensor({c, 4, 1, 1}, 31)), {1, 1},
                                         {0, 0}, {0, 0}, {1, 1}));
    auto split =
        op::reshape(conv,
                    i64s({1, static_cast<int64_t>(groups), static_cast<int64_t>(c / groups),
                          static_cast<int64_t>(h), static_cast<int64_t>(w)}),
                    false);
    auto shuffled = op::reshape(
        op::transpose(split, i64s(order)),
        i64s({1, static_cast<int64_t>(c), static_cast<int64_t>(h), static_cast<int64_t>(w)}),
        false);
    const auto half = static_cast<int64_t>(c / 2);
    auto kept = op::slice(shuffled, i64s({0}), i64s({half}), i64s({1}), i64s({1}));
    auto branch = op::slice(shuffled, i64s({half}), i64s({2 * half}), i64s({1}), i64s({1}));
    auto y = op::concat(
        {kept, op::relu(op::convolution(branch, op::constant(random_tensor({6, 6, 1, 1}, 32)),
                                        {1, 1}, {0, 0}, {0, 0}, {1, 1}))},
        1);
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "shuffle_unit");
}

TEST(Movement, AChannelShuffleOfChannelsLastValuesIsOneReorderAndSlicesKeepTheLayout) {
    // Three groups of four: the permutation is not its own inverse, so a shuffle the wrong way
    // round gives other values.
    for (const size_t groups : {size_t{2}, size_t{3}, size_t{4}}) {
        const auto model = shuffle_unit(groups, {0, 2, 1, 3, 4});
        expect_matches_template(model, 1e-5, 1e-6);
        const auto rows = cpu_profile(model);
        EXPECT_EQ(rows_named(rows, "ShuffleChannels").size(), 1u) << groups;
        EXPECT_TRUE(rows_named(rows, "Transpose").empty()) << groups;
        // The conv output, the shuffle, both slices and the Concat stay channels-last: the only
        // layout changes are the model's input (to nhwc) and output (to nchw).
        size_t layout_changes = 0;
        for (const auto& r : rows) {
            layout_changes += r.node_type == "Reorder";
            if (r.node_type == "Slice") {
                EXPECT_NE(r.exec_type.find("nhwc"), std::string::npos);
            }
        }
        EXPECT_EQ(layout_changes, 2u) << groups;
    }
    // Another transpose of the split channels is no shuffle: it runs as written.
    const auto other = shuffle_unit(3, {0, 1, 2, 4, 3});
    EXPECT_TRUE(rows_named(cpu_profile(other), "ShuffleChannels").empty());
}

TEST(Movement, AScalarScaleAfterATransposeIsItsOutputScale) {
    auto x = op::parameter(element::f32, {2, 8, 4}, "x");
    auto t = op::transpose(op::relu(x), i64s({1, 0, 2}));
    auto divided = op::divide(t, op::constant<float>(element::f32, {}, {8.f}));
    auto model = std::make_shared<Model>(OutputVector{divided}, ParameterVector{x}, "scale");
    expect_matches_template(model, 0, 0);  // a power of two: exact
    EXPECT_EQ(rows_named(cpu_profile(model), "Transpose+Divide").size(), 1u);

    auto t2 = op::transpose(op::relu(x), i64s({1, 0, 2}));
    auto scaled = op::multiply(op::constant<float>(element::f32, {1, 1, 1}, {0.3f}), t2);
    auto model2 = std::make_shared<Model>(OutputVector{scaled}, ParameterVector{x}, "scale2");
    expect_matches_template(model2, 0, 0);  // a multiplication by the same float: exact too
    EXPECT_EQ(rows_named(cpu_profile(model2), "Transpose+Multiply").size(), 1u);

    // The transpose as divisor is not a scale; a tensor (not scalar) factor is not either.
    auto positive = op::add(op::relu(x), op::constant<float>(element::f32, {}, {1.f}));
    auto t3 = op::transpose(positive, i64s({1, 0, 2}));
    auto over = op::divide(op::constant<float>(element::f32, {}, {1.f}), t3);
    auto t4 = op::transpose(op::relu(x), i64s({1, 0, 2}));
    auto by_tensor = op::multiply(t4, op::constant<float>(element::f32, {4}, {1.f, 2.f, 3.f, 4.f}));
    auto model3 =
        std::make_shared<Model>(OutputVector{over, by_tensor}, ParameterVector{x}, "noscale");
    expect_matches_template(model3, 1e-6, 0);
    const auto rows = cpu_profile(model3);
    EXPECT_EQ(rows_named(rows, "Transpose").size(), 2u);
    EXPECT_EQ(rows_named(rows, "Transpose+Divide").size(), 0u);
    EXPECT_EQ(rows_named(rows, "Transpose+Multiply").size(), 0u);
}

// A Concat read only by a channel shuffle (ShuffleNet's unit end): each input, split where it
// crosses a group, is one reorder into its interleaved channels of the shuffle's output; no
// Concat or ShuffleChannels pass of its own. Equal halves in two groups; unequal inputs in
// three groups (the second input crosses two group boundaries); the model input among the
// inputs (converted to channels-last first); a Concat read twice keeps its steps.
TEST(Movement, AConcatReadOnlyByAChannelShuffleWritesTheShuffledOrderDirectly) {
    struct Case {
        const char* what;
        size_t a, b, groups;
        bool with_input, read_twice;
        size_t steps;  // Concat+ShuffleChannels rows
    };
    const Case cases[] = {
        {"two halves, two groups", 6, 6, 2, false, false, 2},
        {"3 + 9 channels, three groups", 3, 9, 3, false, false, 4},
        {"the model input too", 4, 4, 3, true, false, 3},
        {"the Concat read twice", 6, 6, 2, false, true, 0},
    };
    const size_t h = 5, w = 6;
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        auto x = op::parameter(element::f32, {1, 4, h, w}, "x");
        auto conv = [&](size_t out, unsigned seed) {
            return op::relu(op::convolution(x, op::constant(random_tensor({out, 4, 1, 1}, seed)),
                                            {1, 1}, {0, 0}, {0, 0}, {1, 1}));
        };
        OutputVector parts = {conv(c.a, 41), conv(c.b, 42)};
        if (c.with_input) parts.push_back(x);
        auto cat = op::concat(parts, 1);
        const size_t channels = c.a + c.b + (c.with_input ? 4 : 0);
        const auto g = static_cast<int64_t>(c.groups);
        auto split = op::reshape(cat,
                                 i64s({1, g, static_cast<int64_t>(channels) / g,
                                       static_cast<int64_t>(h), static_cast<int64_t>(w)}),
                                 false);
        auto shuffled = op::reshape(op::transpose(split, i64s({0, 2, 1, 3, 4})),
                                    i64s({1, static_cast<int64_t>(channels),
                                          static_cast<int64_t>(h), static_cast<int64_t>(w)}),
                                    false);
        // A convolution reads the shuffle, so the output stays channels-last.
        OutputVector outs = {op::convolution(shuffled,
                                             op::constant(random_tensor({5, channels, 1, 1}, 43)),
                                             {1, 1}, {0, 0}, {0, 0}, {1, 1})};
        if (c.read_twice) outs.push_back(op::sigmoid(cat));
        auto model = std::make_shared<Model>(outs, ParameterVector{x}, "concat_shuffle");
        expect_matches_template(model, 1e-5, 1e-6);
        const auto rows = cpu_profile(model);
        EXPECT_EQ(rows_named(rows, "Concat+ShuffleChannels").size(), c.steps);
        EXPECT_EQ(rows_named(rows, "Concat").size(), c.steps ? 0u : 1u);
        EXPECT_EQ(rows_named(rows, "ShuffleChannels").size(), c.steps ? 0u : 1u);
    }
}

}  // namespace
}  // namespace vireo::cpu_test
