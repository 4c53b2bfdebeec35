// Tests Softmax (v1, v8) and LogSoftmax (v5): every axis incl. negative, every real type, large
// inputs (stability), infinities, and one kernel run on two shapes.
#include "math_test_util.hpp"

namespace vireo::reference::test {
namespace {

/// Softmax (or log-softmax) along `axis` of a row-major tensor, by a plain loop.
std::vector<double> expected_softmax(const std::vector<double>& x, const Shape& shape, size_t axis,
                                     bool log) {
    size_t outer = 1, inner = 1;
    for (size_t i = 0; i < axis; ++i) outer *= shape[i];
    for (size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
    const size_t n = shape[axis];
    std::vector<double> out(x.size());
    for (size_t o = 0; o < outer; ++o)
        for (size_t k = 0; k < inner; ++k) {
            double peak = -INFINITY;
            for (size_t j = 0; j < n; ++j) peak = std::max(peak, x[(o * n + j) * inner + k]);
            double sum = 0;
            for (size_t j = 0; j < n; ++j) sum += std::exp(x[(o * n + j) * inner + k] - peak);
            for (size_t j = 0; j < n; ++j) {
                const double v = x[(o * n + j) * inner + k] - peak;
                out[(o * n + j) * inner + k] = log ? v - std::log(sum) : std::exp(v) / sum;
            }
        }
    return out;
}

std::vector<double> ramp(size_t n, double scale) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<double>(i) * 1.3) * scale;
    return v;
}

TEST(Softmax, EveryAxisOfARank3Tensor) {
    const Shape shape{2, 3, 4};
    const auto x = ramp(24, 3.0);
    for (int64_t axis = -3; axis < 3; ++axis) {
        const size_t a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
        expect_values(run("Softmax", {f32(shape, x)}, {{"axis", axis}}, 8),
                      expected_softmax(x, shape, a, false), 1e-6,
                      "Softmax-8 axis " + std::to_string(axis));
        expect_values(run("LogSoftmax", {f32(shape, x)}, {{"axis", axis}}, 5),
                      expected_softmax(x, shape, a, true), 1e-5,
                      "LogSoftmax axis " + std::to_string(axis));
        if (axis >= 0)
            expect_values(run("Softmax", {f32(shape, x)}, {{"axis", axis}}, 1),
                          expected_softmax(x, shape, a, false), 1e-6,
                          "Softmax-1 axis " + std::to_string(axis));
    }
}

TEST(Softmax, EveryRealType) {
    const Shape shape{3, 5};
    for (const element::Type type : real_types()) {
        const Tensor x = make_tensor(type, shape, ramp(15, 2.0));
        const auto xs = values_of(x);
        expect_values(run("Softmax", {x}, {{"axis", int64_t{1}}}, 8),
                      expected_softmax(xs, shape, 1, false), -1, std::string(type.name()));
        expect_values(run("LogSoftmax", {x}, {{"axis", int64_t{0}}}, 5),
                      expected_softmax(xs, shape, 0, true), -1, std::string(type.name()));
    }
}

TEST(Softmax, LargeInputsDoNotOverflow) {
    // exp(1000) overflows double; the max shift keeps the result exact.
    expect_values(run("Softmax", {f32({1, 3}, {1000, 1000, 999})}, {{"axis", int64_t{-1}}}, 8),
                  {1 / (2 + std::exp(-1.0)), 1 / (2 + std::exp(-1.0)),
                   std::exp(-1.0) / (2 + std::exp(-1.0))});
    expect_values(run("LogSoftmax", {f32({2}, {-1000, 0})}, {{"axis", int64_t{0}}}, 5), {-1000, 0});
    // A -inf logit gets probability 0.
    expect_values(run("Softmax", {f32({3}, {-INFINITY, 0, 0})}, {{"axis", int64_t{0}}}, 8),
                  {0, 0.5, 0.5});
}

TEST(Softmax, SameKernelOnTwoShapes) {
    const NodePtr node =
        make_node("Softmax", {op::parameter(element::f32, PartialShape::dynamic())},
                  {{"axis", int64_t{-1}}}, 8);
    const auto kernel = KernelRegistry::instance().create(*node);
    for (const Shape& shape : {Shape{2, 3}, Shape{4, 1, 5}}) {
        const auto x = ramp(shape_size(shape), 1.5);
        std::vector<Tensor> out{Tensor(element::f32, shape)};
        kernel->execute({f32(shape, x)}, out);
        expect_values(out[0], expected_softmax(x, shape, shape.size() - 1, false), 1e-6,
                      shape.to_string());
    }
}

}  // namespace
}  // namespace vireo::reference::test
