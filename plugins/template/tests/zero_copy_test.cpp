// Zero copy: contiguous user tensors are read and written in place; strided ones are copied.
#include <gtest/gtest.h>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::template_test {
namespace {

std::shared_ptr<Model> probe_model(const Shape& shape) {
    auto x = op::parameter(element::f32, PartialShape(shape), "x");
    auto y = probe(x);
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "probe");
}

TEST(TemplateZeroCopy, ContiguousInputIsReadInPlace) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(probe_model(Shape{2, 8}), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    std::vector<float> user(16);
    for (size_t i = 0; i < user.size(); ++i) user[i] = static_cast<float>(i);
    request.set_tensor("x", Tensor(element::f32, Shape{2, 8}, user.data()));
    probe_log().reset();
    request.infer();
    EXPECT_EQ(probe_log().last_input, user.data());
    EXPECT_EQ(probe_log().executions, 1u);
}

TEST(TemplateZeroCopy, ContiguousOutputIsWrittenInPlace) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(probe_model(Shape{2, 8}), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    Tensor x(element::f32, Shape{2, 8});
    fill_pattern(x, 7);
    std::vector<float> out(16, -1.0f);
    request.set_tensor("x", x);
    request.set_tensor("y", Tensor(element::f32, Shape{2, 8}, out.data()));
    probe_log().reset();
    request.infer();
    EXPECT_EQ(probe_log().last_output, out.data());
    for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], x.data<float>()[i]);
    EXPECT_EQ(request.get_tensor("y").data(), out.data());
}

TEST(TemplateZeroCopy, DefaultOutputTensorIsTheKernelsDestination) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(probe_model(Shape{4}), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    const Tensor y = request.get_tensor("y");
    probe_log().reset();
    request.infer();
    EXPECT_EQ(probe_log().last_output, y.data());
}

TEST(TemplateZeroCopy, StridedInputAndOutputAreCopied) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(probe_model(Shape{2, 3}), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    // Views of the left 2x3 block of 2x5 buffers: rows are 5 floats apart.
    Tensor big_in(element::f32, Shape{2, 5});
    for (size_t i = 0; i < 10; ++i) big_in.data<float>()[i] = static_cast<float>(i);
    Tensor big_out(element::f32, Shape{2, 5});
    const Tensor in_view(big_in, {0, 0}, {2, 3});
    const Tensor out_view(big_out, {0, 0}, {2, 3});
    ASSERT_FALSE(in_view.is_continuous());
    request.set_tensor("x", in_view);
    request.set_tensor("y", out_view);
    probe_log().reset();
    request.infer();
    EXPECT_NE(probe_log().last_input, big_in.data());
    EXPECT_NE(probe_log().last_output, big_out.data());
    const float* o = big_out.data<float>();
    const std::vector<float> expected{0, 1, 2, -1, -1, 5, 6, 7, -1, -1};
    for (size_t i = 0; i < 10; ++i) {
        if (expected[i] < 0) {
            EXPECT_EQ(o[i], 0.0f) << i;  // outside the view: untouched
        } else {
            EXPECT_EQ(o[i], expected[i]) << i;
        }
    }
}

TEST(TemplateZeroCopy, ParameterStraightToResultIsCopied) {
    auto x = op::parameter(element::f32, PartialShape(Shape{3}), "x");
    auto model =
        std::make_shared<Model>(OutputVector{x->output(0)}, ParameterVector{x}, "identity");
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    std::vector<float> in{1, 2, 3};
    request.set_input_tensor(Tensor(element::f32, Shape{3}, in.data()));
    request.infer();
    const Tensor y = request.get_output_tensor();
    EXPECT_NE(y.data(), in.data());
    EXPECT_EQ(y.data<float>()[2], 3.0f);
}

}  // namespace
}  // namespace vireo::template_test

namespace vireo::template_test {
namespace {

TEST(TemplateBatchedInput, SetTensorsAssemblesTheBatch) {
    constexpr size_t kWidth = 8;
    auto model = make_dense_model(2, kWidth);
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    std::vector<float> first(kWidth), second(kWidth);
    for (size_t i = 0; i < kWidth; ++i) {
        first[i] = static_cast<float>(i) / 4.0f;
        second[i] = -static_cast<float>(i) / 8.0f + 0.5f;
    }
    request.set_tensors("x", {Tensor(element::f32, Shape{1, kWidth}, first.data()),
                              Tensor(element::f32, Shape{1, kWidth}, second.data())});
    request.infer();
    std::vector<float> both(first);
    both.insert(both.end(), second.begin(), second.end());
    const auto expected = dense_reference(*model, both, 2, kWidth);
    const Tensor y = request.get_tensor("y");
    for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_NEAR(y.data<float>()[i], expected[i], 1e-4) << i;
}

}  // namespace
}  // namespace vireo::template_test
