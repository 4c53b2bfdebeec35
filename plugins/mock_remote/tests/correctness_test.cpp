// Tests that MOCK_REMOTE computes what the models define: the golden models against ONNX
// Runtime's stored outputs and against TEMPLATE, and the real OpenVINO IR files against
// hand-computed values; sub-graph ops are refused by name.
#include <cmath>

#include "test_utils.hpp"

namespace vireo::mock_remote::test {
namespace {

const std::string kData = VIREO_TEST_DATA_DIR;

Tensor run_once(CompiledModel& compiled, const std::vector<Tensor>& inputs) {
    auto request = compiled.create_infer_request();
    for (size_t i = 0; i < inputs.size(); ++i) request.set_input_tensor(i, inputs[i]);
    request.start_async();
    request.wait();
    return request.get_output_tensor(0);
}

class MockRemoteGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(MockRemoteGolden, MatchesOnnxRuntimeAndTemplate) {
    const std::string dir = kData + "/models/golden/" + GetParam();
    Core core = make_core();
    auto model = core.read_model(dir + "/model.xml");
    Shape in_shape;
    Shape out_shape;
    const auto x = read_npy_f32(dir + "/input_x.npy", &in_shape);
    const auto expected = read_npy_f32(dir + "/output_y.npy", &out_shape);
    Tensor input(element::f32, in_shape);
    std::copy(x.begin(), x.end(), input.data<float>());

    auto compiled = core.compile_model(model, "MOCK_REMOTE.1", fast(100));
    const Tensor output = run_once(compiled, {input});
    ASSERT_EQ(output.get_shape(), out_shape);
    const auto got = values(output);
    for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], expected[i], 1e-5 + 1e-4 * std::fabs(expected[i])) << "element " << i;

    // The same reference kernels behind TEMPLATE: the same numbers.
    auto reference = core.compile_model(model, "TEMPLATE");
    const auto want = values(run_once(reference, {input}));
    ASSERT_EQ(want.size(), got.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_FLOAT_EQ(got[i], want[i]) << "element " << i;
}

INSTANTIATE_TEST_SUITE_P(Models, MockRemoteGolden, ::testing::Values("tiny", "mlp", "cnn"));

TEST(MockRemoteIr, IncrementModelsAddOne) {
    Core core = make_core();
    for (const std::string path : {"dummy/dummy.xml", "increment_1x3x4x5/increment_1x3x4x5.xml"}) {
        auto model = core.read_model(kData + "/models/openvino_ir/" + path);
        auto compiled = core.compile_model(model, "MOCK_REMOTE.0", fast(100));
        const Shape shape = compiled.input().get_shape();
        const Tensor in = make_tensor(shape, -7.f, 0.25f);
        const auto out = values(run_once(compiled, {in}));
        ASSERT_EQ(out.size(), shape_size(shape)) << path;
        for (size_t i = 0; i < out.size(); ++i)
            EXPECT_FLOAT_EQ(out[i], -7.f + 0.25f * static_cast<float>(i) + 1.f);
    }
}

TEST(MockRemoteIr, AddTwoInputs) {
    Core core = make_core();
    auto compiled = core.compile_model(kData + "/models/openvino_ir/add_two_inputs_model/add.xml",
                                       "MOCK_REMOTE.1", fast(100));
    ASSERT_EQ(compiled.inputs().size(), 2u);
    const Shape shape = compiled.input(0).get_shape();
    const auto out =
        values(run_once(compiled, {make_tensor(shape, 1.f, 1.f), make_tensor(shape, 100.f, -2.f)}));
    for (size_t i = 0; i < out.size(); ++i) EXPECT_FLOAT_EQ(out[i], 101.f - static_cast<float>(i));
}

TEST(MockRemoteIr, PassthroughNeedsStaticShapes) {
    Core core = make_core();
    auto model = core.read_model(kData + "/models/openvino_ir/passthrough/passthrough.xml");
    expect_error([&] { core.compile_model(model, "MOCK_REMOTE.0", fast()); },
                 ErrorKind::kNotImplemented, {"dynamic shape", "reshape"});
    EXPECT_LT(core.query_model(model, "MOCK_REMOTE.0").size(), model->get_ordered_ops().size());
    model->reshape(PartialShape{2, 3});
    auto compiled = core.compile_model(model, "MOCK_REMOTE.0", fast(100));
    Tensor in(element::u8, {2, 3});
    for (size_t i = 0; i < 6; ++i) in.data<uint8_t>()[i] = static_cast<uint8_t>(40 + i);
    auto request = compiled.create_infer_request();
    request.set_tensor("input", in);
    request.infer();
    const Tensor out = request.get_output_tensor(0);
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(out.data<uint8_t>()[i], 40 + i);
}

TEST(MockRemoteIr, StridedInputAndOutputTensors) {
    Core core = make_core();
    auto compiled = core.compile_model(add_one_model({2, 2}), "MOCK_REMOTE.0", fast(100));
    auto request = compiled.create_infer_request();
    const Tensor big_in = make_tensor({3, 4}, 0.f);
    const Tensor in_view(big_in, {1, 1}, {3, 3});  // rows 1-2, cols 1-2: 5 6 / 9 10
    Tensor big_out(element::f32, {3, 4});
    Tensor out_view(big_out, {0, 2}, {2, 4});
    request.set_tensor("x", in_view);
    request.set_tensor("y", out_view);
    request.infer();
    const float* o = big_out.data<float>();
    EXPECT_EQ(o[2], 6.f);
    EXPECT_EQ(o[3], 7.f);
    EXPECT_EQ(o[6], 10.f);
    EXPECT_EQ(o[7], 11.f);
    EXPECT_EQ(o[0], 0.f);  // outside the view: untouched
}

}  // namespace
}  // namespace vireo::mock_remote::test

namespace vireo::mock_remote::test {
namespace {

// Sub-graph ops are TEMPLATE's only: MOCK_REMOTE leaves them out of query_model and refuses to
// compile them, naming the op.
TEST(MockRemoteSubgraph, IfIsRefusedByNameWithNotImplemented) {
    auto cond = op::parameter(element::boolean, Shape{}, "cond");
    auto x = op::parameter(element::f32, Shape{2}, "x");
    auto tx = op::parameter(element::f32, Shape{2});
    auto ex = op::parameter(element::f32, Shape{2});
    auto y = op::if_op(
        cond, {x}, std::make_shared<Model>(OutputVector{op::relu(tx)}, ParameterVector{tx}),
        std::make_shared<Model>(OutputVector{make_node("Negative", {ex})}, ParameterVector{ex}));
    y->set_friendly_name("branch");
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{cond, x});
    Core core = make_core();
    EXPECT_EQ(core.query_model(model, "MOCK_REMOTE.0").count("branch"), 0u);
    try {
        core.compile_model(model, "MOCK_REMOTE.0", fast());
        ADD_FAILURE() << "compile_model accepted an If";
    } catch (const NotImplemented& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("MOCK_REMOTE: the model has ops this device does not run: If 'branch' "
                            "(sub-graph ops (If, Loop) are not supported"),
                  std::string::npos)
            << what;
    }
}

}  // namespace
}  // namespace vireo::mock_remote::test
