// Tests ISyncInferRequest: port lookup, tensor validation with its messages, default tensors,
// and batched tensors (set_tensors).
#include <gtest/gtest.h>

#include "sdk_test_helpers.hpp"
#include "vireo/sdk/itensor.hpp"

namespace vireo::sdk::test {
namespace {

class FakeRemoteTensor : public IRemoteTensor {
  public:
    FakeRemoteTensor(element::Type type, Shape shape)
        : m_type(type),
          m_shape(std::move(shape)),
          m_strides(row_major_strides(m_shape, type.size())) {}
    element::Type get_element_type() const override { return m_type; }
    const Shape& get_shape() const override { return m_shape; }
    void set_shape(const Shape& shape) override { m_shape = shape; }
    const Strides& get_strides() const override { return m_strides; }
    const std::string& get_device_name() const override { return m_device; }
    const AnyMap& get_properties() const override { return m_properties; }
    void copy_from_host(const void*) override {}
    void copy_to_host(void*) const override {}

  private:
    element::Type m_type;
    Shape m_shape;
    Strides m_strides;
    std::string m_device = "FAKE.0";
    AnyMap m_properties;
};

// A host tensor implementation that claims a shape but has no memory (a broken plugin tensor).
class NoMemoryTensor : public ITensor {
  public:
    element::Type get_element_type() const override { return element::f32; }
    const Shape& get_shape() const override { return m_shape; }
    void set_shape(const Shape& shape) override { m_shape = shape; }
    const Strides& get_strides() const override { return m_strides; }
    void* data() const override { return nullptr; }

  private:
    Shape m_shape{1, 3};
    Strides m_strides{12, 4};
};

struct SyncFixture {
    explicit SyncFixture(const std::shared_ptr<Model>& m) : model(m) {
        compiled = make_compiled(model, std::make_shared<ImmediateExecutor>());
        request = compiled->make_sync_request();
    }
    Output in() const { return compiled->inputs()[0]; }
    Output out() const { return compiled->outputs()[0]; }
    std::shared_ptr<Model> model;
    std::shared_ptr<TestCompiledModel> compiled;
    std::shared_ptr<TestSyncRequest> request;
};

TEST(SyncInferRequest, StaticPortsStartWithZeroFilledTensorsOfTheirShape) {
    SyncFixture f(make_relu_model());
    for (const Output& port : {f.in(), f.out()}) {
        Tensor t = f.request->get_tensor(port);
        ASSERT_TRUE(t);
        EXPECT_EQ(t.get_element_type(), element::f32);
        EXPECT_EQ(t.get_shape(), (Shape{1, 3}));
        for (size_t i = 0; i < 3; ++i) EXPECT_EQ(t.data<float>()[i], 0.f);
    }
    EXPECT_EQ(f.request->get_tensor(f.in()), f.request->get_tensor(f.in()));  // stable handle
    EXPECT_NO_THROW(f.request->check_tensors());
}

TEST(SyncInferRequest, DynamicPortsStartWithEmptyTensorsOfShapeZero) {
    SyncFixture f(make_relu_model(PartialShape{-1, 3}));
    EXPECT_EQ(f.request->get_tensor(f.in()).get_shape(), (Shape{0}));
    EXPECT_EQ(f.request->get_tensor(f.out()).get_shape(), (Shape{0}));
    // An input must be set before an inference; an output placeholder is fine.
    expect_throw_with<InvalidArgument>([&] { f.request->check_tensors(); },
                                       {"input 'x'", "[?,3]", "[0]"});
    f.request->set_tensor(f.in(), Tensor(element::f32, Shape{4, 3}));
    EXPECT_NO_THROW(f.request->check_tensors());
}

TEST(SyncInferRequest, FindsPortsByHandleAndFromOtherCopiesOfTheModel) {
    SyncFixture f(make_relu_model());
    using Type = TestSyncRequest::FoundPort::Type;
    EXPECT_EQ(f.request->find_port(f.in()).type, Type::kInput);
    EXPECT_EQ(f.request->find_port(f.out()).type, Type::kOutput);
    // The caller's original model and a clone of it: other nodes, same names.
    for (const auto& model : {f.model, f.model->clone()}) {
        auto in = f.request->find_port(model->input(0));
        EXPECT_EQ(in.type, Type::kInput);
        EXPECT_EQ(in.index, 0u);
        auto out = f.request->find_port(model->output(0));
        EXPECT_EQ(out.type, Type::kOutput);
        EXPECT_EQ(out.index, 0u);
    }
    Tensor t(element::f32, Shape{1, 3});
    f.request->set_tensor(f.model->input(0), t);  // through the original model's port
    EXPECT_EQ(f.request->get_tensor(f.in()), t);
}

TEST(SyncInferRequest, UnknownPortsAreNotFoundAndTheMessageListsThePorts) {
    SyncFixture f(make_relu_model());
    auto stranger = op::parameter(element::f32, PartialShape{1, 3}, "z");
    Tensor t(element::f32, Shape{1, 3});
    expect_throw_with<NotFound>([&] { f.request->set_tensor(stranger->output(0), t); },
                                {"'z'", "inputs are ['x']", "outputs are ['y']"});
    expect_throw_with<NotFound>([&] { f.request->get_tensor(stranger->output(0)); }, {"'z'"});
    expect_throw_with<NotFound>([&] { f.request->get_tensor(Output()); }, {"null port"});
    expect_throw_with<NotFound>(
        [&] {
            f.request->set_tensors(stranger->output(0), {t, t});
        },
        {"'z'"});
}

TEST(SyncInferRequest, SetTensorKeepsTheHandleZeroCopy) {
    SyncFixture f(make_relu_model());
    std::vector<float> mine{1.f, -2.f, 3.f};
    Tensor in(element::f32, Shape{1, 3}, mine.data());
    f.request->set_tensor(f.in(), in);
    EXPECT_EQ(f.request->get_tensor(f.in()).data(), mine.data());
    Tensor out(element::f32, Shape{1, 3});
    f.request->set_tensor(f.out(), out);
    f.request->infer_once();
    EXPECT_EQ(out.data<float>()[0], 1.f);
    EXPECT_EQ(out.data<float>()[1], 0.f);
    EXPECT_EQ(out.data<float>()[2], 3.f);
}

TEST(SyncInferRequest, RejectsAWrongElementTypeNamingBothTypes) {
    SyncFixture f(make_relu_model());
    expect_throw_with<InvalidArgument>(
        [&] {
            f.request->set_tensor(f.in(), Tensor(element::i32, Shape{1, 3}));
        },
        {"input 'x'", "element type", "f32", "i32"});
    expect_throw_with<InvalidArgument>(
        [&] {
            f.request->set_tensor(f.out(), Tensor(element::f16, Shape{1, 3}));
        },
        {"output 'y'", "f32", "f16"});
}

TEST(SyncInferRequest, RejectsAWrongShapeNamingBothShapes) {
    SyncFixture f(make_relu_model());
    expect_throw_with<InvalidArgument>(
        [&] {
            f.request->set_tensor(f.in(), Tensor(element::f32, Shape{2, 3}));
        },
        {"input 'x'", "shape", "[1,3]", "[2,3]"});
    expect_throw_with<InvalidArgument>(
        [&] { f.request->set_tensor(f.out(), Tensor(element::f32, Shape{3})); },
        {"output 'y'", "[1,3]", "[3]"});
    // The request's own tensor reshaped by the user makes the next inference fail.
    Tensor own = f.request->get_tensor(f.in());
    own.set_shape(Shape{1, 2});
    expect_throw_with<InvalidArgument>([&] { f.request->check_tensors(); },
                                       {"input 'x'", "[1,3]", "[1,2]"});
}

TEST(SyncInferRequest, DynamicAndIntervalPortsAcceptShapesWithinTheirBounds) {
    SyncFixture f(make_relu_model(PartialShape{Dimension(1, 4), -1}));
    EXPECT_NO_THROW(f.request->set_tensor(f.in(), Tensor(element::f32, Shape{4, 9})));
    EXPECT_NO_THROW(f.request->set_tensor(f.in(), Tensor(element::f32, Shape{1, 1})));
    expect_throw_with<InvalidArgument>(
        [&] {
            f.request->set_tensor(f.in(), Tensor(element::f32, Shape{5, 9}));
        },
        {"input 'x'", "[1..4,?]", "[5,9]"});
    expect_throw_with<InvalidArgument>(
        [&] { f.request->set_tensor(f.in(), Tensor(element::f32, Shape{2})); },
        {"[1..4,?]", "[2]"});
    // A dynamic output accepts a fitting tensor or an empty placeholder.
    EXPECT_NO_THROW(f.request->set_tensor(f.out(), Tensor(element::f32, Shape{2, 2})));
    EXPECT_NO_THROW(f.request->set_tensor(f.out(), Tensor(element::f32, Shape{0})));
}

TEST(SyncInferRequest, RejectsEmptyHandlesAndHostTensorsWithoutMemory) {
    SyncFixture f(make_relu_model());
    expect_throw_with<InvalidArgument>([&] { f.request->set_tensor(f.in(), Tensor()); },
                                       {"input 'x'", "empty"});
    expect_throw_with<InvalidArgument>([&] { f.request->set_tensor(f.out(), Tensor()); },
                                       {"output 'y'", "empty"});
    Tensor no_memory(std::make_shared<NoMemoryTensor>());
    expect_throw_with<InvalidArgument>([&] { f.request->set_tensor(f.in(), no_memory); },
                                       {"input 'x'", "no memory"});
}

TEST(SyncInferRequest, AcceptsRemoteTensorsWithoutHostMemory) {
    SyncFixture f(make_relu_model());
    Tensor remote(std::make_shared<FakeRemoteTensor>(element::f32, Shape{1, 3}));
    ASSERT_TRUE(remote.is_remote());
    EXPECT_NO_THROW(f.request->set_tensor(f.in(), remote));
    EXPECT_EQ(f.request->get_tensor(f.in()), remote);
    Tensor wrong(std::make_shared<FakeRemoteTensor>(element::f32, Shape{2, 3}));
    expect_throw_with<InvalidArgument>([&] { f.request->set_tensor(f.in(), wrong); },
                                       {"[1,3]", "[2,3]"});
}

TEST(SyncInferRequest, PortsWithoutNamesAreDescribedByIndexAndNode) {
    auto x = op::parameter(element::f32, PartialShape{2});
    x->set_friendly_name("anonymous");
    auto relu = make_node("Relu", {x->output(0)});
    auto model = std::make_shared<Model>(OutputVector{relu->output(0)}, ParameterVector{x});
    SyncFixture f(model);
    expect_throw_with<InvalidArgument>(
        [&] { f.request->set_tensor(f.in(), Tensor(element::i8, Shape{2})); },
        {"input #0", "anonymous"});
}

// ---- batched tensors ----

std::shared_ptr<Model> batch_model(const PartialShape& shape, const std::string& layout = "") {
    auto model = make_relu_model(shape);
    if (!layout.empty())
        model->get_parameters()[0]->output(0).get_rt_info()["layout"] = Any(layout);
    return model;
}

std::vector<Tensor> items(size_t count, const Shape& shape, float first = 0.f) {
    std::vector<Tensor> out;
    for (size_t k = 0; k < count; ++k) {
        Tensor t(element::f32, shape);
        for (size_t i = 0; i < t.get_size(); ++i)
            t.data<float>()[i] = first + static_cast<float>(k * 10 + i);
        out.push_back(t);
    }
    return out;
}

TEST(SetTensors, StoresValidatedItemsAndConvertAssemblesTheBatch) {
    SyncFixture f(batch_model(PartialShape{3, 2}));
    auto batch = items(3, Shape{1, 2});
    f.request->set_tensors(f.in(), batch);
    auto stored = f.request->get_tensors(f.in());
    ASSERT_EQ(stored.size(), 3u);
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(stored[k], batch[k]);
    EXPECT_NO_THROW(f.request->check_tensors());
    f.request->convert_batched_tensors();
    Tensor whole = f.request->get_tensor(f.in());
    ASSERT_EQ(whole.get_shape(), (Shape{3, 2}));
    const std::vector<float> expected{0, 1, 10, 11, 20, 21};
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(whole.data<float>()[i], expected[i]) << i;
    // A later set_tensor wins.
    f.request->set_tensor(f.in(), Tensor(element::f32, Shape{3, 2}));
    EXPECT_TRUE(f.request->get_tensors(f.in()).empty());
}

TEST(SetTensors, BatchAxisComesFromTheLayout) {
    SyncFixture f(batch_model(PartialShape{2, 3}, "CN"));
    auto batch = items(3, Shape{2, 1});
    f.request->set_tensors(f.in(), batch);
    f.request->convert_batched_tensors();
    Tensor whole = f.request->get_tensor(f.in());
    ASSERT_EQ(whole.get_shape(), (Shape{2, 3}));
    // whole[c][n] = batch[n][c][0] = n * 10 + c
    for (size_t c = 0; c < 2; ++c)
        for (size_t n = 0; n < 3; ++n)
            EXPECT_EQ(whole.data<float>()[c * 3 + n], static_cast<float>(n * 10 + c));
    SyncFixture bracketed(batch_model(PartialShape{2, 3}, "[C,N]"));
    EXPECT_NO_THROW(bracketed.request->set_tensors(bracketed.in(), items(3, Shape{2, 1})));
    SyncFixture ellipsis(batch_model(PartialShape{2, 2, 3}, "...N"));
    EXPECT_NO_THROW(ellipsis.request->set_tensors(ellipsis.in(), items(3, Shape{2, 2, 1})));
}

TEST(SetTensors, DynamicBatchAcceptsAnyCount) {
    SyncFixture f(batch_model(PartialShape{-1, 2}));
    EXPECT_NO_THROW(f.request->set_tensors(f.in(), items(5, Shape{1, 2})));
    EXPECT_EQ(f.request->get_tensors(f.in()).size(), 5u);
}

TEST(SetTensors, OneTensorIsAPlainSetTensor) {
    SyncFixture f(batch_model(PartialShape{1, 2}));
    auto one = items(1, Shape{1, 2});
    f.request->set_tensors(f.in(), one);
    EXPECT_EQ(f.request->get_tensor(f.in()), one[0]);
    EXPECT_TRUE(f.request->get_tensors(f.in()).empty());
}

TEST(SetTensors, RejectsInvalidBatches) {
    SyncFixture f(batch_model(PartialShape{3, 2}));
    expect_throw_with<InvalidArgument>([&] { f.request->set_tensors(f.in(), {}); },
                                       {"input 'x'", "empty"});
    expect_throw_with<InvalidArgument>(
        [&] {
            f.request->set_tensors(f.in(), items(2, Shape{1, 2}));
        },
        {"input 'x'", "2 tensors", "[3,2]"});
    expect_throw_with<InvalidArgument>(
        [&] {
            f.request->set_tensors(f.in(), items(3, Shape{2, 2}));
        },
        {"tensor #0", "[2,2]", "batch axis 0"});
    auto mixed = items(3, Shape{1, 2});
    mixed[2] = Tensor(element::f32, Shape{1, 3});
    expect_throw_with<InvalidArgument>([&] { f.request->set_tensors(f.in(), mixed); },
                                       {"tensor #2", "[1,3]"});
    auto typed = items(3, Shape{1, 2});
    typed[1] = Tensor(element::i32, Shape{1, 2});
    expect_throw_with<InvalidArgument>([&] { f.request->set_tensors(f.in(), typed); },
                                       {"tensor #1", "i32", "f32"});
    auto with_empty = items(3, Shape{1, 2});
    with_empty[1] = Tensor();
    expect_throw_with<InvalidArgument>([&] { f.request->set_tensors(f.in(), with_empty); },
                                       {"tensor #1", "empty"});
    expect_throw_with<InvalidArgument>(
        [&] {
            f.request->set_tensors(f.out(), items(3, Shape{1, 2}));
        },
        {"output 'y'", "inputs"});
    EXPECT_TRUE(f.request->get_tensors(f.in()).empty());  // nothing was stored
}

TEST(SetTensors, RejectsALayoutWithoutBatch) {
    SyncFixture f(batch_model(PartialShape{3, 2}, "CH"));
    expect_throw_with<InvalidArgument>(
        [&] {
            f.request->set_tensors(f.in(), items(3, Shape{1, 2}));
        },
        {"input 'x'", "layout 'CH'", "'N'"});
}

TEST(SetTensors, RejectsItemsThatDoNotFitTheRestOfThePortShape) {
    SyncFixture f(batch_model(PartialShape{3, 2}));
    expect_throw_with<InvalidArgument>(
        [&] {
            f.request->set_tensors(f.in(), items(3, Shape{1, 4}));
        },
        {"[3,4]", "[3,2]"});
}

}  // namespace
}  // namespace vireo::sdk::test
