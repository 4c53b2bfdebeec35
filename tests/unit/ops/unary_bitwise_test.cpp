// Shape and type inference of the unary ops added for the ONNX frontend (trigonometric and
// hyperbolic functions, Round, SoftSign, Selu, IsInf/IsNaN/IsFinite) and of the bitwise ops.
#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

TEST(UnaryExtra, TrigonometricOpsKeepTypeAndShapeAtTheirVersions) {
    const std::vector<std::pair<const char*, int>> ops{
        {"Tan", 1},   {"Asin", 1},  {"Acos", 1},  {"Atan", 1}, {"Sinh", 1}, {"Cosh", 1},
        {"Asinh", 4}, {"Acosh", 4}, {"Atanh", 4}, {"Sign", 1}, {"Sin", 1},  {"Cos", 1}};
    for (const auto& [type, version] : ops) {
        SCOPED_TRACE(type);
        EXPECT_NE(OpRegistry::instance().find(type, version), nullptr);
        EXPECT_EQ(&OpRegistry::instance().resolve(type, "opset15"),
                  OpRegistry::instance().find(type, version));
        auto node = make_node(type, {param("?,3,1..4", element::f16)});
        EXPECT_EQ(shape_of(node), "[?,3,1..4]");
        EXPECT_EQ(node->get_output_element_type(0), element::f16);
        EXPECT_EQ(make_node(type, {param("2", element::i32)})->get_output_element_type(0),
                  element::i32);
        EXPECT_EQ(shape_of(make_node(type, {param("...")})), "[...]");
        expect_invalid([&] { make_node(type, {param("2", element::boolean)}); },
                       {std::string(type) + " '", "boolean"});
    }
    // Asinh-4 does not exist in opset 3.
    EXPECT_THROW(OpRegistry::instance().resolve("Asinh", "opset3"), NotFound);
}

TEST(UnaryExtra, RoundModeDefaultsToHalfToEvenAndIsChecked) {
    auto node = make_node("Round", {param("2,?", element::f32)});
    EXPECT_EQ(node->get_attribute<std::string>("mode"), "half_to_even");
    EXPECT_EQ(shape_of(node), "[2,?]");
    EXPECT_EQ(OpRegistry::instance().latest("Round").version, 5);
    auto away = make_node("Round", {param("3", element::i64)},
                          {{"mode", std::string("half_away_from_zero")}});
    EXPECT_EQ(away->get_output_element_type(0), element::i64);
    expect_invalid(
        [] {
            make_node("Round", {param("2")}, {{"mode", std::string("half_up")}});
        },
        {"Round '", "mode", "half_up"});
}

TEST(UnaryExtra, ClassTestsGiveBooleanAndNeedReals) {
    for (const char* type : {"IsInf", "IsNaN", "IsFinite"}) {
        SCOPED_TRACE(type);
        EXPECT_EQ(OpRegistry::instance().latest(type).version, 10);
        auto node = make_node(type, {param("?,2", element::bf16)});
        EXPECT_EQ(node->get_output_element_type(0), element::boolean);
        EXPECT_EQ(shape_of(node), "[?,2]");
        expect_invalid([&] { make_node(type, {param("2", element::i32)}); },
                       {std::string(type) + " '", "i32"});
    }
    auto inf = make_node("IsInf", {param("1")});
    EXPECT_TRUE(inf->get_attribute<bool>("detect_negative"));
    EXPECT_TRUE(inf->get_attribute<bool>("detect_positive"));
}

TEST(UnaryExtra, SoftSignAndSeluNeedReals) {
    EXPECT_EQ(OpRegistry::instance().latest("SoftSign").version, 9);
    EXPECT_EQ(shape_of(make_node("SoftSign", {param("4,?")})), "[4,?]");
    expect_invalid([] { make_node("SoftSign", {param("2", element::i32)}); },
                   {"SoftSign '", "i32"});

    auto selu = make_node(
        "Selu", {param("2,3", element::f16), param("1", element::f16), param("", element::f16)});
    EXPECT_EQ(shape_of(selu), "[2,3]");
    EXPECT_EQ(selu->get_output_element_type(0), element::f16);
    expect_invalid(
        [] {
            make_node("Selu", {param("2"), param("2"), param("1")});
        },
        {"Selu '", "alpha", "[2]"});
    expect_invalid(
        [] {
            make_node("Selu", {param("2"), param("1"), param("1", element::f16)});
        },
        {"Selu '", "f32", "f16"});
    expect_invalid(
        [] {
            make_node("Selu", {param("2", element::i32), param("1", element::i32),
                               param("1", element::i32)});
        },
        {"Selu '", "floating-point"});
}

TEST(Bitwise, BinaryOpsBroadcastIntegersAndBooleans) {
    for (const char* type : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) {
        SCOPED_TRACE(type);
        EXPECT_EQ(OpRegistry::instance().latest(type).version, 13);
        auto node = make_node(type, {param("4,1", element::u8), param("3", element::u8)});
        EXPECT_EQ(shape_of(node), "[4,3]");
        EXPECT_EQ(node->get_output_element_type(0), element::u8);
        EXPECT_EQ(make_node(type, {param("2", element::boolean), param("2", element::boolean)})
                      ->get_output_element_type(0),
                  element::boolean);
        expect_invalid(
            [&] {
                make_node(type, {param("2"), param("2")});
            },
            {std::string(type) + " '", "f32"});
        expect_invalid(
            [&] {
                make_node(type, {param("2", element::i32), param("2", element::i64)});
            },
            {std::string(type) + " '", "i32", "i64"});
    }
    EXPECT_EQ(shape_of(make_node("BitwiseNot", {param("?,2", element::i16)})), "[?,2]");
    expect_invalid([] { make_node("BitwiseNot", {param("2", element::f16)}); },
                   {"BitwiseNot '", "f16"});
}

TEST(Bitwise, ShiftsTakeIntegersOnly) {
    for (const char* type : {"BitwiseLeftShift", "BitwiseRightShift"}) {
        SCOPED_TRACE(type);
        EXPECT_EQ(OpRegistry::instance().latest(type).version, 15);
        EXPECT_THROW(OpRegistry::instance().resolve(type, "opset14"), NotFound);
        auto node = make_node(type, {param("2,?", element::i32), param("1", element::i32)});
        EXPECT_EQ(shape_of(node), "[2,?]");
        expect_invalid(
            [&] {
                make_node(type, {param("2", element::boolean), param("2", element::boolean)});
            },
            {std::string(type) + " '", "boolean"});
        expect_invalid(
            [&] {
                make_node(type, {param("2", element::i32), param("3", element::i32)},
                          {{"auto_broadcast", std::string("none")}});
            },
            {std::string(type) + " '", "[2]", "[3]"});
    }
}

}  // namespace
}  // namespace vireo::test
