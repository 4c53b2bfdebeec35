// Tests the public CompiledModel and InferRequest wrappers: ports by name, index and port
// handle, NotFound listing names, sync and async runs, callbacks, states, profiling.
#include <condition_variable>
#include <mutex>

#include "runtime_test_utils.hpp"

namespace vireo::runtime_test {
namespace {

class Requests : public ::testing::Test {
  protected:
    void SetUp() override {
        core = empty_core(dir);
        core.register_plugin(test_plugin_path(), "TEST");
        model = tiny_model();
        compiled = core.compile_model(model, "TEST", {tp::addend(0.5f)});
        request = compiled.create_infer_request();
    }
    ScratchDir dir;
    Core core;
    std::shared_ptr<Model> model;
    CompiledModel compiled;
    InferRequest request;
};

TEST_F(Requests, CompiledModelPorts) {
    ASSERT_EQ(compiled.inputs().size(), 1u);
    ASSERT_EQ(compiled.outputs().size(), 1u);
    EXPECT_EQ(compiled.input().get_any_name(), "x");
    EXPECT_EQ(compiled.input(0).get_partial_shape(), (PartialShape{2, 3}));
    EXPECT_EQ(compiled.input("x"), compiled.input());
    EXPECT_EQ(compiled.output("y"), compiled.output(0));
    const std::string message = error_of<NotFound>([&] { compiled.input("nope"); });
    EXPECT_NE(message.find("'nope'"), std::string::npos) << message;
    EXPECT_NE(message.find("'x'"), std::string::npos) << message;
    EXPECT_THROW(compiled.output(1), InvalidArgument);
    // The compiled model's ports are its own copies: the caller's model may go away.
    model.reset();
    expect_adds(request, 0.5f);
}

TEST_F(Requests, TensorsByNameIndexAndPort) {
    Tensor x = input_values();
    request.set_input_tensor(0, x);
    EXPECT_EQ(request.get_tensor("x"), x);  // zero copy: the same tensor
    EXPECT_EQ(request.get_input_tensor(), x);
    request.infer();
    const Tensor by_index = request.get_output_tensor(0);
    EXPECT_EQ(request.get_tensor("y").data(), by_index.data());
    EXPECT_EQ(request.get_tensor(compiled.output()).data(), by_index.data());
    for (int i = 0; i < 6; ++i)
        EXPECT_FLOAT_EQ(by_index.data<float>()[i], static_cast<float>(i) - 1.5f);

    // An output tensor of the caller's is written in place.
    Tensor y(element::f32, Shape{2, 3});
    request.set_output_tensor(y);
    request.infer();
    EXPECT_FLOAT_EQ(y.data<float>()[5], 3.5f);
}

TEST_F(Requests, UnknownNamesAndIndicesAreReported) {
    std::string message = error_of<NotFound>([&] { request.get_tensor("nope"); });
    EXPECT_NE(message.find("'nope'"), std::string::npos) << message;
    EXPECT_NE(message.find("'x'"), std::string::npos) << message;
    EXPECT_NE(message.find("'y'"), std::string::npos) << message;
    message = error_of<InvalidArgument>([&] { request.get_input_tensor(3); });
    EXPECT_NE(message.find("index 3"), std::string::npos) << message;
    EXPECT_THROW(request.set_output_tensor(1, Tensor(element::f32, Shape{2, 3})), InvalidArgument);
}

TEST_F(Requests, PluginValidationErrorsKeepTheirKindWithTheDeviceName) {
    const std::string message = error_of<InvalidArgument>([&] {
        request.set_tensor("x", Tensor(element::f32, Shape{3, 2}));
    });
    EXPECT_EQ(message.rfind("TEST: ", 0), 0u) << message;
    EXPECT_THROW(request.set_tensor("x", Tensor(element::i32, Shape{2, 3})), InvalidArgument);
}

TEST_F(Requests, AsyncWithCallback) {
    std::mutex mutex;
    std::condition_variable cv;
    int calls = 0;
    std::exception_ptr error;
    request.set_callback([&](std::exception_ptr e) {
        std::lock_guard<std::mutex> lock(mutex);
        error = e;
        ++calls;
        cv.notify_all();
    });
    Tensor x = input_values();
    request.set_tensor("x", x);
    request.start_async();
    request.wait();
    {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return calls == 1; });
    }
    EXPECT_FALSE(error);
    EXPECT_TRUE(request.wait_for(std::chrono::milliseconds(0)));
    EXPECT_FLOAT_EQ(request.get_output_tensor().data<float>()[0], -1.5f);
    request.infer();  // sync runs never call the callback
    EXPECT_EQ(calls, 1);
    EXPECT_THROW(request.wait_for(std::chrono::milliseconds(-1)), InvalidArgument);
}

TEST_F(Requests, StatesAndProfiling) {
    std::vector<VariableState> states = request.query_state();
    ASSERT_EQ(states.size(), 1u);
    EXPECT_EQ(states[0].get_name(), "test_counter");
    expect_adds(request, 0.5f);
    expect_adds(request, 0.5f);
    EXPECT_FLOAT_EQ(states[0].get_state().data<float>()[0], 2.0f);
    request.reset_state();
    EXPECT_FLOAT_EQ(states[0].get_state().data<float>()[0], 0.0f);
    Tensor seven(element::f32, Shape{1});
    seven.data<float>()[0] = 7.0f;
    states[0].set_state(seven);
    expect_adds(request, 0.5f);
    EXPECT_FLOAT_EQ(states[0].get_state().data<float>()[0], 8.0f);

    EXPECT_EQ(request.get_profiling_info().size(), 1u);
    compiled.set_property({enable_profiling(true)});
    const auto rows = request.get_profiling_info();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].node_name, kStageExecution);
    EXPECT_EQ(rows[1].node_type, "Add");
}

TEST_F(Requests, EmptyHandlesThrow) {
    InferRequest empty_request;
    CompiledModel empty_compiled;
    VariableState empty_state;
    RemoteContext empty_context;
    EXPECT_FALSE(empty_request);
    EXPECT_THROW(empty_request.infer(), InvalidArgument);
    EXPECT_THROW(empty_compiled.create_infer_request(), InvalidArgument);
    EXPECT_THROW(empty_state.reset(), InvalidArgument);
    EXPECT_THROW(empty_context.get_device_name(), InvalidArgument);
}

TEST_F(Requests, RuntimeModelAndQueryModel) {
    auto runtime_model = compiled.get_runtime_model();
    ASSERT_TRUE(runtime_model);
    EXPECT_EQ(runtime_model->get_name(), "tiny");
    const auto supported = core.query_model(tiny_model(), "TEST");
    EXPECT_EQ(supported.size(), 2u);  // the Parameter and the Result
    for (const auto& [op, device] : supported) EXPECT_EQ(device, "TEST") << op;
}

}  // namespace
}  // namespace vireo::runtime_test
