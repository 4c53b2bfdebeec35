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
    EXPECT_NE(
        xml.find("type=\"" + c.type + "\" version=\"opset" + std::to_string(c.version) + "\""),
        std::string::npos)
        << xml;
    for (const auto& [name, value] : c.attributes)
        EXPECT_NE(xml.find(name + "=\""), std::string::npos) << name;
}

TEST(IrNewOps, UnaryAndBitwiseOpsRoundTrip) {
    const auto f = std::make_pair(element::f32, std::string("2,?"));
    const auto i = std::make_pair(element::i32, std::string("2,3"));
    for (const char* type : {"Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh"})
        expect_round_trip({type, 1, {f}, {}, {}});
    for (const char* type : {"Asinh", "Acosh", "Atanh"}) expect_round_trip({type, 4, {f}, {}, {}});
    expect_round_trip({"Round", 5, {f}, {{"mode", std::string("half_away_from_zero")}}, {}});
    expect_round_trip({"SoftSign", 9, {f}, {}, {}});
    expect_round_trip(
        {"IsInf", 10, {f}, {{"detect_negative", false}, {"detect_positive", true}}, {}});
    expect_round_trip({"IsNaN", 10, {f}, {}, {}});
    expect_round_trip({"IsFinite", 10, {f}, {}, {}});
    expect_round_trip({"Selu", 1, {f, {element::f32, "1"}, {element::f32, ""}}, {}, {}});
    for (const char* type : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
        expect_round_trip(
            {type, 13, {i, {element::i32, "3"}}, {{"auto_broadcast", std::string("numpy")}}, {}});
    expect_round_trip({"BitwiseNot", 13, {i}, {}, {}});
    for (const char* type : {"BitwiseLeftShift", "BitwiseRightShift"})
        expect_round_trip({type, 15, {i, i}, {{"auto_broadcast", std::string("none")}}, {}});
}

TEST(IrNewOps, IndexingSequenceAndNormalizationOpsRoundTrip) {
    const auto f = std::make_pair(element::f32, std::string("2,8,4,?"));
    const auto idx2 = std::make_pair(element::i64, std::string("2,3,1"));
    for (int version : {5, 8})
        expect_round_trip({"GatherND", version, {f, idx2}, {{"batch_dims", int64_t{1}}}, {}});
    expect_round_trip({"ScatterNDUpdate",
                       3,
                       {{element::f32, "4,5"}, {element::i64, "2,1"}, {element::f32, "2,5"}},
                       {},
                       {}});
    const std::vector<std::pair<element::Type, std::string>> scatter{
        {element::f32, "4,5"}, {element::i32, "2,5"}, {element::f32, "2,5"}};
    Tensor axis(element::i64, Shape{});
    *static_cast<int64_t*>(axis.data()) = -1;
    expect_round_trip({"ScatterElementsUpdate", 3, scatter, {}, {axis}});
    expect_round_trip({"ScatterElementsUpdate",
                       12,
                       scatter,
                       {{"reduction", std::string("mean")}, {"use_init_val", false}},
                       {axis}});
    expect_round_trip({"CumSum", 3, {f}, {{"exclusive", true}, {"reverse", true}}, {axis}});
    expect_round_trip({"ReverseSequence",
                       1,
                       {f, {element::i32, "8"}},
                       {{"batch_axis", int64_t{1}}, {"seq_axis", int64_t{0}}},
                       {}});
    for (const char* type : {"DepthToSpace", "SpaceToDepth"})
        expect_round_trip({type,
                           1,
                           {{element::f32, "1,8,4,4"}},
                           {{"block_size", int64_t{2}}, {"mode", std::string("depth_first")}},
                           {}});
    Tensor depth(element::i64, Shape{});
    *static_cast<int64_t*>(depth.data()) = 4;
    Tensor on(element::f32, Shape{}), off(element::f32, Shape{});
    *static_cast<float*>(on.data()) = 1.0f;
    *static_cast<float*>(off.data()) = 0.0f;
    expect_round_trip(
        {"OneHot", 1, {{element::i32, "2,?"}}, {{"axis", int64_t{-1}}}, {depth, on, off}});
    expect_round_trip(
        {"Eye",
         9,
         {{element::i32, ""}, {element::i32, ""}, {element::i32, ""}, {element::i64, "2"}},
         {{"output_type", element::f16}},
         {}});
    expect_round_trip({"Unique",
                       10,
                       {{element::f32, "2,3"}},
                       {{"sorted", false},
                        {"index_element_type", element::i32},
                        {"count_element_type", element::i32}},
                       {axis}});
    Tensor max_boxes(element::i64, Shape{});
    *static_cast<int64_t*>(max_boxes.data()) = 2;
    expect_round_trip({"NonMaxSuppression",
                       9,
                       {{element::f32, "1,5,4"}, {element::f32, "1,2,5"}},
                       {{"box_encoding", std::string("center")},
                        {"sort_result_descending", false},
                        {"output_type", element::i32}},
                       {max_boxes}});
    expect_round_trip({"ROIAlign",
                       9,
                       {{element::f32, "1,3,8,8"}, {element::f32, "2,4"}, {element::i32, "2"}},
                       {{"pooled_h", int64_t{2}},
                        {"pooled_w", int64_t{3}},
                        {"sampling_ratio", int64_t{0}},
                        {"spatial_scale", 0.5},
                        {"mode", std::string("max")},
                        {"aligned_mode", std::string("half_pixel")}},
                       {}});
    expect_round_trip({"GridSample",
                       9,
                       {{element::f32, "1,3,8,8"}, {element::f32, "1,4,4,2"}},
                       {{"align_corners", true},
                        {"mode", std::string("bicubic")},
                        {"padding_mode", std::string("reflection")}},
                       {}});
    expect_round_trip({"NonZero", 3, {{element::f32, "2,3"}}, {{"output_type", element::i32}}, {}});
    Tensor axes(element::i64, Shape{1});
    *static_cast<int64_t*>(axes.data()) = 1;
    expect_round_trip({"LRN",
                       1,
                       {f},
                       {{"alpha", 1e-4}, {"beta", 0.75}, {"bias", 2.0}, {"size", int64_t{3}}},
                       {axes}});
    // Seeds past 32 bits (the ONNX reader's seeded op_seed is 2^32 + the seed's bits).
    expect_round_trip({"RandomUniform",
                       8,
                       {{element::i64, "3"}, {element::f16, ""}, {element::f16, ""}},
                       {{"output_type", element::f16},
                        {"global_seed", int64_t{7}},
                        {"op_seed", (int64_t{1} << 32) + 12345}},
                       {}});
}

}  // namespace

TEST(IrNewOps, RecurrentSequenceOpsRoundTrip) {
    const auto f = element::f32;
    const auto x = std::make_pair(f, std::string("?,?,2"));
    const auto lens = std::make_pair(element::i64, std::string("?"));
    auto state = [f](int dirs) { return std::make_pair(f, "?," + std::to_string(dirs) + ",3"); };
    auto weights = [f](int dirs, int rows, int cols) {
        return std::make_pair(f, std::to_string(dirs) + "," + std::to_string(rows) +
                                     (cols ? "," + std::to_string(cols) : std::string()));
    };
    expect_round_trip({"RNNSequence",
                       5,
                       {x, state(1), lens, weights(1, 3, 2), weights(1, 3, 3), weights(1, 3, 0)},
                       {{"hidden_size", int64_t{3}},
                        {"direction", std::string("reverse")},
                        {"activations", std::vector<std::string>{"leakyrelu"}},
                        {"activations_alpha", std::vector<double>{0.25}},
                        {"activations_beta", std::vector<double>{0.0}},
                        {"clip", 2.5}},
                       {}});
    expect_round_trip({"GRUSequence",
                       5,
                       {x, state(2), lens, weights(2, 9, 2), weights(2, 9, 3), weights(2, 12, 0)},
                       {{"hidden_size", int64_t{3}},
                        {"direction", std::string("bidirectional")},
                        {"activations", std::vector<std::string>{"hardsigmoid", "softsign"}},
                        {"linear_before_reset", true}},
                       {}});
    expect_round_trip({"LSTMSequence",
                       1,
                       {x, state(1), state(1), lens, weights(1, 12, 2), weights(1, 12, 3),
                        weights(1, 12, 0), weights(1, 9, 0)},
                       {{"hidden_size", int64_t{3}},
                        {"direction", std::string("forward")},
                        {"weights_format", std::string("iofc")},
                        {"input_forget", true}},
                       {}});
    expect_round_trip(
        {"LSTMSequence",
         5,
         {x, state(1), state(1), lens, weights(1, 12, 2), weights(1, 12, 3), weights(1, 12, 0)},
         {{"hidden_size", int64_t{3}}, {"direction", std::string("forward")}},
         {}});
}

TEST(IrNewOps, ScaledDotProductAttentionRoundTrips) {
    const auto f = element::f32;
    // Three inputs and the default causal, then a boolean mask and causal set, then a float mask
    // and a scale constant.
    expect_round_trip({"ScaledDotProductAttention",
                       13,
                       {{f, "?,2,?,8"}, {f, "?,2,?,8"}, {f, "?,2,?,4"}},
                       {},
                       {}});
    expect_round_trip({"ScaledDotProductAttention",
                       13,
                       {{f, "1,2,5,8"}, {f, "1,2,6,8"}, {f, "1,2,6,4"}, {element::boolean, "5,6"}},
                       {{"causal", true}},
                       {}});
    Tensor scale(f, Shape{});
    *scale.data<float>() = 0.125f;
    expect_round_trip({"ScaledDotProductAttention",
                       13,
                       {{f, "?,2,?,8"}, {f, "?,2,?,8"}, {f, "?,2,?,4"}, {f, "?,1,?,?"}},
                       {{"causal", false}},
                       {scale}});
}
