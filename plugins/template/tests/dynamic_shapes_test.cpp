// Dynamic shapes: shapes re-inferred per inference from actual inputs (and values: Reshape
// driven by ShapeOf), outputs sized after execution, memory grown only when needed.
#include <gtest/gtest.h>

#include "config.hpp"
#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::template_test {
namespace {

// y = Reshape(Relu(x), ShapeOf(x) / [1, 2] * [2, 1]): x [n, 4] -> y [2n, 2].
std::shared_ptr<Model> reshape_by_shape_of_model() {
    auto x = op::parameter(element::f32, PartialShape{Dimension::dynamic(), 4}, "x");
    auto relu = op::relu(x);
    auto shape = op::shape_of(x, element::i64);
    auto halved = op::divide(shape, op::constant<int64_t>(element::i64, Shape{2}, {1, 2}));
    auto target = op::multiply(halved, op::constant<int64_t>(element::i64, Shape{2}, {2, 1}));
    auto y = op::reshape(relu, target, false);
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "reshape_by_shape_of");
}

TEST(TemplateDynamic, ReshapeDrivenByShapeOfFollowsTheInput) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(reshape_by_shape_of_model(), "TEMPLATE");
    EXPECT_TRUE(compiled.output(0).get_partial_shape().is_dynamic());
    InferRequest request = compiled.create_infer_request();
    for (size_t n : {3u, 5u, 1u, 5u}) {
        Tensor x(element::f32, Shape{n, 4});
        fill_pattern(x, static_cast<int>(n));
        request.set_tensor("x", x);
        request.infer();
        const Tensor y = request.get_tensor("y");
        ASSERT_EQ(y.get_shape(), (Shape{2 * n, 2}));
        for (size_t i = 0; i < x.get_size(); ++i) {
            const float v = x.data<float>()[i];
            ASSERT_EQ(y.data<float>()[i], v > 0 ? v : 0.0f) << "n=" << n << " i=" << i;
        }
    }
}

TEST(TemplateDynamic, ShapeOfOfADynamicShapeIsNotFolded) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(reshape_by_shape_of_model(), "TEMPLATE");
    size_t shape_ofs = 0;
    for (const auto& node : compiled.get_runtime_model()->get_ordered_ops())
        shape_ofs += node->get_type_name() == "ShapeOf";
    EXPECT_EQ(shape_ofs, 1u);
}

TEST(TemplateDynamic, MemoryGrowsOnlyForLargerShapes) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(reshape_by_shape_of_model(), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    auto run = [&](size_t n) {
        Tensor x(element::f32, Shape{n, 4});
        fill_pattern(x, 1);
        request.set_tensor("x", x);
        request.infer();
        return compiled.get_property(template_plugin::arena_allocations);
    };
    const uint64_t after_big = run(64);
    EXPECT_GT(after_big, 0u);
    EXPECT_EQ(run(8), after_big);    // smaller: fits the buffers already there
    EXPECT_EQ(run(64), after_big);   // same as before: nothing new
    EXPECT_GT(run(128), after_big);  // larger: buffers grow
}

TEST(TemplateDynamic, UserOutputTensorOfTheRightShapeIsWrittenInPlace) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(reshape_by_shape_of_model(), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    Tensor x(element::f32, Shape{3, 4});
    fill_pattern(x, 9);
    std::vector<float> out(12, -5.0f);
    request.set_tensor("x", x);
    request.set_tensor("y", Tensor(element::f32, Shape{6, 2}, out.data()));
    request.infer();
    EXPECT_EQ(request.get_tensor("y").data(), out.data());
    for (size_t i = 0; i < 12; ++i) EXPECT_EQ(out[i], std::max(0.0f, x.data<float>()[i]));
}

TEST(TemplateDynamic, TooSmallUserOutputIsAnErrorNamingTheOutput) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(reshape_by_shape_of_model(), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    Tensor x(element::f32, Shape{3, 4});
    std::vector<float> out(4);
    request.set_tensor("x", x);
    request.set_tensor("y", Tensor(element::f32, Shape{2, 2}, out.data()));
    try {
        request.infer();
        FAIL() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("'y'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("[6,2]"), std::string::npos) << e.what();
    }
}

// NonZero's output length depends on every value of its (large) input, not only on its shape:
// the same input shape with different values must give different output shapes.
TEST(TemplateDynamic, NonZeroOfALargeInputFollowsItsValues) {
    auto x = op::parameter(element::f32, PartialShape{100}, "x");
    auto nz = make_node("NonZero", {x});
    nz->output(0).set_names({"y"});
    auto model = std::make_shared<Model>(OutputVector{nz}, ParameterVector{x}, "non_zero");
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    for (size_t every : {10u, 25u, 7u, 25u}) {
        Tensor input(element::f32, Shape{100});
        std::vector<int64_t> expected;
        for (size_t i = 0; i < 100; ++i) {
            input.data<float>()[i] = i % every == 0 ? 1.0f : 0.0f;
            if (i % every == 0) expected.push_back(static_cast<int64_t>(i));
        }
        request.set_tensor("x", input);
        request.infer();
        const Tensor y = request.get_tensor("y");
        ASSERT_EQ(y.get_shape(), (Shape{1, expected.size()})) << "every " << every;
        for (size_t k = 0; k < expected.size(); ++k)
            ASSERT_EQ(y.data<int64_t>()[k], expected[k]) << k;
    }
}

TEST(TemplateDynamic, UniqueOfALargeInputFollowsItsValues) {
    auto x = op::parameter(element::i32, PartialShape{100}, "x");
    auto unique = make_node("Unique", {x});
    unique->output(0).set_names({"values"});
    unique->output(3).set_names({"counts"});
    auto model = std::make_shared<Model>(OutputVector{unique->output(0), unique->output(3)},
                                         ParameterVector{x}, "unique");
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    for (int modulo : {3, 10, 3}) {
        Tensor input(element::i32, Shape{100});
        for (int i = 0; i < 100; ++i) input.data<int32_t>()[i] = (i * 7) % modulo;
        request.set_tensor("x", input);
        request.infer();
        const Tensor values = request.get_tensor("values");
        ASSERT_EQ(values.get_shape(), (Shape{static_cast<size_t>(modulo)})) << modulo;
        int64_t total = 0;
        for (int k = 0; k < modulo; ++k) {
            EXPECT_EQ(values.data<int32_t>()[k], k);
            total += request.get_tensor("counts").data<int64_t>()[k];
        }
        EXPECT_EQ(total, 100);
    }
}

}  // namespace
}  // namespace vireo::template_test
