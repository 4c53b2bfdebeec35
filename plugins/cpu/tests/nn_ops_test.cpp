// BatchNormInference, Split/VariadicSplit, ConvolutionBackpropData and Interpolate on oneDNN,
// and Pads folded into the pooling or convolution after them
// (batch normalization as a per-channel multiply-add, splits as sub-memory reorders,
// deconvolution, resampling): TEMPLATE's values, and no reference step where oneDNN computes the
// same; the configurations oneDNN computes differently stay on the reference kernel.
#include <gtest/gtest.h>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

NodePtr nn_constant(const Shape& shape, unsigned seed, float lo = -0.5f, float hi = 0.5f) {
    return op::constant(random_tensor(shape, seed, lo, hi));
}

// Rows of a CPU run of `model` whose op type is `type`, and whether any of them ran on a
// reference kernel.
std::pair<size_t, size_t> rows_and_reference(const std::shared_ptr<Model>& model,
                                             const std::string& type) {
    size_t rows = 0, reference = 0;
    for (const auto& r : cpu_profile(model)) {
        if (r.node_type.rfind(type, 0) != 0) continue;
        ++rows;
        reference += r.exec_type == "ref";
    }
    return {rows, reference};
}

std::shared_ptr<Model> nn_model(const OutputVector& outs, const ParameterVector& params) {
    return std::make_shared<Model>(outs, params, "nn_ops");
}

TEST(NnOps, BatchNormAloneAndAfterAConcatWithItsRelu) {
    for (bool after_conv : {false, true}) {
        SCOPED_TRACE(after_conv ? "channels-last input" : "plain input");
        auto x = op::parameter(element::f32, {2, 6, 5, 7}, "x");
        Output in = x;
        if (after_conv)
            in = op::concat(
                {op::convolution(x, nn_constant({4, 6, 1, 1}, 1), {1, 1}, {0, 0}, {0, 0}, {1, 1}),
                 x},
                1);
        const size_t c = after_conv ? 10 : 6;
        auto bn =
            op::batch_norm_inference(in, nn_constant({c}, 2, 0.5f, 1.5f), nn_constant({c}, 3),
                                     nn_constant({c}, 4), nn_constant({c}, 5, 0.1f, 2.f), 1e-5);
        auto model = nn_model({op::relu(bn)}, {x});
        expect_matches_template(model, 1e-5, 1e-5);
        // After a channels-last Concat the normalization is the Concat's pass (concat_affine).
        const auto [rows, reference] = rows_and_reference(
            model, after_conv ? "Concat+BatchNormInference+Relu" : "BatchNormInference+Relu");
        EXPECT_EQ(rows, 1u);
        EXPECT_EQ(reference, 0u);
    }
}

TEST(NnOps, SplitsAlongAnyAxisIncludingChannelsLast) {
    auto x = op::parameter(element::f32, {2, 12, 4, 5}, "x");
    auto conv = op::convolution(x, nn_constant({12, 12, 1, 1}, 1), {1, 1}, {0, 0}, {0, 0}, {1, 1});
    auto s1 = op::split(conv, op::constant<int64_t>(element::i64, Shape{}, {1}), 3);
    auto s2 = op::variadic_split(x, op::constant<int64_t>(element::i64, Shape{}, {-1}),
                                 op::constant<int64_t>(element::i64, Shape{3}, {1, -1, 2}));
    OutputVector outs{s1->output(0), s1->output(1), s1->output(2),
                      s2->output(0), s2->output(1), s2->output(2)};
    auto model = nn_model(outs, {x});
    expect_matches_template(model, 1e-5, 1e-5);
    const auto [split_rows, split_ref] = rows_and_reference(model, "Split");
    const auto [variadic_rows, variadic_ref] = rows_and_reference(model, "VariadicSplit");
    EXPECT_EQ(split_rows, 3u);  // one reorder per output
    EXPECT_EQ(variadic_rows, 3u);
    EXPECT_EQ(split_ref + variadic_ref, 0u);
}

// Pooling with "ceil_torch" rounding (MaxPool-14, AvgPool-14; what ONNX's ceil_mode becomes): the
// output is a window shorter than a plain ceiling's on these sizes, and oneDNN runs it with the
// right padding that reproduces that size, in NCHW and after a convolution (channels-last).
TEST(NnOps, CeilTorchPoolingOnOneDnn) {
    for (bool after_conv : {false, true}) {
        for (const std::string type : {"MaxPool", "AvgPool"}) {
            SCOPED_TRACE(type + (after_conv ? " after a convolution" : " on the input"));
            auto x = op::parameter(element::f32, {1, 4, 13, 16}, "x");
            Output in = x;
            if (after_conv)
                in = op::convolution(x, nn_constant({4, 4, 1, 1}, 3), {1, 1}, {0, 0}, {0, 0},
                                     {1, 1});
            const std::vector<int64_t> s{3, 3}, p{2, 2}, k{4, 4};
            NodePtr pool = type == "MaxPool"
                               ? op::max_pool_with_indices(in, s, {1, 1}, p, p, k, "ceil_torch")
                               : op::avg_pool(in, s, p, p, k, true, "ceil_torch");
            // 13 -> 5 (a plain ceiling: 6), 16 -> 6.
            ASSERT_EQ(pool->get_output_shape(0), (Shape{1, 4, 5, 6}));
            auto model = nn_model({op::relu(pool->output(0))}, {x});
            expect_matches_template(model, 1e-5, 1e-5);
            const auto [rows, reference] = rows_and_reference(model, type);
            EXPECT_EQ(rows, 1u);
            EXPECT_EQ(reference, 0u);
        }
    }
}

TEST(NnOps, ConvTransposeWithStridesPadsOutputPaddingAndBias) {
    struct Case {
        std::vector<int64_t> strides, pads_begin, pads_end, dilations, output_padding;
    };
    const std::vector<Case> cases{{{2, 2}, {0, 0}, {0, 0}, {1, 1}, {}},
                                  {{2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
                                  {{1, 1}, {1, 0}, {0, 1}, {1, 1}, {}},
                                  {{3, 2}, {0, 1}, {2, 1}, {2, 1}, {}}};
    for (size_t i = 0; i < cases.size(); ++i) {
        SCOPED_TRACE("case " + std::to_string(i));
        const Case& c = cases[i];
        auto x = op::parameter(element::f32, {1, 4, 5, 6}, "x");
        auto y =
            op::convolution_backprop_data(x, nn_constant({4, 3, 3, 3}, 7), c.strides, c.pads_begin,
                                          c.pads_end, c.dilations, c.output_padding);
        auto biased = op::relu(op::add(y, nn_constant({1, 3, 1, 1}, 8)));
        auto model = nn_model({biased}, {x});
        expect_matches_template(model, 1e-5, 1e-5);
        const auto [rows, reference] = rows_and_reference(model, "ConvolutionBackpropData");
        EXPECT_EQ(rows, 1u);
        EXPECT_EQ(reference, 0u);
    }
}

TEST(NnOps, InterpolateOnOneDnnWhereItComputesTheSameValues) {
    struct Case {
        std::string mode, transform, nearest;
        Shape out;
        bool on_onednn;
    };
    const std::vector<Case> cases{
        {"linear_onnx", "half_pixel", "round_prefer_floor", {1, 3, 12, 16}, true},
        {"linear_onnx", "pytorch_half_pixel", "round_prefer_floor", {1, 3, 3, 4}, true},
        {"nearest", "asymmetric", "floor", {1, 3, 18, 16}, true},
        {"nearest", "half_pixel", "round_prefer_floor", {1, 3, 12, 24}, true},
        // Not what oneDNN computes: align_corners, cubic, nearest downscaling, round_prefer_ceil.
        {"linear_onnx", "align_corners", "round_prefer_floor", {1, 3, 12, 16}, false},
        {"cubic", "half_pixel", "round_prefer_floor", {1, 3, 12, 16}, false},
        {"nearest", "asymmetric", "floor", {1, 3, 3, 4}, false},
        {"nearest", "half_pixel", "round_prefer_ceil", {1, 3, 12, 16}, false}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.mode + " " + c.transform + " " + c.nearest + " to " +
                     PartialShape(c.out).to_string());
        auto x = op::parameter(element::f32, {1, 3, 6, 8}, "x");
        op::InterpolateAttrs attrs;
        attrs.mode = c.mode;
        attrs.coordinate_transformation_mode = c.transform;
        attrs.nearest_mode = c.nearest;
        auto sizes =
            op::constant<int64_t>(element::i64, Shape{2},
                                  {static_cast<int64_t>(c.out[2]), static_cast<int64_t>(c.out[3])});
        auto axes = op::constant<int64_t>(element::i64, Shape{2}, {2, 3});
        auto y = op::interpolate(x, sizes, attrs, axes);
        auto model = nn_model({y}, {x});
        expect_matches_template(model, 1e-5, 1e-5);
        const auto [rows, reference] = rows_and_reference(model, "Interpolate");
        EXPECT_EQ(rows, 1u);
        EXPECT_EQ(reference, c.on_onednn ? 0u : 1u);
    }
}

// A constant-zero Pad in front of an AvgPool or a convolution is that op's padding (fold_pads:
// PyTorch writes avg_pool2d with count_include_pad as Pad + AveragePool), and a Pad that pads
// nothing is bypassed; every other Pad still runs, and every case gives TEMPLATE's values.
TEST(NnOps, ZeroPadsFoldIntoThePoolingOrConvolutionAfterThem) {
    struct Case {
        const char* name;
        size_t pad_rows;  // Pad steps that still run
        std::vector<int64_t> begin, end;
        std::string mode = "constant";
        float value = 0.f;
        std::string reader = "AvgPool";  // AvgPool, Convolution, GroupConvolution, Relu
        std::vector<int64_t> own{0, 0};  // the reader's own pads (both ends)
        bool exclude_pad = true;
        std::string rounding = "floor";
        bool also_output = false;  // the Pad is a model output too
    };
    const std::vector<int64_t> none{0, 0, 0, 0}, spatial{0, 0, 1, 1};
    const std::vector<Case> cases = {
        {.name = "zero pads before a pooling", .pad_rows = 0, .begin = none, .end = none},
        {.name = "zero pads of edge mode before a Relu",
         .pad_rows = 0,
         .begin = none,
         .end = none,
         .mode = "edge",
         .reader = "Relu"},
        {.name = "spatial pads, exclude-pad pooling without pads",
         .pad_rows = 0,
         .begin = spatial,
         .end = spatial},
        {.name = "uneven pads added to an include-pad pooling's",
         .pad_rows = 0,
         .begin = {0, 0, 1, 2},
         .end = {0, 0, 2, 0},
         .own = {1, 1},
         .exclude_pad = false},
        {.name = "exclude-pad pooling with pads of its own",
         .pad_rows = 1,
         .begin = spatial,
         .end = spatial,
         .own = {1, 1}},
        {.name = "ceil rounding that floor would change",
         .pad_rows = 1,
         .begin = spatial,
         .end = none,
         .rounding = "ceil"},
        {.name = "into a convolution's pads",
         .pad_rows = 0,
         .begin = {0, 0, 2, 1},
         .end = {0, 0, 0, 1},
         .reader = "Convolution",
         .own = {1, 1}},
        {.name = "into a group convolution",
         .pad_rows = 0,
         .begin = spatial,
         .end = spatial,
         .reader = "GroupConvolution"},
        {.name = "a pad value other than zero",
         .pad_rows = 1,
         .begin = spatial,
         .end = spatial,
         .value = 0.5f},
        {.name = "reflect mode",
         .pad_rows = 1,
         .begin = spatial,
         .end = spatial,
         .mode = "reflect",
         .reader = "Convolution"},
        {.name = "channel pads", .pad_rows = 1, .begin = {0, 1, 0, 0}, .end = {0, 1, 0, 0}},
        {.name = "a pad that is a model output as well",
         .pad_rows = 1,
         .begin = spatial,
         .end = spatial,
         .also_output = true},
    };
    for (bool after_conv : {false, true}) {
        for (const auto& c : cases) {
            SCOPED_TRACE(std::string(c.name) + (after_conv ? ", channels-last" : ", on the input"));
            auto x = op::parameter(element::f32, {1, 4, 7, 9}, "x");
            Output in = x;
            if (after_conv)
                in = op::convolution(x, nn_constant({4, 4, 1, 1}, 3), {1, 1}, {0, 0}, {0, 0},
                                     {1, 1});
            const Shape four{4};
            auto pad = op::pad(in, op::constant<int64_t>(element::i64, four, c.begin),
                               op::constant<int64_t>(element::i64, four, c.end), c.mode,
                               c.value == 0.f
                                   ? Output()
                                   : Output(op::constant<float>(element::f32, Shape{}, {c.value})));
            NodePtr reader;
            if (c.reader == "AvgPool")
                reader = op::avg_pool(pad, {2, 2}, c.own, c.own, {3, 3}, c.exclude_pad, c.rounding);
            else if (c.reader == "Convolution")
                reader = op::convolution(pad, nn_constant({3, 4, 3, 3}, 4), {1, 2}, c.own, c.own,
                                         {1, 1});
            else if (c.reader == "GroupConvolution")
                reader = op::group_convolution(pad, nn_constant({4, 1, 1, 3, 3}, 5), {1, 1}, c.own,
                                               c.own, {2, 1});
            else
                reader = op::relu(pad);
            OutputVector outs{op::relu(reader)};
            if (c.also_output) outs.push_back(pad);
            auto model = nn_model(outs, {x});
            const Shape shape = reader->get_output_shape(0);
            expect_matches_template(model, 1e-5, 1e-5);
            const auto [rows, reference] = rows_and_reference(model, "Pad");
            EXPECT_EQ(rows, c.pad_rows);
            // The model given to compile_model is not changed.
            EXPECT_EQ(reader->input_value(0).get_node()->get_type_name(), "Pad");
            EXPECT_EQ(reader->get_output_shape(0), shape);
        }
    }
}

// A dynamic-shape zero Pad before a ceil-mode AvgPool stays a Pad: folding it makes the pooling
// floor-rounded, which an unchanged output shape proves harmless only when that shape is static
// (a 7x9 input padded to 8x9 has a fourth ceil window along its height that floor drops).
TEST(NnOps, ZeroPadsBeforeACeilPoolingOfDynamicShapeAreNotFolded) {
    for (const std::string rounding : {"ceil", "ceil_torch"}) {
        SCOPED_TRACE(rounding);
        auto x = op::parameter(element::f32, PartialShape{1, 4, -1, -1}, "x");
        const Shape four{4};
        auto pad = op::pad(x, op::constant<int64_t>(element::i64, four, {0, 0, 1, 0}),
                           op::constant<int64_t>(element::i64, four, {0, 0, 0, 0}), "constant");
        auto pool = op::avg_pool(pad, {2, 2}, {0, 0}, {0, 0}, {3, 3}, true, rounding);
        auto model = nn_model({pool}, {x});
        Core core = make_core();
        const Tensor input = random_tensor({1, 4, 7, 9}, 41);
        const auto expected = run_model(core, model, "TEMPLATE", {input});
        const auto actual = run_model(core, model, "CPU", {input});
        ASSERT_EQ(expected[0].get_shape(), (Shape{1, 4, 4, 4}));
        ASSERT_EQ(actual[0].get_shape(), expected[0].get_shape());
        EXPECT_TRUE(all_close(actual[0], expected[0], 1e-5, 1e-6));
    }
}

}  // namespace
}  // namespace vireo::cpu_test
