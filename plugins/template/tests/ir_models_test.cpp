// The real OpenVINO IR files under tests/data/models/openvino_ir run on TEMPLATE: x+1, a+b and
// identity (with a dynamic shape).
#include <gtest/gtest.h>

#include "test_utils.hpp"

namespace vireo::template_test {
namespace {

std::string ir(const std::string& name) {
    return data_dir() + "/models/openvino_ir/" + name;
}

void expect_increment(const std::string& xml, const Shape& shape) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(xml, "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    Tensor x(element::f32, shape);
    fill_pattern(x, 3);
    request.set_input_tensor(x);
    request.infer();
    const Tensor y = request.get_output_tensor();
    ASSERT_EQ(y.get_shape(), shape);
    for (size_t i = 0; i < x.get_size(); ++i)
        ASSERT_FLOAT_EQ(y.data<float>()[i], x.data<float>()[i] + 1.0f) << i;
}

TEST(TemplateIrModels, DummyAddsOne) {
    expect_increment(ir("dummy/dummy.xml"), Shape{1, 10});
}

TEST(TemplateIrModels, IncrementAddsOne) {
    expect_increment(ir("increment_1x3x4x5/increment_1x3x4x5.xml"), Shape{1, 3, 4, 5});
}

TEST(TemplateIrModels, AddTwoInputsAdds) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(ir("add_two_inputs_model/add.xml"), "TEMPLATE");
    ASSERT_EQ(compiled.inputs().size(), 2u);
    InferRequest request = compiled.create_infer_request();
    Tensor a(element::f32, Shape{1, 10}), b(element::f32, Shape{1, 10});
    fill_pattern(a, 4);
    fill_pattern(b, 5);
    request.set_input_tensor(0, a);
    request.set_input_tensor(1, b);
    request.infer();
    const Tensor y = request.get_output_tensor();
    for (size_t i = 0; i < 10; ++i)
        EXPECT_FLOAT_EQ(y.data<float>()[i], a.data<float>()[i] + b.data<float>()[i]);
}

TEST(TemplateIrModels, PassthroughIsIdentityForAnyShape) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(ir("passthrough/passthrough.xml"), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    for (const Shape& shape : {Shape{2, 3}, Shape{4, 5}, Shape{1, 1}}) {
        Tensor x(element::u8, shape);
        for (size_t i = 0; i < x.get_size(); ++i)
            x.data<uint8_t>()[i] = static_cast<uint8_t>(i * 13 + 1);
        request.set_tensor("input", x);
        request.infer();
        const Tensor y = request.get_tensor("copy:0");
        ASSERT_EQ(y.get_shape(), shape);
        EXPECT_TRUE(identical(y, x));
    }
}

}  // namespace
}  // namespace vireo::template_test
