// Tests ConvolutionBackpropData against a plain scatter loop: strides, dilations, pads,
// output_padding, the output_shape input with every auto_pad mode, 1-D to 3-D, element types.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

struct BackpropCase {
    Shape x;  // [N, C_IN, spatial...]
    Shape w;  // [C_IN, C_OUT, k...]
    Ints strides, dilations, pads_begin, pads_end, output_padding;
    std::string auto_pad = "explicit";
    Ints output_shape = {};  // spatial; empty: no output_shape input
    bool constant_filter = false;
};

// y[n][co][o] += x[n][ci][i] * w[ci][co][k] for o = i * s + k * d - pad_begin (per axis).
std::vector<double> reference_backprop(const BackpropCase& c, const std::vector<double>& x,
                                       const std::vector<double>& w, Shape* out_shape) {
    const size_t rank = c.x.size() - 2;
    std::vector<size_t> out(rank);
    std::vector<int64_t> pad(rank);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t in = static_cast<int64_t>(c.x[2 + i]), k = static_cast<int64_t>(c.w[2 + i]);
        const int64_t s = c.strides[i], d = c.dilations[i];
        const int64_t op = c.output_padding.empty() ? 0 : c.output_padding[i];
        const bool explicit_pads = c.auto_pad == "explicit";
        if (!c.output_shape.empty()) {
            out[i] = static_cast<size_t>(c.output_shape[i]);
            const int64_t total =
                std::max<int64_t>(0, s * (in - 1) + d * (k - 1) + 1 - c.output_shape[i] + op);
            pad[i] = c.auto_pad == "same_upper"   ? total - total / 2
                     : c.auto_pad == "same_lower" ? total / 2
                     : explicit_pads              ? c.pads_begin[i]
                                                  : 0;
        } else {
            const int64_t pb = explicit_pads ? c.pads_begin[i] : 0,
                          pe = explicit_pads ? c.pads_end[i] : 0;
            out[i] = static_cast<size_t>(s * (in - 1) + d * (k - 1) + 1 - pb - pe + op);
            pad[i] = pb;
        }
    }
    *out_shape = Shape{c.x[0], c.w[1]};
    size_t in_vol = 1, out_vol = 1, k_vol = 1;
    for (size_t i = 0; i < rank; ++i) {
        out_shape->push_back(out[i]);
        in_vol *= c.x[2 + i], out_vol *= out[i], k_vol *= c.w[2 + i];
    }
    std::vector<double> y(c.x[0] * c.w[1] * out_vol, 0.0);
    std::vector<size_t> ic(rank), kc(rank);
    for (size_t n = 0; n < c.x[0]; ++n)
        for (size_t ci = 0; ci < c.x[1]; ++ci)
            for (size_t co = 0; co < c.w[1]; ++co)
                for (size_t ip = 0; ip < in_vol; ++ip) {
                    size_t r = ip;
                    for (size_t i = rank; i-- > 0;) ic[i] = r % c.x[2 + i], r /= c.x[2 + i];
                    for (size_t kp = 0; kp < k_vol; ++kp) {
                        size_t rk = kp;
                        for (size_t i = rank; i-- > 0;) kc[i] = rk % c.w[2 + i], rk /= c.w[2 + i];
                        size_t o_index = 0;
                        bool inside = true;
                        for (size_t i = 0; i < rank; ++i) {
                            const int64_t o = static_cast<int64_t>(ic[i]) * c.strides[i] +
                                              static_cast<int64_t>(kc[i]) * c.dilations[i] - pad[i];
                            if (o < 0 || o >= static_cast<int64_t>(out[i])) inside = false;
                            o_index =
                                o_index * out[i] + static_cast<size_t>(std::max<int64_t>(o, 0));
                        }
                        if (!inside) continue;
                        y[(n * c.w[1] + co) * out_vol + o_index] +=
                            x[(n * c.x[1] + ci) * in_vol + ip] * w[(ci * c.w[1] + co) * k_vol + kp];
                    }
                }
    return y;
}

void check_backprop(const BackpropCase& c, element::Type type = element::f32, double tol = 1e-5) {
    const bool integral = type.is_integral_number();
    const auto xv =
        random_values(shape_size(c.x), 31, integral ? -3 : -1, integral ? 4 : 1, integral);
    const auto wv =
        random_values(shape_size(c.w), 32, integral ? -3 : -1, integral ? 4 : 1, integral);
    const Tensor xt = make_tensor(type, c.x, xv), wt = make_tensor(type, c.w, wv);
    Attrs attrs{{"strides", c.strides},       {"dilations", c.dilations},
                {"pads_begin", c.pads_begin}, {"pads_end", c.pads_end},
                {"auto_pad", c.auto_pad},     {"output_padding", c.output_padding}};
    OutputVector args{param(type, c.x), c.constant_filter ? constant(wt) : param(type, c.w)};
    std::vector<Tensor> values{xt, wt};
    if (!c.output_shape.empty()) {
        const auto os = make_tensor(element::i64, {c.output_shape.size()}, c.output_shape);
        args.push_back(constant(os));
        values.push_back(os);
    }
    auto node = make_node("ConvolutionBackpropData", args, attrs);
    const auto out = run(node, values);
    Shape expected_shape;
    const auto expected = reference_backprop(c, values_of(xt), values_of(wt), &expected_shape);
    ASSERT_EQ(out[0].get_shape(), expected_shape);
    expect_near(values_of(out[0]), expected, tol, "ConvolutionBackpropData on " + c.x.to_string());
}

TEST(ConvolutionBackpropKernel, Strided2dWithPadsAndOutputPadding) {
    check_backprop(
        {{1, 3, 5, 4}, {3, 4, 3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, "explicit", {}, true});
    check_backprop({{2, 2, 4, 3}, {2, 3, 2, 3}, {1, 2}, {2, 1}, {0, 1}, {1, 0}, {0, 0}});
}

TEST(ConvolutionBackpropKernel, OutputShapeInputWithAutoPad) {
    for (const char* mode : {"same_upper", "same_lower", "explicit", "valid"}) {
        SCOPED_TRACE(mode);
        check_backprop(
            {{1, 2, 4, 4}, {2, 3, 3, 3}, {2, 2}, {1, 1}, {1, 0}, {0, 0}, {}, mode, {8, 7}, true});
    }
    // valid without output_shape ignores the pads.
    check_backprop({{1, 2, 3, 3}, {2, 2, 2, 2}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {}, "valid"});
}

TEST(ConvolutionBackpropKernel, OneAndThreeSpatialAxes) {
    check_backprop({{2, 3, 6}, {3, 2, 4}, {3}, {1}, {1}, {2}, {1}});
    check_backprop({{1, 2, 3, 2, 3},
                    {2, 2, 2, 2, 2},
                    {2, 1, 2},
                    {1, 2, 1},
                    {0, 1, 0},
                    {1, 0, 0},
                    {},
                    "explicit",
                    {},
                    true});
}

TEST(ConvolutionBackpropKernel, OtherElementTypes) {
    check_backprop({{1, 2, 3, 3}, {2, 2, 2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, {}}, element::f16,
                   1e-2);
    check_backprop({{1, 2, 3, 3}, {2, 2, 2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, {}}, element::i32,
                   0);
    check_backprop(
        {{1, 2, 3, 3}, {2, 2, 2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {}, "explicit", {}, true},
        element::f64, 1e-12);
}

TEST(ConvolutionBackpropKernel, HandComputedStrideTwo) {
    // 1-D: x = [1, 2], w = [1, 10], stride 2: y = [1, 10, 2, 20].
    const auto x = make_tensor(element::f32, {1, 1, 2}, std::vector<float>{1, 2});
    const auto w = make_tensor(element::f32, {1, 1, 2}, std::vector<float>{1, 10});
    auto node = make_node("ConvolutionBackpropData", {param(element::f32, {1, 1, 2}), constant(w)},
                          {{"strides", Ints{2}},
                           {"dilations", Ints{1}},
                           {"pads_begin", Ints{0}},
                           {"pads_end", Ints{0}}});
    EXPECT_EQ(values_of(run(node, {x, w})[0]), (std::vector<double>{1, 10, 2, 20}));
}

}  // namespace
}  // namespace vireo::test
