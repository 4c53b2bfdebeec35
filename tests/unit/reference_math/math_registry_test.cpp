// Tests the math group's registration (every op type has a kernel, supports() answers by element
// type) and that one kernel serves concurrent executions on different tensors (run under TSan).
#include <thread>

#include "math_test_util.hpp"

namespace vireo::reference::test {
namespace {

TEST(MathRegistry, EveryMathOpHasAKernel) {
    const auto types = KernelRegistry::instance().types();
    const std::set<std::string> registered(types.begin(), types.end());
    for (const char* op : {"Convert",
                           "Add",
                           "Subtract",
                           "Multiply",
                           "Divide",
                           "Power",
                           "Maximum",
                           "Minimum",
                           "SquaredDifference",
                           "Mod",
                           "FloorMod",
                           "Equal",
                           "NotEqual",
                           "Less",
                           "LessEqual",
                           "Greater",
                           "GreaterEqual",
                           "LogicalAnd",
                           "LogicalOr",
                           "LogicalXor",
                           "LogicalNot",
                           "Select",
                           "Abs",
                           "Negative",
                           "Sign",
                           "Exp",
                           "Log",
                           "Sqrt",
                           "Erf",
                           "Sin",
                           "Cos",
                           "Floor",
                           "Ceiling",
                           "Relu",
                           "Sigmoid",
                           "Tanh",
                           "Clamp",
                           "Elu",
                           "Gelu",
                           "HSwish",
                           "HSigmoid",
                           "Swish",
                           "Mish",
                           "SoftPlus",
                           "PRelu",
                           "Softmax",
                           "LogSoftmax",
                           "ReduceMean",
                           "ReduceSum",
                           "ReduceMax",
                           "ReduceMin",
                           "ReduceProd",
                           "ReduceL1",
                           "ReduceL2",
                           "ReduceLogicalAnd",
                           "ReduceLogicalOr",
                           "BatchNormInference",
                           "MVN",
                           "NormalizeL2",
                           "FakeQuantize"})
        EXPECT_TRUE(registered.count(op)) << op;
}

TEST(MathRegistry, SupportsAnswersByElementType) {
    const auto& registry = KernelRegistry::instance();
    const auto f = op::parameter(element::f32, PartialShape{2});
    const auto i = op::parameter(element::i32, PartialShape{2});
    EXPECT_TRUE(registry.supports(*make_node("Sigmoid", {f})));
    EXPECT_TRUE(registry.supports(*make_node("Sigmoid", {i})));
    EXPECT_TRUE(registry.supports(*make_node("Add", {i, i})));
    // Real-only activations refuse integers with NotImplemented naming the node and the type.
    const auto hswish = make_node("HSwish", {op::parameter(element::f16, PartialShape{2})});
    EXPECT_TRUE(registry.supports(*hswish));
    const auto soft = make_node("Softmax", {f}, {{"axis", int64_t{0}}}, 8);
    EXPECT_TRUE(registry.supports(*soft));
    const auto b = op::parameter(element::boolean, PartialShape{2});
    const auto logical_not = make_node("LogicalNot", {b});
    EXPECT_TRUE(registry.supports(*logical_not));
    // Abs of boolean is rejected by shape inference already; Equal of booleans is fine.
    EXPECT_TRUE(registry.supports(*make_node("Equal", {b, b})));
}

TEST(MathRegistry, NotImplementedNamesNodeAndType) {
    // A dynamic element type cannot be dispatched.
    const auto d = op::parameter(element::dynamic, PartialShape{2});
    const auto node = make_node("Exp", {d});
    try {
        KernelRegistry::instance().create(*node);
        FAIL() << "expected NotImplemented";
    } catch (const NotImplemented& e) {
        EXPECT_NE(std::string(e.what()).find(node->describe()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("dynamic"), std::string::npos) << e.what();
    }
}

TEST(MathRegistry, FlopsCountInputElementsForReductions) {
    const auto x = op::parameter(element::f32, PartialShape{4, 5});
    const auto reduce = make_node("ReduceSum", {x, op::constant(i64s({1}))});
    const std::vector<Tensor> in{Tensor(element::f32, Shape{4, 5}), i64s({1})};
    const std::vector<Tensor> out{Tensor(element::f32, Shape{4})};
    EXPECT_EQ(KernelRegistry::instance().create(*reduce)->flops(in, out), 20.0);
    const auto softmax = make_node("Softmax", {x}, {{"axis", int64_t{1}}}, 8);
    EXPECT_EQ(KernelRegistry::instance().create(*softmax)->flops({in[0]}, {in[0]}), 80.0);
    // Elementwise ops keep the default: one per output element.
    const auto add = make_node("Add", {x, x});
    EXPECT_EQ(KernelRegistry::instance().create(*add)->flops({in[0], in[0]}, {in[0]}), 20.0);
}

TEST(MathRegistry, OneKernelExecutesConcurrently) {
    const NodePtr node = make_node("Add", {op::parameter(element::f32, PartialShape::dynamic()),
                                           op::parameter(element::f32, PartialShape::dynamic())});
    const auto kernel = KernelRegistry::instance().create(*node);
    const NodePtr reduce =
        make_node("ReduceMean", {op::parameter(element::f32, PartialShape::dynamic()),
                                 op::parameter(element::i64, PartialShape{1})});
    const auto reduce_kernel = KernelRegistry::instance().create(*reduce);
    constexpr int kThreads = 4;
    std::vector<int> failures(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            const size_t n = 100 + static_cast<size_t>(t) * 37;  // a different shape per thread
            std::vector<double> a(n), b(3);
            for (size_t i = 0; i < n; ++i) a[i] = static_cast<double>(i) + t;
            for (size_t i = 0; i < 3; ++i) b[i] = static_cast<double>(i) * 1000;
            for (int rep = 0; rep < 20; ++rep) {
                std::vector<Tensor> out{Tensor(element::f32, Shape{n, 3})};
                kernel->execute(
                    {make_tensor(element::f32, {n, 1}, a), make_tensor(element::f32, {3}, b)}, out);
                const float* o = static_cast<const float*>(out[0].data());
                for (size_t i = 0; i < n; ++i)
                    for (size_t j = 0; j < 3; ++j)
                        if (o[i * 3 + j] != static_cast<float>(a[i] + b[j])) ++failures[t];
                std::vector<Tensor> mean{Tensor(element::f32, Shape{1})};
                reduce_kernel->execute({make_tensor(element::f32, {n}, a),
                                        make_tensor(element::i64, {1}, std::vector<int64_t>{0})},
                                       mean);
                const double want = (static_cast<double>(n) - 1) / 2 + t;
                if (std::fabs(static_cast<const float*>(mean[0].data())[0] - want) > 1e-3)
                    ++failures[t];
            }
        });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace vireo::reference::test
