// Tests Convolution and GroupConvolution against a plain-loop reference: 1-D to 3-D, strides,
// dilations, explicit pads and every auto_pad mode, groups, depthwise, 1x1, constant filters,
// several element types.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

struct ConvCase {
    Shape x;  // [N, C, spatial...]
    Shape w;  // [C_OUT, C_IN, k...] or [G, C_OUT/G, C_IN/G, k...]
    bool grouped;
    Ints strides, dilations, pads_begin, pads_end;
    std::string auto_pad = "explicit";
    bool constant_filter = false;
};

// Spatial output size and begin pad of one axis, computed from the spec's formulas.
void axis_geometry(const ConvCase& c, size_t i, size_t in, size_t k, size_t* out, int64_t* pad) {
    const int64_t s = c.strides[i], d = c.dilations[i];
    const int64_t dilated = (static_cast<int64_t>(k) - 1) * d + 1;
    if (c.auto_pad == "same_upper" || c.auto_pad == "same_lower") {
        *out = (in + s - 1) / s;
        const int64_t total = std::max<int64_t>(
            0, (static_cast<int64_t>(*out) - 1) * s + dilated - static_cast<int64_t>(in));
        *pad = c.auto_pad == "same_upper" ? total / 2 : (total + 1) / 2;
    } else if (c.auto_pad == "valid") {
        *out = (in - dilated) / s + 1;
        *pad = 0;
    } else {
        *out = (static_cast<int64_t>(in) + c.pads_begin[i] + c.pads_end[i] - dilated) / s + 1;
        *pad = c.pads_begin[i];
    }
}

// Plain nested loops over an N-D convolution with groups.
std::vector<double> reference_conv(const ConvCase& c, const std::vector<double>& x,
                                   const std::vector<double>& w, Shape* out_shape) {
    const size_t rank = c.x.size() - 2, lead = c.grouped ? 3 : 2;
    const size_t groups = c.grouped ? c.w[0] : 1;
    const size_t cout_g = c.grouped ? c.w[1] : c.w[0], cin_g = c.grouped ? c.w[2] : c.w[1];
    std::vector<size_t> out(rank), kernel(rank);
    std::vector<int64_t> pad(rank);
    for (size_t i = 0; i < rank; ++i) {
        kernel[i] = c.w[lead + i];
        axis_geometry(c, i, c.x[2 + i], kernel[i], &out[i], &pad[i]);
    }
    *out_shape = Shape{c.x[0], groups * cout_g};
    for (size_t o : out) out_shape->push_back(o);
    size_t in_vol = 1, out_vol = 1, k_vol = 1;
    for (size_t i = 0; i < rank; ++i) in_vol *= c.x[2 + i], out_vol *= out[i], k_vol *= kernel[i];
    std::vector<double> y(c.x[0] * groups * cout_g * out_vol, 0.0);
    std::vector<size_t> oc(rank), kc(rank);
    for (size_t n = 0; n < c.x[0]; ++n)
        for (size_t g = 0; g < groups; ++g)
            for (size_t co = 0; co < cout_g; ++co)
                for (size_t op = 0; op < out_vol; ++op) {
                    size_t r = op;
                    for (size_t i = rank; i-- > 0;) oc[i] = r % out[i], r /= out[i];
                    double sum = 0;
                    for (size_t ci = 0; ci < cin_g; ++ci)
                        for (size_t kp = 0; kp < k_vol; ++kp) {
                            size_t rk = kp;
                            for (size_t i = rank; i-- > 0;) kc[i] = rk % kernel[i], rk /= kernel[i];
                            size_t in_index = 0;
                            bool inside = true;
                            for (size_t i = 0; i < rank; ++i) {
                                const int64_t pos = static_cast<int64_t>(oc[i]) * c.strides[i] +
                                                    static_cast<int64_t>(kc[i]) * c.dilations[i] -
                                                    pad[i];
                                if (pos < 0 || pos >= static_cast<int64_t>(c.x[2 + i]))
                                    inside = false;
                                in_index = in_index * c.x[2 + i] +
                                           static_cast<size_t>(std::max<int64_t>(pos, 0));
                            }
                            if (!inside) continue;
                            const size_t channel = g * cin_g + ci;
                            sum += x[(n * c.x[1] + channel) * in_vol + in_index] *
                                   w[((g * cout_g + co) * cin_g + ci) * k_vol + kp];
                        }
                    y[((n * groups + g) * cout_g + co) * out_vol + op] = sum;
                }
    return y;
}

void check_conv(const ConvCase& c, element::Type type = element::f32, double tol = 1e-5) {
    const bool integral = type.is_integral_number();
    const auto xv =
        random_values(shape_size(c.x), 21, integral ? -3 : -1, integral ? 4 : 1, integral);
    const auto wv =
        random_values(shape_size(c.w), 22, integral ? -3 : -1, integral ? 4 : 1, integral);
    const Tensor xt = make_tensor(type, c.x, xv), wt = make_tensor(type, c.w, wv);
    Attrs attrs{{"strides", c.strides},
                {"dilations", c.dilations},
                {"pads_begin", c.pads_begin},
                {"pads_end", c.pads_end},
                {"auto_pad", c.auto_pad}};
    NodePtr w_node = c.constant_filter ? constant(wt) : param(type, c.w);
    auto node = make_node(c.grouped ? "GroupConvolution" : "Convolution",
                          {param(type, c.x), w_node}, attrs);
    const auto out = run(node, {xt, wt});
    Shape expected_shape;
    const auto expected = reference_conv(c, values_of(xt), values_of(wt), &expected_shape);
    ASSERT_EQ(out[0].get_shape(), expected_shape);
    expect_near(values_of(out[0]), expected, tol, node->describe() + " on " + c.x.to_string());
}

TEST(ConvolutionKernel, Conv2dPaddedMatchesLoops) {
    // The golden cnn's layers, smaller: 3x3, pad 1.
    check_conv(
        {{1, 3, 17, 19}, {8, 3, 3, 3}, false, {1, 1}, {1, 1}, {1, 1}, {1, 1}, "explicit", true});
    check_conv(
        {{2, 5, 9, 7}, {33, 5, 3, 3}, false, {1, 1}, {1, 1}, {1, 1}, {1, 1}, "explicit", false});
}

TEST(ConvolutionKernel, StridesDilationsAndAsymmetricPads) {
    check_conv({{1, 4, 15, 16}, {6, 4, 3, 2}, false, {2, 3}, {1, 1}, {0, 2}, {1, 0}});
    check_conv(
        {{1, 3, 14, 13}, {5, 3, 3, 3}, false, {1, 2}, {2, 3}, {2, 1}, {2, 3}, "explicit", true});
    check_conv({{1, 2, 9, 9}, {3, 2, 2, 2}, false, {3, 3}, {2, 2}, {0, 0}, {0, 0}});
}

TEST(ConvolutionKernel, AutoPadModes) {
    for (const char* mode : {"same_upper", "same_lower", "valid"}) {
        SCOPED_TRACE(mode);
        check_conv({{1, 3, 10, 11}, {4, 3, 4, 3}, false, {2, 2}, {1, 1}, {}, {}, mode, true});
        check_conv({{1, 2, 7, 8}, {3, 2, 2, 2}, false, {1, 1}, {2, 1}, {}, {}, mode});
    }
}

TEST(ConvolutionKernel, OneByOneConvolutionIsAProduct) {
    check_conv(
        {{2, 16, 5, 7}, {9, 16, 1, 1}, false, {1, 1}, {1, 1}, {0, 0}, {0, 0}, "explicit", true});
    check_conv(
        {{1, 16, 5, 7}, {9, 16, 1, 1}, false, {2, 2}, {1, 1}, {0, 0}, {0, 0}});  // strided 1x1
}

TEST(ConvolutionKernel, OneAndThreeSpatialAxes) {
    check_conv({{2, 3, 20}, {4, 3, 5}, false, {2}, {2}, {3}, {1}});
    check_conv({{1, 2, 5, 6, 7},
                {3, 2, 3, 2, 3},
                false,
                {1, 2, 1},
                {1, 1, 2},
                {1, 0, 2},
                {1, 1, 0},
                "explicit",
                true});
}

TEST(ConvolutionKernel, LargeChannelCountsCrossGemmBlocks) {
    // K = 40 * 9 = 360 > 256 (two depth blocks); 140 output channels > 128 rows.
    check_conv(
        {{1, 40, 6, 5}, {140, 40, 3, 3}, false, {1, 1}, {1, 1}, {1, 1}, {1, 1}, "explicit", true},
        element::f32, 1e-4);
}

TEST(GroupConvolutionKernel, GroupsAndDepthwise) {
    check_conv(
        {{1, 6, 8, 9}, {3, 4, 2, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}, {1, 1}, "explicit", true});
    check_conv({{2, 6, 8, 9}, {2, 5, 3, 2, 2}, true, {2, 1}, {1, 2}, {0, 1}, {1, 0}});
    // Depthwise: one input and one output channel per group.
    check_conv(
        {{1, 8, 7, 7}, {8, 1, 1, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}, {1, 1}, "explicit", true});
    check_conv({{1, 4, 9}, {4, 2, 1, 3}, true, {2}, {1}, {}, {}, "same_upper"});
}

TEST(GroupConvolutionKernel, DepthwiseStridesDilationsPadsAndTypes) {
    check_conv({{2, 4, 9, 8}, {4, 1, 1, 3, 3}, true, {2, 2}, {2, 1}, {2, 1}, {1, 2}});
    check_conv({{1, 3, 11}, {3, 1, 1, 4}, true, {3}, {1}, {2}, {2}, "explicit", true});
    check_conv(
        {{1, 2, 3, 4, 5}, {2, 1, 1, 2, 3, 2}, true, {1, 2, 1}, {1, 1, 2}, {1, 1, 0}, {0, 1, 1}});
    check_conv({{1, 4, 6, 7}, {4, 1, 1, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, element::f16,
               1e-2);
}

TEST(ConvolutionKernel, OtherElementTypes) {
    for (element::Type type :
         {element::f16, element::bf16, element::f64, element::i32, element::i64, element::i8}) {
        SCOPED_TRACE(type.name());
        const double tol = type == element::f16 ? 1e-2 : type == element::bf16 ? 5e-2 : 1e-9;
        if (type == element::i8) {
            // Keep the sums in i8 range: 1 channel, 2x2 window of small values.
            const auto x = make_tensor(type, {1, 1, 2, 3}, std::vector<int>{1, 2, 3, -1, 0, 2});
            const auto w = make_tensor(type, {1, 1, 2, 2}, std::vector<int>{1, -1, 2, 1});
            auto node = make_node("Convolution", {param(type, {1, 1, 2, 3}), constant(w)},
                                  {{"strides", Ints{1, 1}},
                                   {"dilations", Ints{1, 1}},
                                   {"pads_begin", Ints{0, 0}},
                                   {"pads_end", Ints{0, 0}}});
            // (1-2-2+0)=-3, (2-3+0+2)=1
            EXPECT_EQ(values_of(run(node, {x, w})[0]), (std::vector<double>{-3, 1}));
            continue;
        }
        check_conv({{1, 3, 6, 5}, {4, 3, 3, 3}, false, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, type, tol);
        check_conv(
            {{1, 4, 6, 5}, {2, 3, 2, 2, 2}, true, {2, 1}, {1, 1}, {0, 1}, {0, 0}, "explicit", true},
            type, tol);
    }
}

TEST(ConvolutionKernel, HandComputedValues) {
    // 3x3 input 1..9, 2x2 filter of ones, no padding: sums of each 2x2 block.
    const auto x =
        make_tensor(element::f32, {1, 1, 3, 3}, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9});
    const auto w = make_tensor(element::f32, {1, 1, 2, 2}, std::vector<float>{1, 1, 1, 1});
    auto node = make_node("Convolution", {param(element::f32, {1, 1, 3, 3}), constant(w)},
                          {{"strides", Ints{1, 1}},
                           {"dilations", Ints{1, 1}},
                           {"pads_begin", Ints{0, 0}},
                           {"pads_end", Ints{0, 0}}});
    EXPECT_EQ(values_of(run(node, {x, w})[0]), (std::vector<double>{12, 16, 24, 28}));
}

}  // namespace
}  // namespace vireo::test
