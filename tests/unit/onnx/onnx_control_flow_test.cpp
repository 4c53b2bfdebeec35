// Tests ONNX Loop and run-time If through the core's sub-graph ops on TEMPLATE: a Loop with a
// trip count, a data-dependent early exit, a scan output and bodies capturing outer values; an If
// whose branches have different shapes and capture outer values; an If nested in a Loop body whose
// branches capture an outer value through the body; Scan unrolled when short and static, else a
// Loop; a carried value that grows each iteration. Expected values from plain loops.
#include <gtest/gtest.h>

#include "onnx_test_util.hpp"
#include "vireo/core.hpp"

namespace vireo {
namespace {

using test::OnnxBuilder;
constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;
constexpr int32_t kBool = onnx::TensorProto::BOOL;

void value_info(onnx::ValueInfoProto* v, const std::string& name, int32_t type,
                const std::vector<int64_t>& dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* shape = t->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

onnx::NodeProto* add_node(onnx::GraphProto& g, const std::string& op,
                          const std::vector<std::string>& ins,
                          const std::vector<std::string>& outs) {
    auto* n = g.add_node();
    n->set_op_type(op);
    for (const auto& i : ins) n->add_input(i);
    for (const auto& o : outs) n->add_output(o);
    return n;
}

void graph_attribute(onnx::NodeProto& node, const std::string& name, const onnx::GraphProto& g) {
    auto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = g;
}

using test::f32;
Tensor i64(int64_t v) {
    Tensor t(element::i64, Shape{});
    *t.data<int64_t>() = v;
    return t;
}
Tensor boolean(bool v) {
    Tensor t(element::boolean, Shape{});
    *static_cast<uint8_t*>(t.data()) = v ? 1 : 0;
    return t;
}

// acc starts at x; each iteration adds the outer w, records acc as a scan output and goes on while
// the iteration number is below the outer `limit`, at most M times.
TEST(OnnxControlFlow, LoopWithCapturesEarlyExitAndScanOutput) {
    OnnxBuilder b(13);
    b.input("M", kI64, {})
        .input("c0", kBool, {})
        .input("x", kF32, {2})
        .input("w", kF32, {2})
        .input("limit", kI64, {});
    onnx::GraphProto body;
    body.set_name("body");
    value_info(body.add_input(), "iter", kI64, {});
    value_info(body.add_input(), "cond_in", kBool, {});
    value_info(body.add_input(), "acc", kF32, {2});
    add_node(body, "Add", {"acc", "w"}, {"acc_next"});
    add_node(body, "Less", {"iter", "limit"}, {"cond_out"});
    add_node(body, "Identity", {"acc_next"}, {"scan"});
    value_info(body.add_output(), "cond_out", kBool, {});
    value_info(body.add_output(), "acc_next", kF32, {2});
    value_info(body.add_output(), "scan", kF32, {2});
    graph_attribute(b.node("Loop", {"M", "c0", "x"}, {"acc_final", "scans"}, "loop"), "body", body);
    b.output("acc_final", kF32, {2}).output("scans", kF32, {-1, 2});

    Core core;
    const std::string bytes = b.bytes();
    auto compiled = core.compile_model(core.read_model(bytes, Tensor()), "TEMPLATE");
    auto request = compiled.create_infer_request();
    const std::vector<float> x{1.f, -2.f}, w{0.5f, 3.f};
    for (auto [m, first, limit] : std::vector<std::tuple<int64_t, bool, int64_t>>{
             {5, true, 100}, {5, true, 2}, {4, false, 9}, {0, true, 9}}) {
        request.set_tensor("M", i64(m));
        request.set_tensor("c0", boolean(first));
        request.set_tensor("x", f32({2}, x));
        request.set_tensor("w", f32({2}, w));
        request.set_tensor("limit", i64(limit));
        request.infer();
        std::vector<float> acc = x, scans;
        bool go = first;
        for (int64_t k = 0; k < m && go; ++k) {
            for (size_t i = 0; i < 2; ++i) acc[i] += w[i];
            scans.insert(scans.end(), acc.begin(), acc.end());
            go = k < limit;
        }
        const Tensor final_acc = request.get_tensor("acc_final");
        const Tensor all = request.get_tensor("scans");
        const std::string what = "M=" + std::to_string(m) + " limit=" + std::to_string(limit);
        EXPECT_EQ(final_acc.data<float>()[0], acc[0]) << what;
        EXPECT_EQ(final_acc.data<float>()[1], acc[1]) << what;
        ASSERT_EQ(all.get_shape(), (Shape{scans.size() / 2, 2})) << what;
        for (size_t i = 0; i < scans.size(); ++i)
            EXPECT_EQ(all.data<float>()[i], scans[i]) << what << " i=" << i;
    }
}

// acc starts as [0, 2] and each iteration appends the row x * iter; the body declares its carried
// input [0, 2], as torch writes it for torchvision's Mask R-CNN mask paste. The reader took that
// shape as static, so the Loop's output was [1, 2] and TEMPLATE failed at the second iteration.
TEST(OnnxControlFlow, LoopCarriedValueThatGrowsEachIteration) {
    OnnxBuilder b(13);
    b.input("M", kI64, {}).input("x", kF32, {1, 2});
    b.initializer("start", {0, 2}, {});
    onnx::GraphProto body;
    body.set_name("body");
    value_info(body.add_input(), "iter", kI64, {});
    value_info(body.add_input(), "cond_in", kBool, {});
    value_info(body.add_input(), "acc", kF32, {0, 2});
    add_node(body, "Cast", {"iter"}, {"iter_f"})->add_attribute()->set_name("to");
    auto* to = body.mutable_node(0)->mutable_attribute(0);
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(kF32);
    add_node(body, "Mul", {"x", "iter_f"}, {"row"});
    add_node(body, "Concat", {"acc", "row"}, {"acc_next"})->add_attribute()->set_name("axis");
    auto* axis = body.mutable_node(2)->mutable_attribute(0);
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
    add_node(body, "Identity", {"cond_in"}, {"cond_out"});
    value_info(body.add_output(), "cond_out", kBool, {});
    value_info(body.add_output(), "acc_next", kF32, {1, 2});
    graph_attribute(b.node("Loop", {"M", "", "start"}, {"rows"}, "loop"), "body", body);
    b.output("rows", kF32, {-1, 2});

    Core core;
    const auto model = core.read_model(b.bytes(), Tensor());
    EXPECT_FALSE(model->output("rows").get_partial_shape()[0].is_static());
    for (const std::string device : {"TEMPLATE", "CPU"}) {
        auto request = core.compile_model(model, device).create_infer_request();
        for (int64_t m : {3, 0, 5}) {
            request.set_tensor("M", i64(m));
            request.set_tensor("x", f32({1, 2}, {1.5f, -2.f}));
            request.infer();
            const Tensor rows = request.get_tensor("rows");
            ASSERT_EQ(rows.get_shape(), (Shape{static_cast<size_t>(m), 2})) << device << " M=" << m;
            for (int64_t k = 0; k < m; ++k) {
                EXPECT_EQ(rows.data<float>()[2 * k], 1.5f * static_cast<float>(k)) << device;
                EXPECT_EQ(rows.data<float>()[2 * k + 1], -2.f * static_cast<float>(k)) << device;
            }
        }
    }
}

// then: Concat(x, x) ([4]); else: x * w ([2]); the condition is a graph input.
TEST(OnnxControlFlow, RunTimeIfWithBranchesOfDifferentShapes) {
    OnnxBuilder b(13);
    b.input("c", kBool, {}).input("x", kF32, {2}).input("w", kF32, {2});
    onnx::GraphProto then_g, else_g;
    then_g.set_name("then");
    auto* concat = add_node(then_g, "Concat", {"x", "x"}, {"t"});
    auto* axis = concat->add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
    value_info(then_g.add_output(), "t", kF32, {4});
    else_g.set_name("else");
    add_node(else_g, "Mul", {"x", "w"}, {"e"});
    value_info(else_g.add_output(), "e", kF32, {2});
    auto& node = b.node("If", {"c"}, {"y"}, "branch");
    graph_attribute(node, "then_branch", then_g);
    graph_attribute(node, "else_branch", else_g);
    b.output("y", kF32, {-1});

    Core core;
    const std::string bytes = b.bytes();
    auto model = core.read_model(bytes, Tensor());
    EXPECT_EQ(model->output(0).get_partial_shape().to_string(), "[2..4]");
    auto request = core.compile_model(model, "TEMPLATE").create_infer_request();
    const std::vector<float> x{1.5f, -2.f}, w{4.f, 0.25f};
    for (bool c : {true, false, true}) {
        request.set_tensor("c", boolean(c));
        request.set_tensor("x", f32({2}, x));
        request.set_tensor("w", f32({2}, w));
        request.infer();
        const Tensor y = request.get_tensor("y");
        std::vector<float> expected = c ? std::vector<float>{x[0], x[1], x[0], x[1]}
                                        : std::vector<float>{x[0] * w[0], x[1] * w[1]};
        ASSERT_EQ(y.get_shape(), (Shape{expected.size()})) << c;
        for (size_t i = 0; i < expected.size(); ++i)
            EXPECT_EQ(y.data<float>()[i], expected[i]) << c << " " << i;
    }
}

// torch's squeeze-if-size-1 idiom, as in the Silero VAD models (issue 30): an If whose branches
// differ in rank (then: x [1,2,3]; else: Squeeze(x) [2,3]) feeds a 1-D Conv, whose weights fix
// its input's rank at 3. It imports; the rank-3 branch runs, the rank-2 one fails at run time
// naming the shape (a model that really gave Conv a rank-2 input would be invalid).
TEST(OnnxControlFlow, IfOfBranchesOfDifferentRankFeedsAnOpWithAFixedRank) {
    OnnxBuilder b(13);
    b.input("c", kBool, {}).input("x", kF32, {1, 2, 3});
    b.initializer("w", {1, 2, 1}, {2.f, -1.f});
    onnx::GraphProto then_g, else_g;
    then_g.set_name("then");
    add_node(then_g, "Identity", {"x"}, {"t"});
    value_info(then_g.add_output(), "t", kF32, {1, 2, 3});
    else_g.set_name("else");
    add_node(else_g, "Squeeze", {"x"}, {"e"});
    value_info(else_g.add_output(), "e", kF32, {2, 3});
    auto& node = b.node("If", {"c"}, {"r"}, "squeeze_if_size_1");
    graph_attribute(node, "then_branch", then_g);
    graph_attribute(node, "else_branch", else_g);
    b.node("Conv", {"r", "w"}, {"y"}, "conv1d");
    b.output("y", kF32, {1, 1, 3});

    Core core;
    auto model = core.read_model(b.bytes(), Tensor());
    auto request = core.compile_model(model, "TEMPLATE").create_infer_request();
    const std::vector<float> x{1.f, 2.f, 3.f, 10.f, 20.f, 30.f};
    request.set_tensor("x", f32({1, 2, 3}, x));
    request.set_tensor("c", boolean(true));
    request.infer();
    const Tensor y = request.get_tensor("y");
    ASSERT_EQ(y.get_shape(), (Shape{1, 1, 3}));
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(y.data<float>()[i], 2.f * x[i] - x[3 + i]) << i;
    request.set_tensor("c", boolean(false));
    try {
        request.infer();
        ADD_FAILURE() << "a rank-2 input reached a 1-D Conv";
    } catch (const Exception& e) {
        EXPECT_NE(std::string(e.what()).find("[2,3]"), std::string::npos) << e.what();
    }
}

// An If inside the Loop body whose branches read the outer graph's w: the capture passes through
// the body (a capture of a capture). No cond input: the trip count alone bounds the loop.
TEST(OnnxControlFlow, IfNestedInLoopCapturesAnOuterValueThroughTheBody) {
    OnnxBuilder b(13);
    b.input("M", kI64, {}).input("k", kI64, {}).input("x", kF32, {2}).input("w", kF32, {2});
    onnx::GraphProto then_g, else_g, body;
    then_g.set_name("then");
    add_node(then_g, "Add", {"acc", "w"}, {"t"});
    value_info(then_g.add_output(), "t", kF32, {2});
    else_g.set_name("else");
    add_node(else_g, "Sub", {"acc", "w"}, {"e"});
    value_info(else_g.add_output(), "e", kF32, {2});
    body.set_name("body");
    value_info(body.add_input(), "iter", kI64, {});
    value_info(body.add_input(), "cond_in", kBool, {});
    value_info(body.add_input(), "acc", kF32, {2});
    add_node(body, "Less", {"iter", "k"}, {"early"});
    auto* branch = add_node(body, "If", {"early"}, {"acc_next"});
    graph_attribute(*branch, "then_branch", then_g);
    graph_attribute(*branch, "else_branch", else_g);
    add_node(body, "Identity", {"cond_in"}, {"cond_out"});
    value_info(body.add_output(), "cond_out", kBool, {});
    value_info(body.add_output(), "acc_next", kF32, {2});
    graph_attribute(b.node("Loop", {"M", "", "x"}, {"acc_final"}, "loop"), "body", body);
    b.output("acc_final", kF32, {2});

    Core core;
    const std::string bytes = b.bytes();
    auto request =
        core.compile_model(core.read_model(bytes, Tensor()), "TEMPLATE").create_infer_request();
    const std::vector<float> x{2.f, -1.f}, w{0.25f, 1.5f};
    for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{5, 2}, {3, 0}, {0, 4}}) {
        request.set_tensor("M", i64(m));
        request.set_tensor("k", i64(k));
        request.set_tensor("x", f32({2}, x));
        request.set_tensor("w", f32({2}, w));
        request.infer();
        std::vector<float> acc = x;
        for (int64_t it = 0; it < m; ++it)
            for (size_t i = 0; i < 2; ++i) acc[i] = it < k ? acc[i] + w[i] : acc[i] - w[i];
        const Tensor y = request.get_tensor("acc_final");
        EXPECT_EQ(y.data<float>()[0], acc[0]) << "M=" << m << " k=" << k;
        EXPECT_EQ(y.data<float>()[1], acc[1]) << "M=" << m << " k=" << k;
    }
}

onnx::AttributeProto* int_attribute(onnx::NodeProto& node, const std::string& name, int64_t v) {
    auto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
    return a;
}

void ints_attribute(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
}

// A running sum over `steps` (-1: a length known only at run time): s_final, and the sum after
// every step as a scan output.
std::string running_sum_scan(int64_t steps) {
    OnnxBuilder b(11);
    b.input("s0", kF32, {1}).input("xs", kF32, {steps, 1});
    onnx::GraphProto body;
    body.set_name("body");
    value_info(body.add_input(), "s", kF32, {1});
    value_info(body.add_input(), "x", kF32, {1});
    add_node(body, "Add", {"s", "x"}, {"s_next"});
    add_node(body, "Identity", {"s_next"}, {"out"});
    value_info(body.add_output(), "s_next", kF32, {1});
    value_info(body.add_output(), "out", kF32, {1});
    auto& scan = b.node("Scan", {"s0", "xs"}, {"s_final", "sums"}, "scan");
    graph_attribute(scan, "body", body);
    int_attribute(scan, "num_scan_inputs", 1);
    b.output("s_final", kF32, {1}).output("sums", kF32, {steps, 1});
    return b.bytes();
}

size_t count_ops(const Model& model, const std::string& type) {
    size_t n = 0;
    for (const auto& node : model.get_ordered_ops()) n += node->get_type_name() == type;
    return n;
}

// A short static Scan is unrolled at import (one flat graph for the device); one too long to
// unroll becomes a Loop instead of millions of nodes (issue 35 first refused it: 1e5 steps had
// taken 27 s and 2.1 GB to unroll, 1e9 allocated its step table first), and runs.
TEST(OnnxControlFlow, ShortScansAreUnrolledLongOnesBecomeALoop) {
    Core core;
    const auto short_scan = core.read_model(running_sum_scan(3), Tensor());
    EXPECT_EQ(count_ops(*short_scan, "Loop"), 0u);
    EXPECT_EQ(count_ops(*short_scan, "Add"), 3u);
    for (int64_t steps : {int64_t{100000}, int64_t{1000000000}}) {
        const auto model = core.read_model(running_sum_scan(steps), Tensor());
        EXPECT_EQ(count_ops(*model, "Loop"), 1u) << steps;
        EXPECT_LT(model->get_ordered_ops().size(), 20u) << steps;
    }
    auto request = core.compile_model(core.read_model(running_sum_scan(3), Tensor()), "TEMPLATE")
                       .create_infer_request();
    request.set_tensor("s0", f32({1}, {1.f}));
    request.set_tensor("xs", f32({3, 1}, {2.f, 3.f, 4.f}));
    request.infer();
    EXPECT_EQ(request.get_tensor("s_final").data<float>()[0], 10.f);
    const Tensor sums = request.get_tensor("sums");
    ASSERT_EQ(sums.get_shape(), (Shape{3, 1}));
    EXPECT_EQ(sums.data<float>()[0], 3.f);
    EXPECT_EQ(sums.data<float>()[1], 6.f);
    EXPECT_EQ(sums.data<float>()[2], 10.f);

    const int64_t long_steps = 70000;  // over the unrolling limit (65536 nodes)
    auto long_request =
        core.compile_model(core.read_model(running_sum_scan(long_steps), Tensor()), "TEMPLATE")
            .create_infer_request();
    long_request.set_tensor("s0", f32({1}, {0.f}));
    long_request.set_tensor("xs", f32({long_steps, 1}, std::vector<float>(long_steps, 1.f)));
    long_request.infer();
    EXPECT_EQ(long_request.get_tensor("s_final").data<float>()[0], static_cast<float>(long_steps));
    const Tensor long_sums = long_request.get_tensor("sums");
    ASSERT_EQ(long_sums.get_shape(), (Shape{static_cast<size_t>(long_steps), 1}));
    EXPECT_EQ(long_sums.data<float>()[long_steps - 1], static_cast<float>(long_steps));
    EXPECT_EQ(long_sums.data<float>()[12344], 12345.f);
}

// Scan-11 over a length known at run time (`steps` -1) or fixed: state s [2]; xs [T, 2] scanned
// forwards on axis 0, ys [2, T] backwards on axis 1; the body reads the outer w. Per step
// s += x * w + y; scan output o1 = s stacked forwards on axis 0, o2 = x - y stacked backwards on
// axis 1.
std::string two_way_scan(int64_t steps) {
    OnnxBuilder b(11);
    b.input("s0", kF32, {2}).input("xs", kF32, {steps, 2}).input("ys", kF32, {2, steps});
    b.input("w", kF32, {2});
    onnx::GraphProto body;
    body.set_name("body");
    value_info(body.add_input(), "s", kF32, {2});
    value_info(body.add_input(), "x", kF32, {2});
    value_info(body.add_input(), "y", kF32, {2});
    add_node(body, "Mul", {"x", "w"}, {"xw"});
    add_node(body, "Add", {"s", "xw"}, {"sxw"});
    add_node(body, "Add", {"sxw", "y"}, {"s_next"});
    add_node(body, "Identity", {"s_next"}, {"o1_t"});
    add_node(body, "Sub", {"x", "y"}, {"o2_t"});
    value_info(body.add_output(), "s_next", kF32, {2});
    value_info(body.add_output(), "o1_t", kF32, {2});
    value_info(body.add_output(), "o2_t", kF32, {2});
    auto& scan = b.node("Scan", {"s0", "xs", "ys"}, {"s_final", "o1", "o2"}, "scan");
    graph_attribute(scan, "body", body);
    int_attribute(scan, "num_scan_inputs", 2);
    ints_attribute(scan, "scan_input_axes", {0, 1});
    ints_attribute(scan, "scan_input_directions", {0, 1});
    ints_attribute(scan, "scan_output_axes", {0, -1});
    ints_attribute(scan, "scan_output_directions", {0, 1});
    b.output("s_final", kF32, {2}).output("o1", kF32, {steps, 2}).output("o2", kF32, {2, steps});
    return b.bytes();
}

void check_two_way_scan(const std::string& device);

// A Scan whose length is known only at run time imports as a Loop and gives, at lengths 0, 1
// and 5, on TEMPLATE and CPU, the values of a plain loop (and of the unrolled import of the same
// Scan at a fixed length): states carried, inputs and outputs on any axis in either direction,
// captured outer values. Scan inputs of unequal lengths fail naming the Loop.
TEST(OnnxControlFlow, ScanOfRunTimeLengthRunsAsALoop) {
    for (const char* device : {"TEMPLATE", "CPU"}) {
        SCOPED_TRACE(device);
        check_two_way_scan(device);
    }
}

void check_two_way_scan(const std::string& device) {
    Core core;
    const auto model = core.read_model(two_way_scan(-1), Tensor());
    ASSERT_EQ(count_ops(*model, "Loop"), 1u);
    auto request = core.compile_model(model, device).create_infer_request();
    const std::vector<float> w{0.5f, -2.f};
    for (int64_t steps : {0, 1, 5}) {
        const auto T = static_cast<size_t>(steps);
        std::vector<float> xs(2 * T), ys(2 * T);
        for (size_t i = 0; i < 2 * T; ++i) {
            xs[i] = 0.25f * static_cast<float>(i) - 1.f;
            ys[i] = 3.f - 0.5f * static_cast<float>(i);
        }
        std::vector<float> s{1.f, 2.f}, o1(2 * T), o2(2 * T);
        for (size_t t = 0; t < T; ++t) {
            const size_t back = T - 1 - t;
            for (size_t c = 0; c < 2; ++c) {
                const float x = xs[t * 2 + c];
                const float y = ys[c * T + back];
                s[c] = s[c] + x * w[c] + y;
                o1[t * 2 + c] = s[c];
                o2[c * T + back] = x - y;
            }
        }
        request.set_tensor("s0", f32({2}, {1.f, 2.f}));
        request.set_tensor("xs", f32({T, 2}, xs));
        request.set_tensor("ys", f32({2, T}, ys));
        request.set_tensor("w", f32({2}, w));
        request.infer();
        const Tensor s_final = request.get_tensor("s_final");
        const Tensor out1 = request.get_tensor("o1");
        const Tensor out2 = request.get_tensor("o2");
        ASSERT_EQ(out1.get_shape(), (Shape{T, 2})) << steps;
        ASSERT_EQ(out2.get_shape(), (Shape{2, T})) << steps;
        for (size_t c = 0; c < 2; ++c) EXPECT_FLOAT_EQ(s_final.data<float>()[c], s[c]) << steps;
        for (size_t i = 0; i < 2 * T; ++i) {
            EXPECT_FLOAT_EQ(out1.data<float>()[i], o1[i]) << steps << " o1 " << i;
            EXPECT_FLOAT_EQ(out2.data<float>()[i], o2[i]) << steps << " o2 " << i;
        }
        if (steps == 0) continue;
        auto unrolled = core.compile_model(core.read_model(two_way_scan(steps), Tensor()), device)
                            .create_infer_request();
        ASSERT_EQ(count_ops(*core.read_model(two_way_scan(steps), Tensor()), "Loop"), 0u);
        for (const char* name : {"s0", "xs", "ys", "w"})
            unrolled.set_tensor(name, request.get_tensor(name));
        unrolled.infer();
        for (const char* name : {"s_final", "o1", "o2"}) {
            const Tensor a = unrolled.get_tensor(name), b = request.get_tensor(name);
            ASSERT_EQ(a.get_shape(), b.get_shape()) << name;
            for (size_t i = 0; i < a.get_size(); ++i)
                EXPECT_FLOAT_EQ(a.data<float>()[i], b.data<float>()[i]) << name << " " << i;
        }
    }
    for (const auto& [x_steps, y_steps] : {std::pair<size_t, size_t>{4, 3}, {3, 4}}) {
        request.set_tensor("xs", f32({x_steps, 2}, std::vector<float>(2 * x_steps, 1.f)));
        request.set_tensor("ys", f32({2, y_steps}, std::vector<float>(2 * y_steps, 1.f)));
        try {
            request.infer();
            ADD_FAILURE() << "scan inputs of lengths " << x_steps << " and " << y_steps
                          << " were accepted";
        } catch (const Exception& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("Loop"), std::string::npos) << m;
            EXPECT_NE(m.find("iteration 3"), std::string::npos) << m;
        }
    }
}

}  // namespace
}  // namespace vireo
