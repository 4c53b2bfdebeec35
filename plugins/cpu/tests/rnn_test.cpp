// LSTMSequence, GRUSequence and RNNSequence on oneDNN's RNN primitives: TEMPLATE's values in every
// direction, with initial states and both GRU forms; configurations oneDNN does not compute stay
// on the reference kernel.
#include <gtest/gtest.h>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

struct Layer {
    std::string type;
    int version;
    size_t gates;
    std::map<std::string, AttrValue> attrs;
};

// A layer over X [2, 5, 3] with hidden size 4, random weights, states as inputs.
std::shared_ptr<Model> layer_model(const Layer& l, const std::string& direction) {
    const int64_t D = direction == "bidirectional" ? 2 : 1, H = 4, N = 2, T = 5, I = 3;
    auto x = op::parameter(element::f32, {N, T, I}, "x");
    auto h0 = op::parameter(element::f32, {N, D, H}, "h0");
    ParameterVector params{x, h0};
    OutputVector in{x, h0};
    if (l.type == "LSTMSequence") {
        auto c0 = op::parameter(element::f32, {N, D, H}, "c0");
        params.push_back(c0);
        in.push_back(c0);
    }
    const auto d = static_cast<size_t>(D), h = static_cast<size_t>(H);
    in.push_back(op::constant<int64_t>(element::i64, Shape{static_cast<size_t>(N)}, {5, 5}));
    in.push_back(
        op::constant(random_tensor({d, l.gates * h, static_cast<size_t>(I)}, 11, -0.6f, 0.6f)));
    in.push_back(op::constant(random_tensor({d, l.gates * h, h}, 12, -0.6f, 0.6f)));
    const bool lbr =
        l.attrs.count("linear_before_reset") && std::get<bool>(l.attrs.at("linear_before_reset"));
    in.push_back(op::constant(random_tensor({d, (lbr ? 4 : l.gates) * h}, 13, -0.3f, 0.3f)));
    auto attrs = l.attrs;
    attrs["hidden_size"] = int64_t{4};
    attrs["direction"] = direction;
    auto node = make_node(l.type, in, attrs, l.version);
    OutputVector outs;
    for (size_t i = 0; i < node->get_output_size(); ++i) outs.push_back(node->output(i));
    return std::make_shared<Model>(outs, params, "rnn");
}

size_t layer_rows(const std::shared_ptr<Model>& model, const std::string& type, bool* reference) {
    size_t n = 0;
    *reference = false;
    for (const auto& r : cpu_profile(model))
        if (r.node_type == type) {
            ++n;
            *reference |= r.exec_type == "ref";
        }
    return n;
}

TEST(Rnn, EveryCellAndDirectionOnOneDnn) {
    const std::vector<Layer> layers{
        {"LSTMSequence", 5, 4, {}},
        {"LSTMSequence", 1, 4, {{"weights_format", std::string("iofc")}}},
        {"GRUSequence", 5, 3, {{"linear_before_reset", false}}},
        {"GRUSequence", 5, 3, {{"linear_before_reset", true}}},
        {"RNNSequence", 5, 1, {}}};
    for (const auto& l : layers)
        for (const char* direction : {"forward", "reverse", "bidirectional"}) {
            SCOPED_TRACE(l.type + "-" + std::to_string(l.version) + " " + direction +
                         (l.attrs.count("linear_before_reset") &&
                                  std::get<bool>(l.attrs.at("linear_before_reset"))
                              ? " linear_before_reset"
                              : ""));
            auto model = layer_model(l, direction);
            expect_matches_template(model, 1e-4, 1e-5);
            bool reference = true;
            EXPECT_EQ(layer_rows(model, l.type, &reference), 1u);
            EXPECT_FALSE(reference);
        }
}

TEST(Rnn, WhatOneDnnDoesNotComputeStaysOnTheReferenceKernel) {
    const std::vector<Layer> layers{
        {"LSTMSequence", 5, 4, {{"clip", 0.5}}},
        {"GRUSequence", 5, 3, {{"activations", std::vector<std::string>{"relu", "tanh"}}}},
        {"RNNSequence",
         5,
         1,
         {{"activations", std::vector<std::string>{"tanh"}},
          {"activations_alpha", std::vector<double>{0.5}}}}};
    for (const auto& l : layers) {
        SCOPED_TRACE(l.type);
        auto model = layer_model(l, "forward");
        expect_matches_template(model, 1e-4, 1e-5);
        bool reference = false;
        EXPECT_EQ(layer_rows(model, l.type, &reference), 1u);
        EXPECT_TRUE(reference);
    }
}

// At two threads, a layer whose time step is too small to split runs its primitive on one
// thread (Step::max_threads) and a large one on both; either way the values are TEMPLATE's and
// the steps after it (a MatMul here) run on the request's full team again.
TEST(Rnn, SmallAndLargeLayersAtTwoThreads) {
    struct Size {
        size_t batch, hidden;
    };
    for (const Size size : {Size{1, 16}, Size{32, 128}}) {
        SCOPED_TRACE("batch " + std::to_string(size.batch) + ", hidden " +
                     std::to_string(size.hidden));
        const size_t N = size.batch, H = size.hidden, T = 6, I = 8;
        auto x = op::parameter(element::f32, Shape{N, T, I}, "x");
        auto h0 = op::parameter(element::f32, Shape{N, 1, H}, "h0");
        auto c0 = op::parameter(element::f32, Shape{N, 1, H}, "c0");
        auto lstm = make_node(
            "LSTMSequence",
            {x, h0, c0, op::constant<int64_t>(element::i64, Shape{N}, std::vector<int64_t>(N, 6)),
             op::constant(random_tensor({1, 4 * H, I}, 21, -0.3f, 0.3f)),
             op::constant(random_tensor({1, 4 * H, H}, 22, -0.3f, 0.3f)),
             op::constant(random_tensor({1, 4 * H}, 23, -0.3f, 0.3f))},
            {{"hidden_size", static_cast<int64_t>(H)}, {"direction", std::string("forward")}}, 5);
        auto y = op::matmul(lstm->output(0), op::constant(random_tensor({H, 5}, 24)));
        auto model = std::make_shared<Model>(OutputVector{y, lstm->output(1)},
                                             ParameterVector{x, h0, c0}, "rnn_threads");
        Core core = make_core();
        const std::vector<Tensor> inputs{random_tensor({N, T, I}, 25), random_tensor({N, 1, H}, 26),
                                         random_tensor({N, 1, H}, 27)};
        const auto expected = run_model(core, model, "TEMPLATE", inputs);
        const auto actual =
            run_model(core, model, "CPU", inputs, {{inference_num_threads.name(), 2}});
        ASSERT_EQ(actual.size(), 2u);
        EXPECT_TRUE(all_close(actual[0], expected[0], 1e-4, 1e-5));
        EXPECT_TRUE(all_close(actual[1], expected[1], 1e-4, 1e-5));
    }
}

}  // namespace
}  // namespace vireo::cpu_test
