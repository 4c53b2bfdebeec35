// Tests that the ops added for the ONNX frontend write to IR and read back as the same graph:
// type, version ("opsetN" of the op version) and every attribute, non-default values included.
#include "ir_test_util.hpp"
#include "vireo/ops.hpp"

using namespace vireo;
using namespace vireo::ir_test;

namespace {

struct OpCase {
    std::string type;
    int version;
    std::vector<std::pair<element::Type, std::string>> inputs;  // parameters: type and shape text
    std::map<std::string, AttrValue> attributes;
    std::vector<Tensor> constants;  // appended after the parameters as Constant inputs
};

void expect_round_trip(const OpCase& c) {
    SCOPED_TRACE(c.type + "-" + std::to_string(c.version));
    ParameterVector params;
    OutputVector args;
    for (const auto& [type, shape] : c.inputs) {
        params.push_back(op::parameter(type, PartialShape::parse(shape)));
        args.push_back(params.back());
    }
    for (const auto& t : c.constants) args.push_back(op::constant(t));
    const NodePtr node = make_node(c.type, args, c.attributes, c.version);
    OutputVector outputs;
    for (size_t i = 0; i < node->get_output_size(); ++i) outputs.push_back(node->output(i));
    auto model = std::make_shared<Model>(outputs, params, "new_op");
    std::string xml;
    auto again = round_trip(*model, &xml);
    expect_same_graph(*model, *again);
    EXPECT_NE(xml.find("type=\"" + c.type + "\" version=\"opset" + std::to_string(c.version) + "\""),
              std::string::npos)
        << xml;
    for (const auto& [name, value] : c.attributes) EXPECT_NE(xml.find(name + "=\""), std::string::npos) << name;
}

TEST(IrNewOps, UnaryAndBitwiseOpsRoundTrip) {
    const auto f = std::make_pair(element::f32, std::string("2,?"));
    const auto i = std::make_pair(element::i32, std::string("2,3"));
    for (const char* type : {"Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh"}) expect_round_trip({type, 1, {f}, {}, {}});
    for (const char* type : {"Asinh", "Acosh", "Atanh"}) expect_round_trip({type, 4, {f}, {}, {}});
    expect_round_trip({"Round", 5, {f}, {{"mode", std::string("half_away_from_zero")}}, {}});
    expect_round_trip({"SoftSign", 9, {f}, {}, {}});
    expect_round_trip({"IsInf", 10, {f}, {{"detect_negative", false}, {"detect_positive", true}}, {}});
    expect_round_trip({"IsNaN", 10, {f}, {}, {}});
    expect_round_trip({"IsFinite", 10, {f}, {}, {}});
    expect_round_trip({"Selu", 1, {f, {element::f32, "1"}, {element::f32, ""}}, {}, {}});
    for (const char* type : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
        expect_round_trip({type, 13, {i, {element::i32, "3"}}, {{"auto_broadcast", std::string("numpy")}}, {}});
    expect_round_trip({"BitwiseNot", 13, {i}, {}, {}});
    for (const char* type : {"BitwiseLeftShift", "BitwiseRightShift"})
        expect_round_trip({type, 15, {i, i}, {{"auto_broadcast", std::string("none")}}, {}});
}

}  // namespace
