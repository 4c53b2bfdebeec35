// Stateful models: ReadValue/Assign variables per request, kept across inferences, independent
// between requests, reset / set / get, and ReadValue's init input after a reset.
#include <gtest/gtest.h>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::template_test {
namespace {

// acc = ReadValue("acc") + x; Assign("acc", acc); output acc. With `init`, a reset variable
// reads init_value instead of zeros.
std::shared_ptr<Model> accumulator_model(bool with_init, float init_value = 0) {
    auto x = op::parameter(element::f32, PartialShape(Shape{1, 3}), "x");
    Output init;
    if (with_init) init = op::constant<float>(element::f32, Shape{1, 3}, {init_value});
    auto read = op::read_value("acc", element::f32, PartialShape(Shape{1, 3}), init);
    auto sum = op::add(read, x);
    sum->output(0).set_names({"acc"});
    auto assign = op::assign(sum, "acc");
    auto result = op::result(sum);
    return Model::make({result}, {assign}, {x}, "accumulator");
}

Tensor ones() {
    Tensor t(element::f32, Shape{1, 3});
    for (size_t i = 0; i < 3; ++i) t.data<float>()[i] = 1.0f;
    return t;
}

float first_output(InferRequest& request) {
    request.infer();
    return request.get_tensor("acc").data<float>()[0];
}

TEST(TemplateStates, StateIsKeptAcrossInferences) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(accumulator_model(false), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    request.set_tensor("x", ones());
    EXPECT_EQ(first_output(request), 1.0f);
    EXPECT_EQ(first_output(request), 2.0f);
    EXPECT_EQ(first_output(request), 3.0f);
    auto states = request.query_state();
    ASSERT_EQ(states.size(), 1u);
    EXPECT_EQ(states[0].get_name(), "acc");
    EXPECT_EQ(states[0].get_state().data<float>()[2], 3.0f);
}

TEST(TemplateStates, RequestsHaveIndependentStates) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(accumulator_model(false), "TEMPLATE");
    InferRequest a = compiled.create_infer_request();
    InferRequest b = compiled.create_infer_request();
    a.set_tensor("x", ones());
    b.set_tensor("x", ones());
    first_output(a);
    first_output(a);
    EXPECT_EQ(first_output(a), 3.0f);
    EXPECT_EQ(first_output(b), 1.0f);
}

TEST(TemplateStates, ResetAndSetState) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(accumulator_model(false), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    request.set_tensor("x", ones());
    first_output(request);
    first_output(request);
    request.reset_state();
    EXPECT_EQ(request.query_state()[0].get_state().data<float>()[0], 0.0f);
    EXPECT_EQ(first_output(request), 1.0f);
    Tensor ten(element::f32, Shape{1, 3});
    for (size_t i = 0; i < 3; ++i) ten.data<float>()[i] = 10.0f;
    request.query_state()[0].set_state(ten);
    EXPECT_EQ(first_output(request), 11.0f);
}

TEST(TemplateStates, SetStateRejectsAWrongShapeNamingTheVariable) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(accumulator_model(false), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    try {
        request.query_state()[0].set_state(Tensor(element::f32, Shape{2, 3}));
        FAIL() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("acc"), std::string::npos) << e.what();
    }
}

TEST(TemplateStates, InitInputIsUsedAfterReset) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(accumulator_model(true, 5.0f), "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    request.set_tensor("x", ones());
    EXPECT_EQ(first_output(request), 6.0f);  // init 5 + 1
    EXPECT_EQ(first_output(request), 7.0f);  // the state from now on
    request.reset_state();
    EXPECT_EQ(first_output(request), 6.0f);
}

TEST(TemplateStates, CancelledInferenceDoesNotCommit) {
    auto x = op::parameter(element::f32, PartialShape(Shape{1, 3}), "x");
    auto read = op::read_value("acc", element::f32, PartialShape(Shape{1, 3}));
    auto sum = op::add(read, probe(x));
    sum->output(0).set_names({"acc"});
    auto model = Model::make({op::result(sum)}, {op::assign(sum, "acc")}, {x}, "probe_state");
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "TEMPLATE");
    InferRequest request = compiled.create_infer_request();
    request.set_tensor("x", ones());
    EXPECT_EQ(first_output(request), 1.0f);
    probe_log().reset();
    probe_log().block_at = 1;
    request.start_async();
    probe_log().wait_blocked();
    request.cancel();
    probe_log().release();
    EXPECT_THROW(request.wait(), Cancelled);
    EXPECT_EQ(request.query_state()[0].get_state().data<float>()[0], 1.0f);
    probe_log().reset();
}

}  // namespace
}  // namespace vireo::template_test
