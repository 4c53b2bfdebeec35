// Patterns replaced by one oneDNN kernel: exported Gelu (erf), the LayerNorm chain, Softmax, and
// ONNX Clip (Maximum + Minimum) on a convolution; each against TEMPLATE on random inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

NodePtr scalar(float v) {
    return op::constant<float>(element::f32, {}, {v});
}

size_t count_type(const std::vector<ProfilingInfo>& rows, const std::string& type) {
    size_t n = 0;
    for (const auto& r : rows) n += r.node_type == type;
    return n;
}

std::shared_ptr<Model> exported_gelu(bool half_first) {
    auto x = op::parameter(element::f32, {2, 6, 32}, "x");
    auto h = op::add(op::matmul(x, op::constant(random_tensor({32, 64}, 1, -0.5f, 0.5f))),
                     op::constant(random_tensor({64}, 2)));
    auto erf = op::unary("Erf", op::divide(h, scalar(std::sqrt(2.f))));
    auto one_plus = op::add(erf, scalar(1.f));
    auto y = half_first ? op::multiply(op::multiply(h, scalar(0.5f)), one_plus)
                        : op::multiply(op::multiply(h, one_plus), scalar(0.5f));
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "gelu");
}

TEST(Patterns, ExportedGeluBecomesOnePostOp) {
    for (bool half_first : {false, true}) {
        SCOPED_TRACE(half_first);
        auto model = exported_gelu(half_first);
        expect_matches_template(model, 1e-4, 1e-5);
        const auto rows = cpu_profile(model);
        EXPECT_EQ(count_type(rows, "MatMul+Add+Gelu"), 1u);
        EXPECT_EQ(rows.size(), 1u);
    }
}

std::shared_ptr<Model> layer_norm(float eps, bool affine) {
    auto x = op::parameter(element::f32, {3, 5, 48}, "x");
    auto axes = op::constant<int64_t>(element::i64, {1}, {-1});
    auto mean = op::reduce_mean(x, axes, true);
    auto d = op::subtract(x, mean);
    auto var = op::reduce_mean(op::power(d, scalar(2.f)), axes, true);
    Output y = op::divide(d, op::sqrt(op::add(var, scalar(eps))));
    if (affine) {
        y = op::multiply(y, op::constant(random_tensor({48}, 3)));
        y = op::add(y, op::constant(random_tensor({48}, 4)));
    }
    return std::make_shared<Model>(OutputVector{op::relu(y)}, ParameterVector{x}, "layer_norm");
}

TEST(Patterns, LayerNormChainWithItsEpsilon) {
    // A large epsilon changes the result visibly, so a kernel that ignored it would fail.
    for (float eps : {1e-5f, 0.5f}) {
        for (bool affine : {false, true}) {
            SCOPED_TRACE(std::to_string(eps) + (affine ? " affine" : ""));
            auto model = layer_norm(eps, affine);
            expect_matches_template(model, 1e-4, 1e-5);
            EXPECT_EQ(count_type(cpu_profile(model), "LayerNorm"), 1u);
        }
    }
}

TEST(Patterns, MvnOverTheLastAxisWithAffine) {
    for (float eps : {1e-6f, 0.25f}) {
        auto x = op::parameter(element::f32, {2, 7, 40}, "x");
        auto n =
            op::mvn(x, op::constant<int64_t>(element::i64, {1}, {-1}), true, eps, "inside_sqrt");
        auto y = op::add(op::multiply(n, op::constant(random_tensor({40}, 8))),
                         op::constant(random_tensor({40}, 9)));
        auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "mvn");
        SCOPED_TRACE(eps);
        expect_matches_template(model, 1e-4, 1e-5);
        const auto rows = cpu_profile(model);
        EXPECT_EQ(count_type(rows, "LayerNorm"), 1u);
        EXPECT_EQ(rows.size(), 1u);
    }
}

// InstanceNormalization (MVN over the spatial axes) after a convolution, with its per-channel
// scale and shift, and an MVN over the last two axes of a rank-5 value (a GroupNorm reshaped to
// [N, G, C/G, H, W] normalizes [C/G, H, W]: here the last three). Sizes not a multiple of the
// vector width; the axes given in any order and negative.
TEST(Patterns, MvnOverTrailingAxesIsOneLayerNorm) {
    struct MvnCase {
        Shape shape;
        std::vector<int64_t> axes;
    };
    for (const auto& c : std::vector<MvnCase>{{{1, 8, 13, 11}, {2, 3}},
                                              {{2, 3, 5, 7}, {-1, -2}},
                                              {{2, 4, 3, 5, 7}, {4, 2, 3}},
                                              {{3, 33}, {0, 1}}}) {
        SCOPED_TRACE(c.shape.size());
        auto x = op::parameter(element::f32, PartialShape(c.shape), "x");
        auto n = op::mvn(op::relu(x), op::constant<int64_t>(element::i64, {c.axes.size()}, c.axes),
                         true, 1e-5, "inside_sqrt");
        auto model = std::make_shared<Model>(OutputVector{n}, ParameterVector{x}, "mvn");
        expect_matches_template(model, 1e-4, 1e-5);
        EXPECT_EQ(count_type(cpu_profile(model), "LayerNorm"), 1u);
    }
    // After a convolution (channels-last), with InstanceNormalization's per-channel affine.
    auto x = op::parameter(element::f32, {1, 4, 9, 9}, "x");
    auto c = op::convolution(x, op::constant(random_tensor({16, 4, 3, 3}, 11)), {1, 1}, {1, 1},
                             {1, 1}, {1, 1});
    auto n =
        op::mvn(c, op::constant<int64_t>(element::i64, {2}, {2, 3}), true, 1e-5, "inside_sqrt");
    auto y = op::relu(op::add(op::multiply(n, op::constant(random_tensor({1, 16, 1, 1}, 12))),
                              op::constant(random_tensor({1, 16, 1, 1}, 13))));
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "instance_norm");
    expect_matches_template(model, 1e-4, 1e-5);
    EXPECT_EQ(count_type(cpu_profile(model), "LayerNorm"), 1u);
}

TEST(Patterns, MvnLeftToTheReferenceKernelStillMatches) {
    // Axes that are not the trailing ones, eps outside the root, no variance, an empty tensor.
    for (const auto& [shape, axes, variance, mode] :
         std::vector<std::tuple<Shape, std::vector<int64_t>, bool, std::string>>{
             {{2, 3, 5, 7}, {1, 2}, true, "inside_sqrt"},
             {{2, 3, 5, 7}, {2, 3}, true, "outside_sqrt"},
             {{2, 3, 5, 7}, {2, 3}, false, "inside_sqrt"},
             {{2, 0, 5, 7}, {2, 3}, true, "inside_sqrt"}}) {
        auto x = op::parameter(element::f32, PartialShape(shape), "x");
        auto n = op::mvn(x, op::constant<int64_t>(element::i64, {axes.size()}, axes), variance,
                         1e-5, mode);
        expect_matches_template(std::make_shared<Model>(OutputVector{n}, ParameterVector{x}, "mvn"),
                                1e-4, 1e-5);
    }
}

TEST(Patterns, SoftmaxOnEveryAxis) {
    for (int64_t axis : {-1, 0, 1, 2}) {
        auto x = op::parameter(element::f32, {2, 3, 17}, "x");
        auto model = std::make_shared<Model>(OutputVector{op::softmax(x, axis)}, ParameterVector{x},
                                             "softmax");
        SCOPED_TRACE(axis);
        expect_matches_template(model, 1e-5, 1e-6);
        EXPECT_EQ(count_type(cpu_profile(model), "Softmax"), 1u);
    }
}

TEST(Patterns, OnnxClipOnConvolutionIsOneClamp) {
    auto x = op::parameter(element::f32, {1, 4, 10, 10}, "x");
    auto w = op::constant(random_tensor({8, 4, 1, 1}, 5));
    auto c = op::convolution(x, w, {2, 2}, {0, 0}, {0, 0}, {1, 1});  // 1x1, stride 2
    auto y = op::minimum(op::maximum(c, scalar(0.f)), scalar(0.3f));
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "clip");
    expect_matches_template(model, 1e-5, 1e-6);
    EXPECT_EQ(count_type(cpu_profile(model), "Convolution+Maximum+Minimum"), 1u);
}

}  // namespace
}  // namespace vireo::cpu_test
