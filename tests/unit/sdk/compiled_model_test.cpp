// Tests ICompiledModel's private I/O copies, default executor and request, and the small
// defaults of IPlugin, IVariableState and IRemoteContext.
#include <gtest/gtest.h>

#include <sstream>

#include "sdk_test_helpers.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"
#include "vireo/sdk/iremote_context.hpp"

namespace vireo::sdk::test {
namespace {

TEST(CompiledModel, KeepsPrivateCopiesOfInputsAndOutputs) {
    auto model = make_relu_model(PartialShape{-1, 3});
    model->get_parameters()[0]->get_rt_info()["layout"] = Any(std::string("NC"));
    model->get_parameters()[0]->output(0).get_rt_info()["precision_hint"] = Any(std::string("f32"));
    model->get_results()[0]->set_friendly_name("the_result");
    auto compiled = make_compiled(model);
    ASSERT_EQ(compiled->inputs().size(), 1u);
    ASSERT_EQ(compiled->outputs().size(), 1u);
    const Output in = compiled->inputs()[0];
    const Output out = compiled->outputs()[0];
    EXPECT_NE(in.get_node(), model->get_parameters()[0].get()) << "a new node";
    EXPECT_NE(out.get_node(), model->get_results()[0].get()) << "a new node";
    EXPECT_EQ(in.get_node()->get_type_name(), "Parameter");
    EXPECT_EQ(out.get_node()->get_type_name(), "Result");
    EXPECT_EQ(in.get_node()->get_friendly_name(), "x");
    EXPECT_EQ(out.get_node()->get_friendly_name(), "the_result");
    EXPECT_EQ(in.get_names(), std::set<std::string>{"x"});
    EXPECT_EQ(out.get_names(), std::set<std::string>{"y"});
    EXPECT_EQ(in.get_element_type(), element::f32);
    EXPECT_EQ(out.get_element_type(), element::f32);
    EXPECT_EQ(in.get_partial_shape(), (PartialShape{-1, 3}));
    EXPECT_EQ(out.get_partial_shape(), (PartialShape{-1, 3}));
    EXPECT_EQ(in.get_node()->get_rt_info().at("layout").as<std::string>(), "NC");
    EXPECT_EQ(in.get_rt_info().at("precision_hint").as<std::string>(), "f32");
    // The caller's model may change or die afterwards.
    model->get_parameters()[0]->output(0).set_names({"renamed"});
    model->reshape(std::map<std::string, PartialShape>{{"renamed", PartialShape{2, 3}}});
    model.reset();
    EXPECT_EQ(in.get_names(), std::set<std::string>{"x"});
    EXPECT_EQ(in.get_partial_shape(), (PartialShape{-1, 3}));
    EXPECT_EQ(out.get_names(), std::set<std::string>{"y"});
}

TEST(CompiledModel, CopiesEveryInputAndOutputInOrder) {
    auto a = op::parameter(element::f32, PartialShape{2}, "a");
    auto b = op::parameter(element::i32, PartialShape{4}, "b");
    auto ra = make_node("Relu", {a->output(0)});
    ra->output(0).set_names({"ra"});
    auto rb = make_node("Relu", {b->output(0)});
    rb->output(0).set_names({"rb"});
    auto model =
        std::make_shared<Model>(OutputVector{rb->output(0), ra->output(0)}, ParameterVector{a, b});
    auto compiled = make_compiled(model);
    ASSERT_EQ(compiled->inputs().size(), 2u);
    ASSERT_EQ(compiled->outputs().size(), 2u);
    EXPECT_EQ(compiled->inputs()[0].get_any_name(), "a");
    EXPECT_EQ(compiled->inputs()[1].get_any_name(), "b");
    EXPECT_EQ(compiled->inputs()[1].get_element_type(), element::i32);
    EXPECT_EQ(compiled->outputs()[0].get_any_name(), "rb");
    EXPECT_EQ(compiled->outputs()[0].get_partial_shape(), (PartialShape{4}));
    EXPECT_EQ(compiled->outputs()[1].get_any_name(), "ra");
}

TEST(CompiledModel, DefaultTaskExecutorIsOneStreamNamedDefault) {
    auto compiled = make_compiled(make_relu_model());
    auto streams = std::dynamic_pointer_cast<CPUStreamsExecutor>(compiled->get_task_executor());
    ASSERT_NE(streams, nullptr);
    EXPECT_EQ(streams->get_config().name, "Default");
    EXPECT_EQ(streams->get_streams_num(), 1);
    EXPECT_EQ(compiled->get_callback_executor(), nullptr);
    auto given = std::make_shared<ImmediateExecutor>();
    EXPECT_EQ(make_compiled(make_relu_model(), given)->get_task_executor(), given);
}

TEST(CompiledModel, DefaultRequestRunsTheSyncRequestAndRequestsAreIndependent) {
    auto compiled = make_compiled(make_relu_model());
    auto first = compiled->create_infer_request();
    auto second = compiled->create_infer_request();
    EXPECT_NE(first->get_sync_request(), second->get_sync_request());
    EXPECT_EQ(first->get_sync_request()->get_compiled_model(), compiled);
    Tensor in = first->get_tensor(first->get_inputs()[0]);
    in.data<float>()[0] = -1.f;
    in.data<float>()[1] = 7.f;
    first->start_async();
    first->wait();
    Tensor out = first->get_tensor(first->get_outputs()[0]);
    EXPECT_EQ(out.data<float>()[0], 0.f);
    EXPECT_EQ(out.data<float>()[1], 7.f);
    EXPECT_NE(second->get_tensor(second->get_outputs()[0]), out);
}

TEST(CompiledModel, ExportModelIsNotImplementedByDefault) {
    auto compiled = make_compiled(make_relu_model());
    std::ostringstream blob;
    expect_throw_with<NotImplemented>([&] { compiled->export_model(blob); },
                                      {"export_model", "TESTDEV"});
    EXPECT_EQ(compiled->get_plugin()->get_device_name(), "TESTDEV");
}

TEST(Plugin, OptionalMethodsThrowNotImplementedNamingTheDevice) {
    auto plugin = std::make_shared<TestPlugin>();
    plugin->set_device_name("MYDEV");
    expect_throw_with<NotImplemented>([&] { plugin->create_context({}); }, {"MYDEV"});
    expect_throw_with<NotImplemented>([&] { plugin->get_default_context({}); }, {"MYDEV"});
    expect_throw_with<NotImplemented>(
        [&] { plugin->compile_model(make_relu_model(), {}, nullptr); }, {"MYDEV"});
}

// ---- IVariableState ----

TEST(VariableState, ResetZeroFillsAndSetStateCopies) {
    Tensor storage(element::f32, Shape{2});
    storage.data<float>()[0] = 5.f;
    IVariableState state("v", storage);
    EXPECT_EQ(state.get_name(), "v");
    EXPECT_TRUE(state.is_reset());
    std::vector<float> values{1.5f, -2.5f};
    Tensor source(element::f32, Shape{2}, values.data());
    state.set_state(source);
    EXPECT_FALSE(state.is_reset());
    values[0] = 100.f;  // a copy was taken
    EXPECT_EQ(state.get_state().data<float>()[0], 1.5f);
    EXPECT_EQ(state.get_state().data<float>()[1], -2.5f);
    EXPECT_EQ(state.get_state(), storage);  // the same storage
    state.reset();
    EXPECT_TRUE(state.is_reset());
    EXPECT_EQ(storage.data<float>()[0], 0.f);
    EXPECT_EQ(storage.data<float>()[1], 0.f);
    state.mark_written();
    EXPECT_FALSE(state.is_reset());
}

TEST(VariableState, SetStateChecksTypeAndShape) {
    IVariableState state("var1", Tensor(element::f32, Shape{2, 2}));
    expect_throw_with<InvalidArgument>(
        [&] {
            state.set_state(Tensor(element::i32, Shape{2, 2}));
        },
        {"variable 'var1'", "f32", "i32"});
    expect_throw_with<InvalidArgument>(
        [&] {
            state.set_state(Tensor(element::f32, Shape{3, 2}));
        },
        {"variable 'var1'", "[2,2]", "[3,2]"});
    expect_throw_with<InvalidArgument>([&] { state.set_state(Tensor()); },
                                       {"variable 'var1'", "empty"});
    expect_throw_with<InvalidArgument>([] { IVariableState bad("none", Tensor()); },
                                       {"variable 'none'"});
}

TEST(VariableState, DynamicVariablesMayChangeShape) {
    IVariableState state("dyn", Tensor(element::f32, Shape{1, 2}), PartialShape{-1, 2});
    Tensor bigger(element::f32, Shape{3, 2});
    for (size_t i = 0; i < 6; ++i) bigger.data<float>()[i] = static_cast<float>(i);
    state.set_state(bigger);
    ASSERT_EQ(state.get_state().get_shape(), (Shape{3, 2}));
    for (size_t i = 0; i < 6; ++i)
        EXPECT_EQ(state.get_state().data<float>()[i], static_cast<float>(i));
    expect_throw_with<InvalidArgument>(
        [&] {
            state.set_state(Tensor(element::f32, Shape{3, 3}));
        },
        {"[?,2]", "[3,3]"});
}

// ---- IRemoteContext ----

class HostOnlyContext : public IRemoteContext {
  public:
    const std::string& get_device_name() const override { return m_name; }
    const AnyMap& get_property() const override { return m_properties; }
    Tensor create_tensor(element::Type, const Shape&, const AnyMap&) override {
        throw_error<NotImplemented>("no device memory");
    }

  private:
    std::string m_name = "HOST.0";
    AnyMap m_properties;
};

TEST(RemoteContext, DefaultHostTensorIsAPlainHostTensor) {
    HostOnlyContext context;
    Tensor t = context.create_host_tensor(element::u8, Shape{4, 4});
    EXPECT_FALSE(t.is_remote());
    EXPECT_NE(t.data(), nullptr);
    EXPECT_EQ(t.get_shape(), (Shape{4, 4}));
    EXPECT_EQ(t.get_element_type(), element::u8);
}

}  // namespace
}  // namespace vireo::sdk::test
