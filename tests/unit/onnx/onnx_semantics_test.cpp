// Tests ONNX semantics that the translators once got wrong or that real models need (issue 30):
// reductions whose axes input is empty at run time, constants that come from Constant nodes.
// Expected values come from plain loops over the inputs, not from the code under test.
#include <gtest/gtest.h>

#include <numeric>

#include "onnx_test_util.hpp"
#include "vireo/core.hpp"

namespace vireo {
namespace {

using test::OnnxBuilder;
constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;

void int_attribute(onnx::NodeProto& node, const std::string& name, int64_t value) {
    auto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
}

Tensor f32(const Shape& shape, const std::vector<float>& v) {
    Tensor t(element::f32, shape);
    std::copy(v.begin(), v.end(), t.data<float>());
    return t;
}
Tensor i64s(const std::vector<int64_t>& v) {
    Tensor t(element::i64, Shape{v.size()});
    std::copy(v.begin(), v.end(), t.data<int64_t>());
    return t;
}

// data [3,2,2] = 1..12; axes is a graph input, so its emptiness is known only at run time.
TEST(OnnxSemantics, ReductionWithAnEmptyRunTimeAxesInputReducesEveryAxis) {
    std::vector<float> data(12);
    std::iota(data.begin(), data.end(), 1.f);
    struct Case {
        std::string op;
        int64_t opset;
        int64_t noop;
        std::vector<int64_t> axes;
        Shape shape;
        std::vector<float> expected;
    };
    const std::vector<Case> cases{
        {"ReduceSum", 13, 0, {}, {1, 1, 1}, {78.f}},
        {"ReduceMax", 18, 0, {}, {1, 1, 1}, {12.f}},
        // Axis 1 of [[1,2],[3,4]], [[5,6],[7,8]], [[9,10],[11,12]].
        {"ReduceSum", 13, 0, {1}, {3, 1, 2}, {4.f, 6.f, 12.f, 14.f, 20.f, 22.f}},
        {"ReduceSum", 13, 1, {}, {3, 2, 2}, data},
    };
    Core core;
    for (const auto& c : cases) {
        OnnxBuilder b(c.opset);
        b.input("x", kF32, {3, 2, 2}).input("axes", kI64, {-1}).output("y", kF32, {-1, -1, -1});
        int_attribute(b.node(c.op, {"x", "axes"}, {"y"}, "reduce"), "noop_with_empty_axes", c.noop);
        const std::string what = c.op + "-" + std::to_string(c.opset) + " axes size " +
                                 std::to_string(c.axes.size()) + " noop " + std::to_string(c.noop);
        auto request = core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE")
                           .create_infer_request();
        request.set_tensor("x", f32({3, 2, 2}, data));
        request.set_tensor("axes", i64s(c.axes));
        request.infer();
        const Tensor y = request.get_tensor("y");
        ASSERT_EQ(y.get_shape(), c.shape) << what;
        for (size_t i = 0; i < c.expected.size(); ++i)
            EXPECT_EQ(y.data<float>()[i], c.expected[i]) << what << " i=" << i;
    }
}

onnx::NodeProto& bool_constant(OnnxBuilder& b, const std::string& output, bool value) {
    auto& node = b.node("Constant", {}, {output}, output + "_node");
    auto* a = node.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::BOOL);
    a->mutable_t()->add_int32_data(value ? 1 : 0);
    return node;
}

// training_mode from a Constant node, through Identity, and computed by a folded subgraph
// (Not(true)): all are constants, as an initializer would be.
TEST(OnnxSemantics, DropoutTrainingModeFromConstantNodesAndFoldedSubgraphs) {
    Core core;
    for (const std::string route : {"constant", "identity", "folded", "cast", "squeeze"}) {
        OnnxBuilder b(13);
        b.input("x", kF32, {2}).output("y", kF32, {2});
        if (route == "constant") {
            bool_constant(b, "training", false);
        } else if (route == "identity") {
            bool_constant(b, "t0", false);
            b.node("Identity", {"t0"}, {"training"}, "id");
        } else if (route == "folded") {
            bool_constant(b, "t0", true);
            b.node("Not", {"t0"}, {"training"}, "not");
        } else if (route == "cast") {
            b.initializer("zero", {}, {0.f});
            int_attribute(b.node("Cast", {"zero"}, {"training"}, "cast"), "to", 9);
        } else {
            b.initializer("zero1", {1}, {0.f});
            int_attribute(b.node("Cast", {"zero1"}, {"t1"}, "cast"), "to", 9);
            b.node("Squeeze", {"t1"}, {"training"}, "sq");
        }
        b.initializer("ratio", {}, {0.5f});
        b.node("Dropout", {"x", "ratio", "training"}, {"y"}, "drop");
        auto request = core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE")
                           .create_infer_request();
        request.set_tensor("x", f32({2}, {1.5f, -2.f}));
        request.infer();
        EXPECT_EQ(request.get_tensor("y").data<float>()[0], 1.5f) << route;
        EXPECT_EQ(request.get_tensor("y").data<float>()[1], -2.f) << route;
    }
    // Training mode with a ratio of constant 0 drops nothing: the identity (torchvision's Swin
    // exports its attention dropout so).
    for (const bool constant_training : {true, false}) {
        OnnxBuilder b(13);
        b.input("x", kF32, {2}).output("y", kF32, {2});
        if (constant_training)
            bool_constant(b, "training", true);
        else
            b.input("training", onnx::TensorProto::BOOL, {});
        b.initializer("ratio0", {}, {0.f});
        b.node("Dropout", {"x", "ratio0", "training"}, {"y"}, "drop0");
        auto request = core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE")
                           .create_infer_request();
        request.set_tensor("x", f32({2}, {1.5f, -2.f}));
        if (!constant_training) {
            Tensor t(element::boolean, Shape{});
            *static_cast<bool*>(t.data()) = true;
            request.set_tensor("training", t);
        }
        request.infer();
        EXPECT_EQ(request.get_tensor("y").data<float>()[0], 1.5f);
        EXPECT_EQ(request.get_tensor("y").data<float>()[1], -2.f);
    }
    // A constant true with a ratio that drops is still refused, naming the node.
    OnnxBuilder b(13);
    b.input("x", kF32, {2}).output("y", kF32, {2});
    bool_constant(b, "training", true);
    b.node("Dropout", {"x", "", "training"}, {"y"}, "drop");
    try {
        core.read_model(b.bytes(), Tensor());
        ADD_FAILURE() << "training_mode true was accepted";
    } catch (const NotImplemented& e) {
        EXPECT_NE(std::string(e.what()).find("Dropout-13 'drop'"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace vireo
