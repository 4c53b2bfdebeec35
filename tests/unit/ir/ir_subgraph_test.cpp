// Tests that the sub-graph ops If-8 and Loop-5 read from OpenVINO's IR form (<port_map> with
// purposes and slicing, <back_edges>, <body>, <then_port_map>/<then_body>/...) and round-trip
// through the writer with their bodies, port maps and nested bodies intact.
#include "ir_test_util.hpp"
#include "vireo/ops.hpp"

using namespace vireo;
using namespace vireo::ir_test;

namespace {

NodePtr f32_scalar(float v) {
    return op::constant<float>(element::f32, Shape{}, {v});
}

// If (cond) { a + b } else { a * 2 }, named so that the reader's body names ("<layer>/then_body")
// match.
NodePtr make_if(const Output& cond, const Output& a, const Output& b, const std::string& name) {
    auto ta = op::parameter(element::f32, Shape{}, "ta");
    auto tb = op::parameter(element::f32, Shape{}, "tb");
    auto then_b = std::make_shared<Model>(OutputVector{op::add(ta, tb)}, ParameterVector{ta, tb},
                                          name + "/then_body");
    auto ea = op::parameter(element::f32, Shape{}, "ea");
    auto else_b = std::make_shared<Model>(OutputVector{op::multiply(ea, f32_scalar(2.f))},
                                          ParameterVector{ea}, name + "/else_body");
    op::IfPorts ports;
    ports.then_inputs = {1, 2};
    ports.else_inputs = {1};
    auto node = op::if_op(cond, {a, b}, then_b, else_b, ports);
    node->set_friendly_name(name);
    return node;
}

void expect_same_bodies(const Node& a, const Node& b) {
    ASSERT_EQ(a.get_bodies().size(), b.get_bodies().size()) << a.describe();
    for (size_t i = 0; i < a.get_bodies().size(); ++i) {
        expect_same_graph(*a.get_bodies()[i], *b.get_bodies()[i]);
        const NodeVector ops_a = a.get_bodies()[i]->get_ordered_ops();
        const NodeVector ops_b = b.get_bodies()[i]->get_ordered_ops();
        ASSERT_EQ(ops_a.size(), ops_b.size());
        for (size_t k = 0; k < ops_a.size(); ++k) expect_same_bodies(*ops_a[k], *ops_b[k]);
    }
}

}  // namespace

TEST(IrSubgraph, LoopWithNestedIfRoundTrips) {
    // Body: (i, acc [1,2], row [1,2] sliced from x) -> (acc + row or (acc+row)*2 by an If on
    // i < 2, a condition i < 3, the sum concatenated on axis 0).
    auto x = op::parameter(element::f32, Shape{4, 2}, "x");
    auto init = op::parameter(element::f32, Shape{1, 2}, "init");
    auto i = op::parameter(element::i64, Shape{}, "i");
    auto acc = op::parameter(element::f32, Shape{1, 2}, "acc");
    auto row = op::parameter(element::f32, Shape{1, 2}, "row");
    auto sum = op::add(acc, row);
    auto reduced = op::reduce_sum(sum, op::int64_vector({0, 1}), false);
    auto branch = make_if(make_node("Less", {i, op::int64_scalar(2)}), reduced, reduced, "branch");
    auto scaled = op::multiply(sum, branch);
    auto go_on = make_node("Less", {i, op::int64_scalar(3)});
    auto body = std::make_shared<Model>(OutputVector{scaled, go_on, sum},
                                        ParameterVector{i, acc, row}, "loop/body");
    op::LoopPorts ports;
    ports.current_iteration_input_idx = 0;
    ports.body_condition_output_idx = 1;
    ports.input_ports = {-1, 3, 2};
    ports.back_edges = {-1, 0, -1};
    ports.input_slicing = {-1, 0, 1, -1, 1, -1, 0, 1, -1, 1, 0, 0, 1, -1, 1};
    ports.output_results = {0, 2};
    ports.output_slicing = {-1, 0, 1, -1, 1, 0, 0, 1, -1, 1};
    auto loop = op::loop(op::int64_scalar(4), op::constant<int>(element::boolean, {}, {1}),
                         {x, init}, body, ports);
    loop->set_friendly_name("loop");
    loop->output(0).set_names({"last"});
    loop->output(1).set_names({"sums"});
    auto model = std::make_shared<Model>(OutputVector{loop->output(0), loop->output(1)},
                                         ParameterVector{x, init}, "m");
    EXPECT_EQ(loop->get_output_partial_shape(1).to_string(), "[?,2]");

    std::string xml;
    auto again = round_trip(*model, &xml);
    EXPECT_NE(xml.find("purpose=\"current_iteration\""), std::string::npos);
    EXPECT_NE(xml.find("purpose=\"execution_condition\""), std::string::npos);
    EXPECT_NE(xml.find("<back_edges>"), std::string::npos);
    EXPECT_NE(xml.find("<then_body>"), std::string::npos);
    expect_same_graph(*model, *again);
    const Node* read_loop = again->output(0).get_node()->input_value(0).get_node();
    ASSERT_EQ(read_loop->get_type_name(), "Loop");
    expect_same_bodies(*loop, *read_loop);
}

TEST(IrSubgraph, ReadsOpenVinoLoopAndIfLayers) {
    // A Loop as OpenVINO writes it: output port ids follow the input ids, the iteration and
    // condition ports are marked by purpose, the carried value's Parameter has a back edge; an If
    // on the Loop's result with a then_port_map mapping only one of two inputs.
    const std::string param =
        R"(<layer id="%ID%" name="%NAME%" type="Parameter" version="opset1"><data shape="%SHAPE%" element_type="%T%"/><output><port id="0" precision="%P%">%DIMS%</port></output></layer>)";
    auto p = [&](int id, const std::string& name, const std::string& shape, const std::string& t,
                 const std::string& prec, const std::string& dims) {
        std::string s = param;
        for (auto [key, value] :
             std::vector<std::pair<std::string, std::string>>{{"%ID%", std::to_string(id)},
                                                              {"%NAME%", name},
                                                              {"%SHAPE%", shape},
                                                              {"%T%", t},
                                                              {"%P%", prec},
                                                              {"%DIMS%", dims}})
            s.replace(s.find(key), key.size(), value);
        return s;
    };
    const std::string body =
        "<body><layers>" + p(0, "iter", "", "i64", "I64", "") +
        p(1, "acc", "2", "f32", "FP32", "<dim>2</dim>") +
        R"(<layer id="2" name="cvt" type="Convert" version="opset1"><data destination_type="f32"/><input><port id="0"/></input><output><port id="1" precision="FP32"/></output></layer>
<layer id="3" name="add" type="Add" version="opset1"><input><port id="0"><dim>2</dim></port><port id="1"/></input><output><port id="2" precision="FP32"><dim>2</dim></port></output></layer>
<layer id="4" name="res" type="Result" version="opset1"><input><port id="0"><dim>2</dim></port></input></layer>
<layer id="5" name="lim" type="Const" version="opset1"><data element_type="i64" shape="" offset="0" size="8"/><output><port id="0" precision="I64"/></output></layer>
<layer id="6" name="less" type="Less" version="opset1"><input><port id="0"/><port id="1"/></input><output><port id="2" precision="BOOL"/></output></layer>
<layer id="7" name="cond" type="Result" version="opset1"><input><port id="0"/></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/><edge from-layer="1" from-port="0" to-layer="3" to-port="0"/>
<edge from-layer="2" from-port="1" to-layer="3" to-port="1"/><edge from-layer="3" from-port="2" to-layer="4" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="6" to-port="0"/><edge from-layer="5" from-port="0" to-layer="6" to-port="1"/>
<edge from-layer="6" from-port="2" to-layer="7" to-port="0"/></edges></body>)";
    const std::string xml = R"(<?xml version="1.0"?><net name="ov_loop" version="11"><layers>)" +
                            p(0, "trip", "", "i64", "I64", "") +
                            p(1, "go", "", "boolean", "BOOL", "") +
                            p(2, "x", "2", "f32", "FP32", "<dim>2</dim>") +
                            R"(<layer id="3" name="loop" type="Loop" version="opset5">
<input><port id="0"/><port id="1"/><port id="2"><dim>2</dim></port></input>
<output><port id="3" precision="FP32" names="y"><dim>2</dim></port></output>
<port_map><input external_port_id="2" internal_layer_id="1"/><input external_port_id="-1" internal_layer_id="0" purpose="current_iteration"/>
<output external_port_id="3" internal_layer_id="4"/><output external_port_id="-1" internal_layer_id="7" purpose="execution_condition"/></port_map>
<back_edges><edge from-layer="4" to-layer="1"/></back_edges>)" +
                            body + R"(</layer>
<layer id="4" name="out" type="Result" version="opset1"><input><port id="0"><dim>2</dim></port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="3" to-port="0"/><edge from-layer="1" from-port="0" to-layer="3" to-port="1"/>
<edge from-layer="2" from-port="0" to-layer="3" to-port="2"/><edge from-layer="3" from-port="3" to-layer="4" to-port="0"/></edges></net>)";
    int64_t limit = 5;
    auto model = read_model_from_string(
        xml, bytes_tensor(std::string(reinterpret_cast<const char*>(&limit), 8)));
    const Node* loop = model->output(0).get_node()->input_value(0).get_node();
    ASSERT_EQ(loop->get_type_name(), "Loop");
    EXPECT_EQ(loop->get_attribute<int64_t>("current_iteration_input_idx"), 0);
    EXPECT_EQ(loop->get_attribute<int64_t>("body_condition_output_idx"), 1);
    EXPECT_EQ(loop->get_attribute<std::vector<int64_t>>("input_ports"),
              (std::vector<int64_t>{-1, 2}));
    EXPECT_EQ(loop->get_attribute<std::vector<int64_t>>("back_edges"),
              (std::vector<int64_t>{-1, 0}));
    EXPECT_EQ(loop->get_attribute<std::vector<int64_t>>("output_results"),
              (std::vector<int64_t>{0}));
    EXPECT_TRUE(loop->get_attribute<std::vector<int64_t>>("output_slicing").empty());
    EXPECT_EQ(model->output(0).get_partial_shape().to_string(), "[2]");
    EXPECT_EQ(model->output(0).get_any_name(), "y");
    ASSERT_EQ(loop->get_bodies().size(), 1u);
    EXPECT_EQ(loop->get_bodies()[0]->get_ordered_ops().size(), 8u);

    // A port map naming a layer that is not a Parameter of the body is an error naming both.
    std::string bad = xml;
    bad.replace(bad.find(R"(internal_layer_id="1"/>)"), 23, R"(internal_layer_id="3"/>)");
    try {
        read_model_from_string(bad, bytes_tensor(std::string(8, '\0')));
        ADD_FAILURE() << "a port map to a non-Parameter was accepted";
    } catch (const InvalidArgument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("layer id=3 'loop' (Loop)"), std::string::npos) << what;
        EXPECT_NE(what.find("internal_layer_id 3 is not a Parameter"), std::string::npos) << what;
    }
}
