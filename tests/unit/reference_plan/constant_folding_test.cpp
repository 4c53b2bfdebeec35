// Tests of the SDK's constant folding (reference::fold_constants, fold_model_constants): ShapeOf
// of static shapes, the static dimensions of a partly dynamic shape, chains of shape arithmetic
// re-inferred until static, names kept on the model's outputs, and a dynamic shape left alone.
#include "vireo/reference/constant_folding.hpp"

#include <gtest/gtest.h>

#include "vireo/ops.hpp"

namespace vireo {
namespace {

NodePtr i64(const std::vector<int64_t>& values, const Shape& shape) {
    return op::constant<int64_t>(element::i64, shape, values);
}

bool is_constant_with(const Output& out, const std::vector<int64_t>& expected) {
    if (out.get_node()->get_type_name() != "Constant") return false;
    const Tensor& t = out.get_node()->get_constant_value();
    if (t.get_size() != expected.size()) return false;
    for (size_t i = 0; i < expected.size(); ++i)
        if (t.data<int64_t>()[i] != expected[i]) return false;
    return true;
}

TEST(ConstantFolding, StaticDimensionsOfAPartlyDynamicShapeFold) {
    // x [?, 1, ?, 5]: dims 1 and 3 are known, 0 and 2 are not.
    auto x = op::parameter(element::f32, PartialShape{Dimension(), 1, Dimension(), 5}, "x");
    auto shape = op::shape_of(x);
    auto known = op::gather(shape, i64({1, -1}, Shape{2}), i64({0}, Shape{}));
    auto scalar = op::gather(shape, i64({1}, Shape{}), i64({0}, Shape{}));
    auto unknown = op::gather(shape, i64({0, 1}, Shape{2}), i64({0}, Shape{}));
    const auto out = reference::fold_constants({known, scalar, unknown}, {x.get()});
    EXPECT_TRUE(is_constant_with(out[0], {1, 5}));
    EXPECT_TRUE(is_constant_with(out[1], {1}));
    EXPECT_EQ(out[1].get_partial_shape(), PartialShape(Shape{}));
    EXPECT_EQ(out[2].get_node()->get_type_name(), "Gather");  // dim 0 is dynamic
}

TEST(ConstantFolding, AReshapedModelIsStaticAllTheWayAndKeepsItsOutputNames) {
    // Flatten as exporters write it: Reshape(y, Concat(Gather(ShapeOf(y), 0), [-1])), then the
    // same again on its result, so the second ShapeOf is static only after the first folds.
    auto x = op::parameter(element::f32, PartialShape{Dimension(), 2, 3}, "x");
    auto flat = [](const Output& y) {
        auto batch = op::gather(op::shape_of(y), i64({0}, Shape{1}), i64({0}, Shape{}));
        return op::reshape(y, op::concat({batch, i64({-1}, Shape{1})}, 0), false);
    };
    auto once = flat(op::relu(x));
    auto twice = op::shape_of(flat(op::relu(once)));
    twice->output(0).set_names({"shape"});
    auto model = std::make_shared<Model>(OutputVector{twice}, ParameterVector{x}, "m");
    model->reshape(PartialShape{4, 2, 3});
    const auto stats = reference::fold_model_constants(*model);
    EXPECT_GE(stats.folded, 2u);
    // The model's output is now a Constant [4, 6] that kept the name "shape".
    const Output result_input = model->get_results()[0]->input_value(0);
    EXPECT_TRUE(is_constant_with(result_input, {4, 6}));
    EXPECT_EQ(model->output(0).get_names().count("shape"), 1u);
}

TEST(ConstantFolding, ADynamicShapeIsLeftAlone) {
    auto x = op::parameter(element::f32, PartialShape{Dimension(), 3}, "x");
    auto shape = op::shape_of(x);  // dynamic: not folded
    auto out = reference::fold_constants({shape}, {x.get()});
    EXPECT_EQ(out[0].get_node()->get_type_name(), "ShapeOf");
}

}  // namespace
}  // namespace vireo

namespace vireo {
namespace {

// torch's "squeeze(-1) if that axis has size 1" under static shapes: the If's condition
// Equal(Gather(ShapeOf(x), 2), 1) folds once the model is reshaped, the If is replaced by the body
// it takes (then: Squeeze, rank 2; else: Relu, rank 3), and the output becomes static, keeping
// its name. Left dynamic, the If stays.
std::shared_ptr<Model> squeeze_if_size_one() {
    auto x = op::parameter(element::f32, PartialShape{Dimension(), 4, Dimension()}, "x");
    auto dim2 = op::gather(op::shape_of(x), i64({2}, Shape{}), i64({0}, Shape{}));
    auto cond = make_node("Equal", {dim2, i64({1}, Shape{})});
    auto tp = op::parameter(element::f32, PartialShape{Dimension(), 4, Dimension()}, "tp");
    auto then_body = std::make_shared<Model>(OutputVector{op::squeeze(tp, i64({2}, Shape{1}))},
                                             ParameterVector{tp}, "then");
    auto ep = op::parameter(element::f32, PartialShape{Dimension(), 4, Dimension()}, "ep");
    auto else_body =
        std::make_shared<Model>(OutputVector{op::relu(ep)}, ParameterVector{ep}, "else");
    auto branch = op::if_op(cond, {x}, then_body, else_body);
    branch->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{op::relu(branch)}, ParameterVector{x}, "m");
}

size_t count_ifs(const Model& model) {
    size_t n = 0;
    for (const auto& node : model.get_ordered_ops()) n += node->get_type_name() == "If";
    return n;
}

TEST(ConstantFolding, AnIfWhoseConditionFoldsIsReplacedByTheBodyItTakes) {
    for (const int64_t last : {1, 7}) {
        SCOPED_TRACE(last);
        auto model = squeeze_if_size_one();
        EXPECT_TRUE(model->output(0).get_partial_shape().rank().is_dynamic());  // 2 or 3
        model->reshape(PartialShape{2, 4, last});
        reference::fold_model_constants(*model);
        EXPECT_EQ(count_ifs(*model), 0u);
        const PartialShape expected = last == 1 ? PartialShape{2, 4} : PartialShape{2, 4, 7};
        EXPECT_EQ(model->output(0).get_partial_shape(), expected);
        // The If's output name moved to the value that replaced it.
        const Output relu_input =
            model->get_results()[0]->input_value(0).get_node()->input_value(0);
        EXPECT_EQ(relu_input.get_names().count("y"), 1u);
    }
    auto dynamic = squeeze_if_size_one();
    reference::fold_model_constants(*dynamic);
    EXPECT_EQ(count_ifs(*dynamic), 1u);
}

}  // namespace
}  // namespace vireo

namespace vireo {
namespace {

// RandomUniform of constant shape, min and max has only constant inputs, yet each run must draw
// its own numbers: neither the readers' folding nor a plugin's may replace it by a Constant, and
// what consumes it stays an op too.
TEST(ConstantFolding, RandomUniformIsNeverFolded) {
    auto random = [] {
        return op::random_uniform(i64({2, 3}, Shape{2}),
                                  op::constant<float>(element::f32, Shape{}, {0.f}),
                                  op::constant<float>(element::f32, Shape{}, {1.f}), element::f32);
    };
    const auto out = reference::fold_constants({op::relu(random())}, {});
    EXPECT_EQ(out[0].get_node()->get_type_name(), "Relu");
    EXPECT_EQ(out[0].get_node()->input_value(0).get_node()->get_type_name(), "RandomUniform");

    // Seeded too: its numbers are fixed, but folding them would freeze a fresh-per-run op for
    // the unseeded case and hide the op from the device; neither kind is folded.
    auto seeded =
        op::random_uniform(i64({3}, Shape{1}), op::constant<float>(element::f32, Shape{}, {-1.f}),
                           op::constant<float>(element::f32, Shape{}, {1.f}), element::f32, 7, 11);
    auto x = op::parameter(element::f32, PartialShape{2, 3}, "x");
    auto model = std::make_shared<Model>(
        OutputVector{op::add(x, op::relu(random())), op::multiply(x, op::exp(seeded))},
        ParameterVector{x}, "random");
    reference::fold_model_constants(*model);
    size_t randoms = 0;
    for (const auto& node : model->get_ordered_ops())
        if (node->get_type_name() == "RandomUniform") ++randoms;
    EXPECT_EQ(randoms, 2u);
}

}  // namespace
}  // namespace vireo
