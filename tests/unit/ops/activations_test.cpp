// Shape and type inference of the activations and the softmax family.
#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

TEST(Activations, PlainOnesKeepTypeAndShape) {
    const std::vector<std::pair<std::string, int>> ops{{"Relu", 1}, {"Sigmoid", 1},  {"Tanh", 1},
                                                       {"Gelu", 2}, {"Gelu", 7},     {"HSwish", 4},
                                                       {"Mish", 4}, {"SoftPlus", 4}, {"Swish", 4}};
    for (const auto& [type, version] : ops) {
        SCOPED_TRACE(type + "-" + std::to_string(version));
        for (const char* shape : {"2,3,4", "?,1..5", "...", ""}) {
            auto node = make_node(type, {param(shape, element::f16)}, {}, version);
            EXPECT_EQ(node->get_output_partial_shape(0), PartialShape::parse(shape));
            EXPECT_EQ(node->get_output_element_type(0), element::f16);
        }
    }
}

TEST(Activations, RejectBooleanOrIntegerWhereTheSpecSaysFloat) {
    expect_invalid([] { op::relu(param("2", element::boolean)); }, {"Relu '", "boolean"});
    expect_invalid([] { op::gelu(param("2", element::i32)); }, {"Gelu '", "floating-point", "i32"});
    expect_invalid([] { make_node("Mish", {param("2", element::i64)}); }, {"Mish '", "i64"});
    // Relu, Sigmoid and Tanh accept integers.
    EXPECT_EQ(op::relu(param("2", element::i32))->get_output_element_type(0), element::i32);
}

TEST(Activations, EveryFloatOnlyActivationNamesTheNodeOnIntegerInput) {
    const std::vector<std::pair<std::string, int>> ops{{"Elu", 1},    {"Gelu", 2}, {"Gelu", 7},
                                                       {"HSwish", 4}, {"Mish", 4}, {"SoftPlus", 4},
                                                       {"Swish", 4}};
    for (const auto& [type, version] : ops) {
        SCOPED_TRACE(type);
        std::map<std::string, AttrValue> attrs;
        if (type == "Elu") attrs["alpha"] = 1.0;
        expect_invalid([&] { make_node(type, {param("2,3", element::i32)}, attrs, version); },
                       {type + " '", "floating-point", "i32"});
    }
    for (const char* type : {"Sigmoid", "Tanh"})
        expect_invalid([&] { make_node(type, {param("2", element::boolean)}); },
                       {std::string(type) + " '", "boolean"});
}

TEST(Activations, ReluAliasResolvesToRelu) {
    const OpDef& def = OpRegistry::instance().resolve("ReLU", "opset1");
    EXPECT_EQ(def.type, "Relu");
}

TEST(Clamp, NeedsMinAndMaxInOrder) {
    auto node = op::clamp(param("?,4"), -1.0, 6.0);
    EXPECT_EQ(shape_of(node), "[?,4]");
    EXPECT_DOUBLE_EQ(node->get_attribute<double>("min"), -1.0);
    expect_invalid([] { op::clamp(param("2"), 2.0, 1.0); }, {"Clamp '", "'min' (2)", "'max' (1)"});
    expect_invalid(
        [] {
            make_node("Clamp", {param("2")}, {{"min", 0.0}});
        },
        {"Clamp '", "'max'", "missing"});
}

TEST(Elu, AlphaIsRequired) {
    EXPECT_DOUBLE_EQ(op::elu(param("3"), 0.5)->get_attribute<double>("alpha"), 0.5);
    expect_invalid([] { make_node("Elu", {param("2")}); }, {"Elu '", "alpha"});
}

TEST(Gelu, Version7ApproximationModeDefaultsToErfAndIsChecked) {
    auto node = make_node("Gelu", {param("2")}, {}, 7);
    EXPECT_EQ(node->get_attribute<std::string>("approximation_mode"), "erf");
    EXPECT_EQ(op::gelu(param("2"), "tanh")->get_attribute<std::string>("approximation_mode"),
              "tanh");
    expect_invalid([] { op::gelu(param("2"), "fast"); },
                   {"Gelu '", "approximation_mode", "fast", "erf, tanh"});
    EXPECT_TRUE(make_node("Gelu", {param("2")}, {}, 2)->get_attributes().empty());
}

TEST(Swish, OptionalBetaMustBeAScalarOfTheSameType) {
    EXPECT_EQ(shape_of(op::swish(param("2,3"), op::constant<float>(element::f32, Shape{}, {1.5f}))),
              "[2,3]");
    EXPECT_EQ(shape_of(op::swish(param("2,3"))), "[2,3]");
    expect_invalid([] { op::swish(param("2,3"), param("3")); },
                   {"Swish '", "beta", "scalar", "[3]"});
    expect_invalid([] { op::swish(param("2,3"), param("", element::f16)); },
                   {"Swish '", "f32", "f16"});
}

TEST(PRelu, SlopeIsPerChannelOrBroadcast) {
    EXPECT_EQ(shape_of(op::prelu(param("1,3,5,5"), param("3"))), "[1,3,5,5]");
    EXPECT_EQ(shape_of(op::prelu(param("?,3,5,5"), param("1"))), "[?,3,5,5]");
    EXPECT_EQ(shape_of(op::prelu(param("2,3,4"), param("3,1"))), "[2,3,4]");
    expect_invalid([] { op::prelu(param("1,3,5,6"), param("4")); },
                   {"PRelu '", "[4]", "[1,3,5,6]"});
    expect_invalid([] { op::prelu(param("1,3"), param("3", element::f16)); },
                   {"PRelu '", "f32", "f16"});
}

struct SoftmaxCase {
    std::string type;
    int version;
    int64_t axis;
    std::string shape;
    bool ok;
};

class SoftmaxAxes : public ::testing::TestWithParam<SoftmaxCase> {};

TEST_P(SoftmaxAxes, ChecksTheAxisAgainstTheRank) {
    const auto& c = GetParam();
    auto make = [&] { return make_node(c.type, {param(c.shape)}, {{"axis", c.axis}}, c.version); };
    if (c.ok) {
        EXPECT_EQ(make()->get_output_partial_shape(0), PartialShape::parse(c.shape));
    } else {
        expect_invalid([&] { make(); }, {c.type + " '", "axis", std::to_string(c.axis)});
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, SoftmaxAxes,
                         ::testing::Values(SoftmaxCase{"Softmax", 1, 1, "2,3", true},
                                           SoftmaxCase{"Softmax", 1, 0, "?,3", true},
                                           SoftmaxCase{"Softmax", 1, -1, "2,3", false},
                                           SoftmaxCase{"Softmax", 1, 2, "2,3", false},
                                           SoftmaxCase{"Softmax", 1, 5, "...", true},
                                           SoftmaxCase{"Softmax", 8, -1, "2,3", true},
                                           SoftmaxCase{"Softmax", 8, -2, "2,3", true},
                                           SoftmaxCase{"Softmax", 8, -3, "2,3", false},
                                           SoftmaxCase{"LogSoftmax", 5, -1, "4,?,2", true},
                                           SoftmaxCase{"LogSoftmax", 5, 3, "4,?,2", false}));

TEST(Softmax, DefaultsAndAliasAndTypes) {
    EXPECT_EQ(make_node("Softmax", {param("2,3")}, {}, 1)->get_attribute<int64_t>("axis"), 1);
    EXPECT_EQ(op::softmax(param("2,3"), -1)->get_version(), 8);
    EXPECT_EQ(OpRegistry::instance().resolve("SoftMax", "opset1").version, 1);
    EXPECT_EQ(OpRegistry::instance().resolve("SoftMax", "opset8").version, 8);
    expect_invalid([] { op::softmax(param("2,3", element::i32)); }, {"Softmax '", "i32"});
}

}  // namespace
}  // namespace vireo::test
