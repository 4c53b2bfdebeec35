// Transformations seen through the runtime model: constant subgraphs folded (ShapeOf of static
// shapes too), dead code removed, names of inputs and outputs preserved.
#include <gtest/gtest.h>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::template_test {
namespace {

size_t count_type(const Model& model, const std::string& type) {
    size_t n = 0;
    for (const auto& node : model.get_ordered_ops()) n += node->get_type_name() == type;
    return n;
}

TEST(TemplateTransformations, ConstantSubgraphIsFolded) {
    // y = x + (c1 * c2 + c3): the bracket is computed once at compile time.
    auto x = op::parameter(element::f32, PartialShape(Shape{4}), "x");
    auto c1 = op::constant<float>(element::f32, Shape{4}, {1, 2, 3, 4});
    auto c2 = op::constant<float>(element::f32, Shape{4}, {2});
    auto c3 = op::constant<float>(element::f32, Shape{4}, {0.5});
    auto mul = op::multiply(c1, c2);
    mul->set_friendly_name("scale");
    auto bias = op::add(mul, c3);
    bias->set_friendly_name("bias");
    auto y = op::add(x, bias);
    y->set_friendly_name("y");
    y->output(0).set_names({"y"});
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "folding");
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "TEMPLATE");
    const auto runtime = compiled.get_runtime_model();
    EXPECT_EQ(count_type(*runtime, "Multiply"), 0u);
    EXPECT_EQ(count_type(*runtime, "Add"), 1u);
    EXPECT_EQ(count_type(*runtime, "Constant"), 1u);
    bool found = false;
    for (const auto& node : runtime->get_ordered_ops()) {
        if (node->get_type_name() != "Constant") continue;
        const std::string names = node->get_rt_info().at("originalLayersNames").as<std::string>();
        EXPECT_NE(names.find("bias"), std::string::npos) << names;
        EXPECT_NE(names.find("scale"), std::string::npos) << names;
        found = true;
    }
    EXPECT_TRUE(found);
    EXPECT_EQ(compiled.output(0).get_names(), std::set<std::string>{"y"});
    InferRequest request = compiled.create_infer_request();
    Tensor in(element::f32, Shape{4});
    for (size_t i = 0; i < 4; ++i) in.data<float>()[i] = 10.0f * static_cast<float>(i);
    request.set_tensor("x", in);
    request.infer();
    const std::vector<float> expected{2.5f, 14.5f, 26.5f, 38.5f};
    for (size_t i = 0; i < 4; ++i)
        EXPECT_FLOAT_EQ(request.get_tensor("y").data<float>()[i], expected[i]);
    // The caller's model is untouched.
    EXPECT_EQ(count_type(*model, "Multiply"), 1u);
}

TEST(TemplateTransformations, ShapeOfOfAStaticShapeIsFolded) {
    auto x = op::parameter(element::f32, PartialShape(Shape{2, 6}), "x");
    auto target =
        op::divide(op::shape_of(x), op::constant<int64_t>(element::i64, Shape{2}, {2, 1}));
    auto y = op::reshape(
        x, op::multiply(target, op::constant<int64_t>(element::i64, Shape{2}, {1, 2})), false);
    y->output(0).set_names({"y"});
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "static_shape_of");
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "TEMPLATE");
    const auto runtime = compiled.get_runtime_model();
    EXPECT_EQ(count_type(*runtime, "ShapeOf"), 0u);
    EXPECT_EQ(count_type(*runtime, "Reshape"), 1u);
    EXPECT_EQ(compiled.output(0).get_partial_shape(), PartialShape(Shape{1, 12}));
}

TEST(TemplateTransformations, UnusedInputsStayAndOutputsKeepTheirOrder) {
    auto a = op::parameter(element::f32, PartialShape(Shape{2}), "a");
    auto unused = op::parameter(element::f32, PartialShape(Shape{3}), "unused");
    auto b = op::parameter(element::f32, PartialShape(Shape{2}), "b");
    auto sum = op::add(a, b);
    sum->output(0).set_names({"sum"});
    auto constant_out = op::multiply(op::constant<float>(element::f32, Shape{2}, {3}),
                                     op::constant<float>(element::f32, Shape{2}, {2}));
    constant_out->output(0).set_names({"six"});
    auto model = std::make_shared<Model>(OutputVector{constant_out, sum},
                                         ParameterVector{a, unused, b}, "order");
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "TEMPLATE");
    ASSERT_EQ(compiled.inputs().size(), 3u);
    EXPECT_EQ(compiled.input(1).get_any_name(), "unused");
    ASSERT_EQ(compiled.outputs().size(), 2u);
    EXPECT_EQ(compiled.output(0).get_any_name(), "six");
    EXPECT_EQ(compiled.output(1).get_any_name(), "sum");
    InferRequest request = compiled.create_infer_request();
    request.infer();
    EXPECT_EQ(request.get_tensor("six").data<float>()[1], 6.0f);
}

}  // namespace
}  // namespace vireo::template_test
