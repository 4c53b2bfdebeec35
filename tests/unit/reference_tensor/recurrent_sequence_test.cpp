// Tests RNNSequence-5, GRUSequence-5 and LSTMSequence-1/5: hand-computed one-unit cases
// (directions, sequence lengths, parameterised activations) and random layers against a plain
// loop written from the ONNX equations (gates i, o, f, c; peepholes; clip; linear_before_reset).
#include <cmath>

#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

double sigmoid(double v) {
    return 1.0 / (1.0 + std::exp(-v));
}

struct Layer {
    size_t batch, steps, input, hidden, dirs;
    std::vector<double> x, h0, c0, w, r, b, p;  // core layouts; b already summed
    std::vector<int64_t> lens;
};

Layer random_layer(size_t gates, size_t bias_rows, size_t dirs, std::vector<int64_t> lens,
                   uint32_t seed) {
    Layer l{lens.size(), 3, 2, 3, dirs, {}, {}, {}, {}, {}, {}, {}, std::move(lens)};
    l.x = random_values(l.batch * l.steps * l.input, seed, -2, 2);
    l.h0 = random_values(l.batch * dirs * l.hidden, seed + 1);
    l.c0 = random_values(l.batch * dirs * l.hidden, seed + 2);
    l.w = random_values(dirs * gates * l.hidden * l.input, seed + 3);
    l.r = random_values(dirs * gates * l.hidden * l.hidden, seed + 4);
    l.b = random_values(dirs * bias_rows * l.hidden, seed + 5, -0.5, 0.5);
    l.p = random_values(dirs * 3 * l.hidden, seed + 6);
    return l;
}

// Row `row` of a [dirs, rows, cols] matrix for direction d times vector v.
double dot(const std::vector<double>& m, size_t d, size_t rows, size_t cols, size_t row,
           const double* v) {
    double s = 0;
    for (size_t k = 0; k < cols; ++k) s += m[(d * rows + row) * cols + k] * v[k];
    return s;
}

// The plain loop: `cell` computes the new (h, c) of one unit j from the step's input and state.
// Returns Y [batch, dirs, steps, hidden], Ho and Co [batch, dirs, hidden], concatenated.
template <typename Cell>
std::vector<double> loop(const Layer& l, bool reverse_only, Cell cell) {
    const size_t H = l.hidden;
    std::vector<double> y(l.batch * l.dirs * l.steps * H, 0.0), ho(l.h0), co(l.c0);
    for (size_t d = 0; d < l.dirs; ++d)
        for (size_t n = 0; n < l.batch; ++n) {
            const auto len = static_cast<size_t>(l.lens[n]);
            std::vector<double> h(l.h0.begin() + static_cast<long>((n * l.dirs + d) * H),
                                  l.h0.begin() + static_cast<long>((n * l.dirs + d + 1) * H));
            std::vector<double> c(l.c0.begin() + static_cast<long>((n * l.dirs + d) * H),
                                  l.c0.begin() + static_cast<long>((n * l.dirs + d + 1) * H));
            for (size_t s = 0; s < len; ++s) {
                const size_t t = (reverse_only || d == 1) ? len - 1 - s : s;
                const double* xt = &l.x[(n * l.steps + t) * l.input];
                std::vector<double> nh(H), nc(H);
                for (size_t j = 0; j < H; ++j) cell(d, j, xt, h, c, nh[j], nc[j]);
                h = nh;
                c = nc;
                for (size_t j = 0; j < H; ++j) y[((n * l.dirs + d) * l.steps + t) * H + j] = h[j];
            }
            for (size_t j = 0; j < H; ++j) {
                ho[(n * l.dirs + d) * H + j] = h[j];
                co[(n * l.dirs + d) * H + j] = c[j];
            }
        }
    y.insert(y.end(), ho.begin(), ho.end());
    y.insert(y.end(), co.begin(), co.end());
    return y;
}

std::vector<Tensor> run_layer(const std::string& type, int version, const Layer& l, size_t gates,
                              size_t bias_rows, Attrs attrs, bool with_c, bool with_p) {
    const auto f = element::f32;
    std::vector<Tensor> in{make_tensor(f, {l.batch, l.steps, l.input}, l.x),
                           make_tensor(f, {l.batch, l.dirs, l.hidden}, l.h0)};
    if (with_c) in.push_back(make_tensor(f, {l.batch, l.dirs, l.hidden}, l.c0));
    in.push_back(make_tensor(element::i64, {l.batch}, l.lens));
    in.push_back(make_tensor(f, {l.dirs, gates * l.hidden, l.input}, l.w));
    in.push_back(make_tensor(f, {l.dirs, gates * l.hidden, l.hidden}, l.r));
    in.push_back(make_tensor(f, {l.dirs, bias_rows * l.hidden}, l.b));
    if (with_p) in.push_back(make_tensor(f, {l.dirs, 3 * l.hidden}, l.p));
    OutputVector params;
    for (const auto& t : in) params.push_back(param(t.get_element_type(), t.get_shape()));
    attrs["hidden_size"] = static_cast<int64_t>(l.hidden);
    return run(make_node(type, params, attrs, version), in);
}

std::vector<double> flat(const std::vector<Tensor>& outs) {
    std::vector<double> v;
    for (const auto& t : outs) {
        auto part = values_of(t);
        v.insert(v.end(), part.begin(), part.end());
    }
    return v;
}

TEST(RecurrentSequence, OneUnitRnnByHand) {
    // W 0.5, R 0.25, B 0.1, relu, X = [1, 2], h0 = 0.
    // forward: h1 = 0.5 + 0.1 = 0.6; h2 = 1 + 0.15 + 0.1 = 1.25.
    // reverse: step 1 first: 1 + 0.1 = 1.1; then step 0: 0.5 + 0.275 + 0.1 = 0.875.
    Layer l{1, 2, 1, 1, 1, {1, 2}, {0}, {}, {0.5}, {0.25}, {0.1}, {}, {2}};
    Attrs attrs{{"activations", std::vector<std::string>{"relu"}}};
    attrs["direction"] = std::string("forward");
    expect_near(flat(run_layer("RNNSequence", 5, l, 1, 1, attrs, false, false)), {0.6, 1.25, 1.25},
                1e-6, "forward");
    attrs["direction"] = std::string("reverse");
    expect_near(flat(run_layer("RNNSequence", 5, l, 1, 1, attrs, false, false)),
                {0.875, 1.1, 0.875}, 1e-6, "reverse");
    // Length 1: the second step is zero and the final state is the first step's.
    l.lens = {1};
    attrs["direction"] = std::string("forward");
    expect_near(flat(run_layer("RNNSequence", 5, l, 1, 1, attrs, false, false)), {0.6, 0, 0.6},
                1e-6, "length 1");
    // Length 0: nothing runs, Y is zero and Ho is h0.
    l.lens = {0};
    l.h0 = {0.3};
    expect_near(flat(run_layer("RNNSequence", 5, l, 1, 1, attrs, false, false)), {0, 0, 0.3}, 1e-6,
                "length 0");
}

TEST(RecurrentSequence, ParameterisedActivationsAndClipByHand) {
    // W 1, R 0, B 0, one step of x: the output is the activation of x (clipped to +-clip).
    Layer l{1, 1, 1, 1, 1, {-2}, {0}, {}, {1}, {0}, {0}, {}, {1}};
    struct Case {
        std::string name;
        double alpha, beta, x, clip, expected;
    };
    for (const auto& c : std::vector<Case>{{"leakyrelu", 0.3, 0, -2, 0, -0.6},
                                           {"thresholdedrelu", 1.5, 0, 2, 0, 2},
                                           {"thresholdedrelu", 1.5, 0, 1, 0, 0},
                                           {"hardsigmoid", 0.5, 0.5, 0.4, 0, 0.7},
                                           {"affine", 2, -1, 3, 0, 5},
                                           {"scaledtanh", 2, 0.5, 1, 0, 2 * std::tanh(0.5)},
                                           {"elu", 2, 0, -1, 0, 2 * (std::exp(-1.0) - 1)},
                                           {"softsign", 0, 0, -3, 0, -0.75},
                                           {"softplus", 0, 0, 1, 0, std::log(1 + std::exp(1.0))},
                                           {"tanh", 0, 0, 5, 0.5, std::tanh(0.5)},
                                           {"relu", 0, 0, -4, 3, 0}}) {
        l.x = {c.x};
        Attrs attrs{{"direction", std::string("forward")},
                    {"activations", std::vector<std::string>{c.name}},
                    {"activations_alpha", std::vector<double>{c.alpha}},
                    {"activations_beta", std::vector<double>{c.beta}},
                    {"clip", c.clip}};
        expect_near(flat(run_layer("RNNSequence", 5, l, 1, 1, attrs, false, false)),
                    {c.expected, c.expected}, 1e-6, c.name);
    }
}

// ONNX's LSTM equations, gates in iofc row blocks, peepholes (i, o, f), clip.
std::vector<double> lstm_loop(const Layer& l, bool reverse_only, bool peepholes, double clip) {
    const size_t H = l.hidden, rows = 4 * H;
    auto cl = [clip](double v) { return clip > 0 ? std::clamp(v, -clip, clip) : v; };
    return loop(l, reverse_only,
                [&](size_t d, size_t j, const double* xt, const std::vector<double>& h,
                    const std::vector<double>& c, double& nh, double& nc) {
                    auto gate = [&](size_t g) {
                        return dot(l.w, d, rows, l.input, g * H + j, xt) +
                               dot(l.r, d, rows, H, g * H + j, h.data()) +
                               l.b[d * rows + g * H + j];
                    };
                    const double* p = &l.p[d * 3 * H];
                    const double i = sigmoid(cl(gate(0) + (peepholes ? p[j] * c[j] : 0)));
                    const double f = sigmoid(cl(gate(2) + (peepholes ? p[2 * H + j] * c[j] : 0)));
                    nc = f * c[j] + i * std::tanh(cl(gate(3)));
                    const double o = sigmoid(cl(gate(1) + (peepholes ? p[H + j] * nc : 0)));
                    nh = o * std::tanh(nc);
                });
}

TEST(RecurrentSequence, LstmMatchesThePlainLoop) {
    for (const std::string direction : {"forward", "reverse", "bidirectional"}) {
        const size_t dirs = direction == "bidirectional" ? 2 : 1;
        Layer l = random_layer(4, 4, dirs, {3, 2}, 11);
        const bool reverse = direction == "reverse";
        Attrs attrs{
            {"direction", direction}, {"weights_format", std::string("iofc")}, {"clip", 0.9}};
        expect_near(flat(run_layer("LSTMSequence", 1, l, 4, 4, attrs, true, true)),
                    lstm_loop(l, reverse, true, 0.9), 1e-5, direction + " v1 peepholes");
        // LSTMSequence-5: the same layer with its rows reordered to f, i, c, o; no peepholes.
        Layer v5 = l;
        const size_t H = l.hidden, order[4] = {2, 0, 3, 1};  // iofc block of f, i, c, o
        for (size_t d = 0; d < dirs; ++d)
            for (size_t g = 0; g < 4; ++g)
                for (size_t j = 0; j < H; ++j) {
                    const size_t to = d * 4 * H + g * H + j, from = d * 4 * H + order[g] * H + j;
                    for (size_t k = 0; k < l.input; ++k)
                        v5.w[to * l.input + k] = l.w[from * l.input + k];
                    for (size_t k = 0; k < H; ++k) v5.r[to * H + k] = l.r[from * H + k];
                    v5.b[to] = l.b[from];
                }
        Attrs attrs5{{"direction", direction}};
        expect_near(flat(run_layer("LSTMSequence", 5, v5, 4, 4, attrs5, true, false)),
                    lstm_loop(l, reverse, false, 0), 1e-5, direction + " v5");
    }
}

TEST(RecurrentSequence, PerDirectionActivationsAndInputForgetByHand) {
    // Bidirectional one-unit RNN, W 1, R 0, B 0, X = [-1]: forward uses relu (0), backward
    // leakyrelu with alpha 0.5 (-0.5).
    Layer l{1, 1, 1, 1, 2, {-1}, {0, 0}, {}, {1, 1}, {0, 0}, {0, 0}, {}, {1}};
    Attrs attrs{{"direction", std::string("bidirectional")},
                {"activations", std::vector<std::string>{"relu", "leakyrelu"}},
                {"activations_alpha", std::vector<double>{1.0, 0.5}},
                {"activations_beta", std::vector<double>{0.0, 0.0}}};
    expect_near(flat(run_layer("RNNSequence", 5, l, 1, 1, attrs, false, false)), {0, -0.5, 0, -0.5},
                1e-6, "per direction");
    // LSTM-1 with input_forget: f = 1 - i. One unit, W all 0 except the input gate's 1 and the
    // cell gate's 1 (iofc rows 0 and 3), R 0, B 0, c0 = 0.5, x = 2: i = sigmoid(2), f = 1 - i,
    // c = f * 0.5 + i * tanh(2), o = sigmoid(0) = 0.5, h = 0.5 * tanh(c).
    Layer lstm{1, 1, 1, 1, 1, {2}, {0}, {0.5}, {1, 0, 0, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}, {}, {1}};
    const double i = sigmoid(2), c = (1 - i) * 0.5 + i * std::tanh(2.0), h = 0.5 * std::tanh(c);
    Attrs lstm_attrs{{"direction", std::string("forward")},
                     {"weights_format", std::string("iofc")},
                     {"input_forget", true}};
    expect_near(flat(run_layer("LSTMSequence", 1, lstm, 4, 4, lstm_attrs, true, false)), {h, h, c},
                1e-6, "input_forget");
}

TEST(RecurrentSequence, GruMatchesThePlainLoop) {
    for (bool lbr : {false, true})
        for (const std::string direction : {"forward", "reverse", "bidirectional"}) {
            const size_t dirs = direction == "bidirectional" ? 2 : 1, H = 3;
            const size_t bias_rows = lbr ? 4 : 3;
            Layer l = random_layer(3, bias_rows, dirs, {2, 3}, 23);
            const size_t rows = 3 * H;
            const auto expected = loop(
                l, direction == "reverse",
                [&](size_t d, size_t j, const double* xt, const std::vector<double>& h,
                    const std::vector<double>&, double& nh, double& nc) {
                    const double* b = &l.b[d * bias_rows * H];
                    auto wx = [&](size_t g) { return dot(l.w, d, rows, l.input, g * H + j, xt); };
                    auto rh = [&](size_t g, const std::vector<double>& v) {
                        return dot(l.r, d, rows, H, g * H + j, v.data());
                    };
                    const double z = sigmoid(wx(0) + rh(0, h) + b[j]);
                    // r is needed for every unit of h when linear_before_reset is false.
                    std::vector<double> rv(H);
                    for (size_t k = 0; k < H; ++k)
                        rv[k] = sigmoid(dot(l.w, d, rows, l.input, H + k, xt) +
                                        dot(l.r, d, rows, H, H + k, h.data()) + b[H + k]);
                    std::vector<double> rh_prod(H);
                    for (size_t k = 0; k < H; ++k) rh_prod[k] = rv[k] * h[k];
                    const double cand =
                        lbr ? wx(2) + b[2 * H + j] + rv[j] * (rh(2, h) + b[3 * H + j])
                            : wx(2) + rh(2, rh_prod) + b[2 * H + j];
                    nh = (1 - z) * std::tanh(cand) + z * h[j];
                    nc = 0;
                });
            Attrs attrs{{"direction", direction}, {"linear_before_reset", lbr}};
            auto got = flat(run_layer("GRUSequence", 5, l, 3, bias_rows, attrs, false, false));
            const std::vector<double> want(expected.begin(),
                                           expected.begin() + static_cast<long>(got.size()));
            expect_near(got, want, 1e-5, direction + (lbr ? " lbr" : ""));
        }
}

TEST(RecurrentSequence, ShapesInferWithDynamicBatchAndSequence) {
    auto x = op::parameter(element::f32, PartialShape{Dimension(), Dimension(), 2});
    auto h = op::parameter(element::f32, PartialShape{Dimension(), 2, 3});
    auto lens = op::parameter(element::i64, PartialShape{Dimension()});
    auto w = op::parameter(element::f32, PartialShape{2, 12, 2});
    auto r = op::parameter(element::f32, PartialShape{2, 12, 3});
    auto b = op::parameter(element::f32, PartialShape{2, 12});
    auto lstm =
        make_node("LSTMSequence", {x, h, h, lens, w, r, b},
                  {{"hidden_size", int64_t{3}}, {"direction", std::string("bidirectional")}}, 5);
    EXPECT_EQ(lstm->get_output_partial_shape(0).to_string(), "[?,2,?,3]");
    EXPECT_EQ(lstm->get_output_partial_shape(2).to_string(), "[?,2,3]");
    // A forward layer given two directions' weights is refused, naming the node.
    EXPECT_THROW(make_node("LSTMSequence", {x, h, h, lens, w, r, b},
                           {{"hidden_size", int64_t{3}}, {"direction", std::string("forward")}}, 5),
                 InvalidArgument);
}

}  // namespace
}  // namespace vireo::test
