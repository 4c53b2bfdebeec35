// Conformance category "InferRequestIO": tensors by name, port and index; user tensors used in
// place (outputs written into the user's buffer); clear errors for a wrong type, shape, size or
// name; dynamic shapes; and outputs equal to the reference values for the suite's models.
#include "vireo/conformance/suite.hpp"

namespace vireo::conformance {
namespace {

/// Sets inputs, runs synchronously (or with start_async + wait), and checks against the reference.
void run_and_check(const ReferenceModel& m, bool async, uint32_t seed = 1) {
    const CompiledModel compiled = compile(m.model);
    InferRequest request = compiled.create_infer_request();
    for (uint32_t round = 0; round < 2; ++round) {
        const auto inputs = set_inputs(request, compiled, seed + 7 * round);
        if (async) {
            request.start_async();
            request.wait();
        } else {
            request.infer();
        }
        EXPECT_TRUE(outputs_match(request, compiled, m, inputs)) << "inference " << round;
    }
}

}  // namespace

TEST(InferRequestIO, TensorsByNamePortAndIndex) {
    ReferenceModel m = elementwise_model();
    const CompiledModel compiled = compile(m.model);
    InferRequest request = compiled.create_infer_request();
    const Tensor x = make_tensor({2, 3, 4}, make_values(24, 1));
    const Tensor y = make_tensor({2, 3, 4}, make_values(24, 2));
    request.set_tensor("x", x);
    request.set_tensor(compiled.inputs()[1], y);
    EXPECT_EQ(request.get_tensor("x").data(), x.data());
    EXPECT_EQ(request.get_input_tensor(0).data(), x.data());
    EXPECT_EQ(request.get_tensor(compiled.input("y")).data(), y.data());
    EXPECT_EQ(request.get_tensor(m.model->inputs()[1]).data(), y.data())
        << "a port of the original model";
    const Tensor x2 = make_tensor({2, 3, 4}, make_values(24, 3));
    request.set_input_tensor(0, x2);
    EXPECT_EQ(request.get_tensor("x").data(), x2.data());
    request.infer();
    const Tensor by_name = request.get_tensor("z");
    EXPECT_EQ(by_name.data(), request.get_output_tensor(0).data());
    EXPECT_EQ(by_name.data(), request.get_tensor(compiled.output()).data());
    EXPECT_EQ(by_name.get_shape(), Shape({2, 3, 4}));
    EXPECT_TRUE(outputs_match(request, compiled, m, {make_values(24, 3), make_values(24, 2)}));
}

TEST(InferRequestIO, DefaultTensorsHaveTheModelsTypesAndShapes) {
    ReferenceModel m = multi_output_model();
    const CompiledModel compiled = compile(m.model);
    InferRequest request = compiled.create_infer_request();
    EXPECT_EQ(request.get_input_tensor().get_shape(), Shape({2, 4}));
    EXPECT_EQ(request.get_input_tensor().get_element_type(), element::f32);
    EXPECT_EQ(request.get_output_tensor(0).get_shape(), Shape({2, 4}));
    EXPECT_EQ(request.get_output_tensor(2).get_shape(), Shape({2}));
    EXPECT_EQ(request.get_tensor("row_sum").get_element_type(), element::f32);
}

TEST(InferRequestIO, UserTensorsAreUsedWithoutCopy) {
    ReferenceModel m = mlp_model();
    const CompiledModel compiled = compile(m.model);
    InferRequest request = compiled.create_infer_request();
    std::vector<float> input = make_values(16, 4);
    std::vector<float> output(8, -7.f);
    request.set_tensor("x", Tensor(element::f32, {2, 8}, input.data()));
    request.set_tensor("probs", Tensor(element::f32, {2, 4}, output.data()));
    request.infer();
    EXPECT_EQ(request.get_tensor("probs").data(), output.data())
        << "the request replaced the user's output tensor";
    EXPECT_TRUE(values_near(output, m.reference({input})[0]))
        << "the output was not written into the user's buffer";
    // The request reads the user's input memory at each run: change it in place and run again.
    for (auto& v : input) v = -v;
    request.infer();
    EXPECT_TRUE(values_near(output, m.reference({input})[0]))
        << "a change to the user's input was not seen";
}

TEST(InferRequestIO, WrongElementTypeIsAClearError) {
    const CompiledModel compiled = compile(cnn_model().model);
    InferRequest request = compiled.create_infer_request();
    EXPECT_TRUE(throws_kind(
        [&] {
            request.set_tensor("image", Tensor(element::i32, {1, 2, 6, 6}));
            request.infer();
        },
        ErrorKind::kInvalidArgument, "image"));
}

TEST(InferRequestIO, WrongShapeIsAClearError) {
    const CompiledModel compiled = compile(cnn_model().model);
    InferRequest request = compiled.create_infer_request();
    EXPECT_TRUE(throws_kind(
        [&] {
            request.set_tensor("image", Tensor(element::f32, {1, 2, 36}));
            request.infer();
        },
        ErrorKind::kInvalidArgument, "image"));
}

TEST(InferRequestIO, WrongSizeIsAClearError) {
    const CompiledModel compiled = compile(cnn_model().model);
    InferRequest request = compiled.create_infer_request();
    EXPECT_TRUE(throws_kind(
        [&] {
            request.set_tensor("image", Tensor(element::f32, {2, 2, 6, 6}));
            request.infer();
        },
        ErrorKind::kInvalidArgument, "image"));
    InferRequest other = compiled.create_infer_request();
    EXPECT_TRUE(throws_kind(
        [&] {
            other.set_tensor("logits", Tensor(element::f32, {1, 4}));
            other.infer();
        },
        ErrorKind::kInvalidArgument, "logits"));
}

TEST(InferRequestIO, UnknownNameIsNotFound) {
    const CompiledModel compiled = compile(cnn_model().model);
    InferRequest request = compiled.create_infer_request();
    EXPECT_TRUE(throws_kind([&] { request.get_tensor("no_such_tensor"); }, ErrorKind::kNotFound,
                            "no_such_tensor"));
    EXPECT_TRUE(throws_kind(
        [&] {
            request.set_tensor("no_such_tensor", Tensor(element::f32, {1, 2, 6, 6}));
        },
        ErrorKind::kNotFound, "no_such_tensor"));
    EXPECT_TRUE(throws_kind([&] { request.get_input_tensor(5); }, ErrorKind::kInvalidArgument));
}

TEST(InferRequestIO, OutputsElementwise) {
    run_and_check(elementwise_model(), false);
}
TEST(InferRequestIO, OutputsMlp) {
    run_and_check(mlp_model(), false);
}
TEST(InferRequestIO, OutputsCnn) {
    run_and_check(cnn_model(), false);
}
TEST(InferRequestIO, OutputsMultiOutput) {
    run_and_check(multi_output_model(), false);
}
TEST(InferRequestIO, OutputsScalar) {
    run_and_check(scalar_model(), false);
}
TEST(InferRequestIO, OutputsAsync) {
    run_and_check(mlp_model(), true, 5);
    run_and_check(cnn_model(), true, 9);
}

TEST(InferRequestIO, DynamicShapesChangeBetweenInferences) {
    VIREO_CONFORMANCE_REQUIRE(device::capability::kDynamicShapes);
    ReferenceModel m = dynamic_model();
    const CompiledModel compiled = compile(m.model);
    EXPECT_TRUE(compiled.input().get_partial_shape().is_dynamic());
    InferRequest request = compiled.create_infer_request();
    for (size_t batch : {1, 3, 2, 5, 1}) {
        SCOPED_TRACE("batch " + std::to_string(batch));
        const auto values = make_values(batch * 4, static_cast<uint32_t>(batch));
        request.set_tensor("x", make_tensor({batch, 4}, values));
        request.infer();
        const Tensor out = request.get_tensor("y");
        EXPECT_EQ(out.get_shape(), Shape({batch, 4}));
        EXPECT_TRUE(values_near(to_vector(out), m.reference({values})[0]));
    }
}

}  // namespace vireo::conformance
