// Tests ONNX LSTM, GRU and RNN as the core's sequence ops on TEMPLATE: a dynamic sequence length
// and batch (which unrolling refused), several lengths through one compiled model, against a plain
// loop over the ONNX equations; and a long declared sequence that stays one node at import.
#include <gtest/gtest.h>

#include <cmath>

#include "onnx_test_util.hpp"
#include "vireo/core.hpp"

namespace vireo {
namespace {

using test::int_attribute;
using test::OnnxBuilder;
constexpr int32_t kF32 = onnx::TensorProto::FLOAT;

std::vector<float> values(size_t n, float scale, float offset) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(static_cast<float>(i) + offset);
    return v;
}

// One-direction LSTM, hidden 2, input 3, ONNX layout X [seq, batch, input], W [1, 8, 3] (i, o,
// f, c), R [1, 8, 2], B [1, 16]; seq and batch dynamic.
TEST(OnnxRecurrent, LstmWithADynamicSequenceLengthMatchesAPlainLoop) {
    constexpr size_t H = 2, I = 3;
    const auto w = values(8 * I, 0.5f, 0.1f), r = values(8 * H, 0.4f, 0.7f),
               b = values(16, 0.3f, 1.3f);
    OnnxBuilder builder(14);
    builder.input("x", kF32, {-1, -1, 3}).output("y", kF32, {-1, 1, -1, 2});
    builder.output("y_h", kF32, {1, -1, 2});
    builder.initializer("w", {1, 8, 3}, w);
    builder.initializer("r", {1, 8, 2}, r);
    builder.initializer("b", {1, 16}, b);
    int_attribute(builder.node("LSTM", {"x", "w", "r", "b"}, {"y", "y_h"}, "lstm"), "hidden_size",
                  2);
    Core core;
    auto model = core.read_model(builder.bytes(), Tensor());
    EXPECT_EQ(model->output(0).get_partial_shape().to_string(), "[?,1,?,2]");
    auto request = core.compile_model(model, "TEMPLATE").create_infer_request();
    auto sigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
    for (size_t steps : {1, 4, 7}) {
        const size_t batch = 2;
        const auto x = values(steps * batch * I, 1.5f, static_cast<float>(steps));
        Tensor input(element::f32, Shape{steps, batch, I});
        std::copy(x.begin(), x.end(), input.data<float>());
        request.set_tensor("x", input);
        request.infer();
        const Tensor y = request.get_tensor("y"), y_h = request.get_tensor("y_h");
        ASSERT_EQ(y.get_shape(), (Shape{steps, 1, batch, H}));
        for (size_t n = 0; n < batch; ++n) {
            std::vector<double> h(H, 0.0), c(H, 0.0);
            for (size_t t = 0; t < steps; ++t) {
                std::vector<double> g(8);
                for (size_t row = 0; row < 8; ++row) {
                    g[row] = b[row] + b[8 + row];
                    for (size_t k = 0; k < I; ++k)
                        g[row] += w[row * I + k] * x[(t * batch + n) * I + k];
                    for (size_t k = 0; k < H; ++k) g[row] += r[row * H + k] * h[k];
                }
                for (size_t j = 0; j < H; ++j) {
                    const double i = sigmoid(g[j]), o = sigmoid(g[H + j]),
                                 f = sigmoid(g[2 * H + j]);
                    c[j] = f * c[j] + i * std::tanh(g[3 * H + j]);
                    h[j] = o * std::tanh(c[j]);
                }
                for (size_t j = 0; j < H; ++j)
                    EXPECT_NEAR(y.data<float>()[(t * batch + n) * H + j], h[j], 1e-5)
                        << "steps " << steps << " t " << t << " n " << n << " j " << j;
            }
            for (size_t j = 0; j < H; ++j)
                EXPECT_NEAR(y_h.data<float>()[n * H + j], h[j], 1e-5) << "y_h steps " << steps;
        }
    }
}

// A small file declaring 10,000 steps is one sequence node (unrolling built tens of thousands of
// nodes and hundreds of MB: issue 35's 153-byte LSTM took 484 MB).
TEST(OnnxRecurrent, ALongDeclaredSequenceIsOneNode) {
    for (const char* op : {"LSTM", "GRU", "RNN"}) {
        const size_t gates = std::string(op) == "LSTM" ? 4 : std::string(op) == "GRU" ? 3 : 1;
        OnnxBuilder builder(14);
        builder.input("x", kF32, {10000, 1, 1}).output("y", kF32, {10000, 1, 1, 1});
        builder.initializer("w", {1, static_cast<int64_t>(gates), 1},
                            std::vector<float>(gates, 0.5f));
        builder.initializer("r", {1, static_cast<int64_t>(gates), 1},
                            std::vector<float>(gates, 0.5f));
        int_attribute(builder.node(op, {"x", "w", "r"}, {"y"}, "layer"), "hidden_size", 1);
        Core core;
        auto model = core.read_model(builder.bytes(), Tensor());
        size_t sequence_ops = 0;
        for (const auto& node : model->get_ordered_ops())
            sequence_ops += node->get_type_name() == std::string(op) + "Sequence";
        EXPECT_EQ(sequence_ops, 1u) << op;
        EXPECT_LT(model->get_ordered_ops().size(), 40u) << op;
    }
}

}  // namespace
}  // namespace vireo
