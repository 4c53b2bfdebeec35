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

// CPU's outputs at 1 and 2 threads: TEMPLATE's.
void expect_templates_values(const std::shared_ptr<Model>& model,
                             const std::vector<Tensor>& inputs) {
    Core core = make_core();
    const auto expected = run_model(core, model, "TEMPLATE", inputs);
    for (int threads : {1, 2}) {
        SCOPED_TRACE(std::to_string(threads) + " thread(s)");
        const auto actual =
            run_model(core, model, "CPU", inputs, {{inference_num_threads.name(), threads}});
        ASSERT_EQ(actual.size(), expected.size());
        for (size_t i = 0; i < actual.size(); ++i)
            EXPECT_TRUE(all_close(actual[i], expected[i], 1e-4, 1e-5)) << "output " << i;
    }
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
            // A small bidirectional layer is one primitive per direction (run side by side).
            EXPECT_EQ(layer_rows(model, l.type, &reference),
                      std::string(direction) == "bidirectional" ? 2u : 1u);
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

// Two stacked bidirectional LSTM layers (the second reads the first's output through a
// Transpose and Reshape) with initial states, then a MatMul. Where a time step is too small for
// two threads the directions of each layer are two steps that run at the same time at two
// threads; a large layer stays one primitive on both threads. TEMPLATE's values at one and two
// threads either way: the steps that run together must not share memory or scratchpad.
TEST(Rnn, BidirectionalLayersRunTheirDirectionsSideBySide) {
    struct Size {
        size_t batch, hidden, steps_per_layer;
    };
    for (const Size size : {Size{1, 24, 2}, Size{3, 16, 2}, Size{32, 128, 1}}) {
        SCOPED_TRACE("batch " + std::to_string(size.batch) + ", hidden " +
                     std::to_string(size.hidden));
        const size_t N = size.batch, H = size.hidden, T = 7, I = 10;
        auto x = op::parameter(element::f32, Shape{N, T, I}, "x");
        ParameterVector params{x};
        std::vector<Tensor> inputs{random_tensor({N, T, I}, 30)};
        Output in = x;
        std::vector<NodePtr> layers;
        for (size_t layer = 0; layer < 2; ++layer) {
            const size_t width = layer == 0 ? I : 2 * H;
            OutputVector args{in};
            for (const char* state : {"h", "c"}) {
                auto p = op::parameter(element::f32, Shape{N, 2, H}, state + std::to_string(layer));
                params.push_back(p);
                inputs.push_back(random_tensor({N, 2, H}, 31 + inputs.size()));
                args.push_back(p);
            }
            const auto seed = static_cast<unsigned>(40 + 10 * layer);
            args.push_back(op::constant<int64_t>(element::i64, Shape{N},
                                                 std::vector<int64_t>(N, static_cast<int64_t>(T))));
            args.push_back(op::constant(random_tensor({2, 4 * H, width}, seed, -0.3f, 0.3f)));
            args.push_back(op::constant(random_tensor({2, 4 * H, H}, seed + 1, -0.3f, 0.3f)));
            args.push_back(op::constant(random_tensor({2, 4 * H}, seed + 2, -0.3f, 0.3f)));
            auto lstm = make_node("LSTMSequence", args,
                                  {{"hidden_size", static_cast<int64_t>(H)},
                                   {"direction", std::string("bidirectional")}},
                                  5);
            layers.push_back(lstm);
            // Y [N, 2, T, H] -> [N, T, 2, H] -> [N, T, 2H]
            auto t = op::transpose(lstm->output(0),
                                   op::constant<int64_t>(element::i64, Shape{4}, {0, 2, 1, 3}));
            in =
                op::reshape(t,
                            op::constant<int64_t>(element::i64, Shape{3},
                                                  {static_cast<int64_t>(N), static_cast<int64_t>(T),
                                                   static_cast<int64_t>(2 * H)}),
                            false);
        }
        auto y = op::matmul(in, op::constant(random_tensor({2 * H, 5}, 60)));
        auto model =
            std::make_shared<Model>(OutputVector{y, layers[0]->output(1), layers[0]->output(2),
                                                 layers[1]->output(1), layers[1]->output(2)},
                                    params, "bidirectional");
        expect_templates_values(model, inputs);
        size_t rows = 0, forward = 0, reverse = 0;
        for (const auto& r : cpu_profile(model, {{inference_num_threads.name(), 2}})) {
            if (r.node_type != "LSTMSequence") continue;
            ++rows;
            EXPECT_EQ(r.status, ProfilingInfo::Status::EXECUTED) << r.node_name;
            EXPECT_NE(r.exec_type, "ref") << r.node_name;
            const auto ends_with = [&](const std::string& suffix) {
                return r.node_name.size() > suffix.size() &&
                       r.node_name.compare(r.node_name.size() - suffix.size(), suffix.size(),
                                           suffix) == 0;
            };
            forward += ends_with(":forward");
            reverse += ends_with(":reverse");
        }
        EXPECT_EQ(rows, 2 * size.steps_per_layer);
        EXPECT_EQ(forward, size.steps_per_layer == 2 ? 2u : 0u);
        EXPECT_EQ(reverse, size.steps_per_layer == 2 ? 2u : 0u);
    }
}

// Stacked forward layers whose time step is too small for two threads: a layer reading another
// such layer's output (through a Squeeze, as exporters write it) runs in a wavefront with it, one
// thread per layer over chunks of the sequence; a third layer stays on its own. Every cell, a
// batch of one and of three, a sequence whose length is not a multiple of the chunk. Where the
// first layer's final state is a model output it runs alone and the other two pair. TEMPLATE's
// values at one and two threads either way.
TEST(Rnn, StackedLayersRunAsAWavefront) {
    struct Case {
        std::string type;
        size_t gates;
        bool lbr;
        size_t batch;
        bool first_state_read;
    };
    const std::vector<Case> cases{{"GRUSequence", 3, false, 1, false},
                                  {"GRUSequence", 3, true, 3, false},
                                  {"LSTMSequence", 4, false, 1, false},
                                  {"LSTMSequence", 4, false, 2, true},
                                  {"RNNSequence", 1, false, 1, false}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.type + (c.lbr ? " linear_before_reset" : "") + ", batch " +
                     std::to_string(c.batch) + (c.first_state_read ? ", state read" : ""));
        const size_t N = c.batch, H = 24, T = 37, I = 10;
        const bool lstm = c.type == "LSTMSequence";
        auto x = op::parameter(element::f32, Shape{N, T, I}, "x");
        ParameterVector params{x};
        std::vector<Tensor> inputs{random_tensor({N, T, I}, 70)};
        Output in = x;
        std::vector<NodePtr> layers;
        for (size_t layer = 0; layer < 3; ++layer) {
            const size_t width = layer == 0 ? I : H;
            OutputVector args{in};
            for (size_t s = 0; s < (lstm ? 2u : 1u); ++s) {
                auto p = op::parameter(element::f32, Shape{N, 1, H},
                                       "s" + std::to_string(layer) + std::to_string(s));
                params.push_back(p);
                inputs.push_back(
                    random_tensor({N, 1, H}, 71 + static_cast<unsigned>(inputs.size())));
                args.push_back(p);
            }
            const auto seed = static_cast<unsigned>(80 + 10 * layer);
            args.push_back(op::constant<int64_t>(element::i64, Shape{N},
                                                 std::vector<int64_t>(N, static_cast<int64_t>(T))));
            args.push_back(op::constant(random_tensor({1, c.gates * H, width}, seed, -0.3f, 0.3f)));
            args.push_back(op::constant(random_tensor({1, c.gates * H, H}, seed + 1, -0.3f, 0.3f)));
            args.push_back(
                op::constant(random_tensor({1, (c.lbr ? 4 : c.gates) * H}, seed + 2, -0.3f, 0.3f)));
            std::map<std::string, AttrValue> attrs{{"hidden_size", static_cast<int64_t>(H)},
                                                   {"direction", std::string("forward")}};
            if (c.lbr) attrs["linear_before_reset"] = true;
            auto node = make_node(c.type, args, attrs, 5);
            layers.push_back(node);
            // Y [N, 1, T, H] -> [N, T, H]
            in = op::squeeze(node->output(0), op::constant<int64_t>(element::i64, Shape{1}, {1}));
        }
        auto y = op::matmul(in, op::constant(random_tensor({H, 5}, 99)));
        OutputVector outputs{y, layers[2]->output(1)};
        if (c.first_state_read) outputs.push_back(layers[0]->output(1));
        auto model = std::make_shared<Model>(outputs, params, "stacked");
        expect_templates_values(model, inputs);
        // Pairs in model order: the first two layers, or (the first's state read) the last two.
        const NodePtr alone = c.first_state_read ? layers[0] : layers[2];
        size_t rows = 0;
        for (const auto& r : cpu_profile(model, {{inference_num_threads.name(), 2}})) {
            if (r.node_type != c.type) continue;
            ++rows;
            EXPECT_EQ(r.status, ProfilingInfo::Status::EXECUTED) << r.node_name;
            const bool wavefront = r.exec_type.find("wavefront") != std::string::npos;
            EXPECT_EQ(wavefront, r.node_name != alone->get_friendly_name()) << r.node_name;
        }
        EXPECT_EQ(rows, 3u);
    }
}

}  // namespace
}  // namespace vireo::cpu_test
