// Shape and type inference of the elementwise ops: broadcasting rules (numpy, pdpd, none),
// comparisons and logical ops, Select, Convert and the unary math ops.
#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

struct BroadcastCase {
    std::string a, b, mode, expected;  // expected "" = error
};

class BinaryBroadcast : public ::testing::TestWithParam<BroadcastCase> {};

TEST_P(BinaryBroadcast, InfersShapeOrRejects) {
    const auto& c = GetParam();
    auto a = param(c.a);
    auto b = param(c.b);
    for (const char* type : {"Add", "Subtract", "Multiply", "Divide", "Power", "Maximum", "Minimum",
                             "SquaredDifference"}) {
        SCOPED_TRACE(type);
        if (c.expected.empty()) {
            expect_invalid(
                [&] {
                    make_node(type, {a, b}, {{"auto_broadcast", c.mode}});
                },
                {std::string(type) + " '", "cannot be broadcast", c.mode});
        } else {
            auto node = make_node(type, {a, b}, {{"auto_broadcast", c.mode}});
            EXPECT_EQ(shape_of(node), c.expected);
            EXPECT_EQ(node->get_output_element_type(0), element::f32);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Ops, BinaryBroadcast,
    ::testing::Values(
        // numpy
        BroadcastCase{"2,3", "2,3", "numpy", "[2,3]"}, BroadcastCase{"2,3", "3", "numpy", "[2,3]"},
        BroadcastCase{"2,1,4", "3,1", "numpy", "[2,3,4]"},
        BroadcastCase{"", "4,5", "numpy", "[4,5]"}, BroadcastCase{"?,3", "2,1", "numpy", "[2,3]"},
        BroadcastCase{"?,3", "?,3", "numpy", "[?,3]"},
        BroadcastCase{"1..4,3", "2,3", "numpy", "[2,3]"},
        BroadcastCase{"...", "2,3", "numpy", "[...]"}, BroadcastCase{"2,3", "4,3", "numpy", ""},
        BroadcastCase{"5..8,3", "2,3", "numpy", ""},
        // none: shapes must match exactly (dynamic dims merge)
        BroadcastCase{"2,3", "2,3", "none", "[2,3]"}, BroadcastCase{"?,3", "2,?", "none", "[2,3]"},
        BroadcastCase{"2,3", "3", "none", ""}, BroadcastCase{"2,3", "2,1", "none", ""},
        // pdpd (axis -1): B aligns with A's trailing axes, trailing 1s of B ignored, result has A's
        // shape
        BroadcastCase{"2,3,4,5", "4,5", "pdpd", "[2,3,4,5]"},
        BroadcastCase{"2,3,4,5", "3,1,1", "pdpd", "[2,3,4,5]"},
        BroadcastCase{"2,3,4,5", "1", "pdpd", "[2,3,4,5]"},
        BroadcastCase{"2,?,4,5", "3,4,1", "pdpd", "[2,3,4,5]"},
        BroadcastCase{"4,5", "2,3,4,5", "pdpd", ""}, BroadcastCase{"2,3,4,5", "3,5", "pdpd", ""}));

TEST(Elementwise, MismatchedTypesAreRejectedNamingBothTypes) {
    expect_invalid([] { op::add(param("2", element::f32), param("2", element::i32)); },
                   {"Add '", "same element type", "f32", "i32"});
}

TEST(Elementwise, BooleanArithmeticIsRejected) {
    expect_invalid([] { op::multiply(param("2", element::boolean), param("2", element::boolean)); },
                   {"Multiply '", "boolean"});
}

TEST(Elementwise, DynamicTypeMergesWithStatic) {
    auto node = op::add(param("2", element::dynamic), param("2", element::i32));
    EXPECT_EQ(node->get_output_element_type(0), element::i32);
}

TEST(Elementwise, DivideHasPythondivDefaultTrue) {
    auto node = op::divide(param("2", element::i32), param("2", element::i32));
    EXPECT_TRUE(node->get_attribute<bool>("m_pythondiv"));
    EXPECT_FALSE(make_node("Divide", {param("1"), param("1")}, {{"m_pythondiv", false}})
                     ->get_attribute<bool>("m_pythondiv"));
}

TEST(Elementwise, UnknownAutoBroadcastIsRejected) {
    expect_invalid(
        [] {
            make_node("Add", {param("2"), param("2")},
                      {{"auto_broadcast", std::string("explicit")}});
        },
        {"auto_broadcast", "explicit", "none, numpy, pdpd"});
}

TEST(Comparison, OutputIsBooleanWithBroadcastShape) {
    for (const char* type : {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"}) {
        SCOPED_TRACE(type);
        auto node = make_node(type, {param("4,1", element::i32), param("3", element::i32)});
        EXPECT_EQ(node->get_output_element_type(0), element::boolean);
        EXPECT_EQ(shape_of(node), "[4,3]");
        expect_invalid(
            [&] {
                make_node(type, {param("4"), param("3")});
            },
            {std::string(type) + " '", "[4]", "[3]"});
    }
}

TEST(Logical, BinaryAndNotNeedBooleanInputs) {
    for (const char* type : {"LogicalAnd", "LogicalOr"}) {
        auto node = make_node(type, {param("2,1", element::boolean), param("5", element::boolean)});
        EXPECT_EQ(shape_of(node), "[2,5]");
        EXPECT_EQ(node->get_output_element_type(0), element::boolean);
        expect_invalid(
            [&] {
                make_node(type, {param("2", element::f32), param("2", element::boolean)});
            },
            {std::string(type) + " '", "boolean", "f32"});
    }
    EXPECT_EQ(shape_of(op::logical_not(param("?,3", element::boolean))), "[?,3]");
    expect_invalid([] { op::logical_not(param("3", element::i32)); },
                   {"LogicalNot '", "boolean", "i32"});
}

TEST(Select, BroadcastsAllThreeInputs) {
    auto node = op::select(param("1,4", element::boolean), param("3,1"), param("4"));
    EXPECT_EQ(shape_of(node), "[3,4]");
    EXPECT_EQ(node->get_output_element_type(0), element::f32);
    auto pdpd = op::select(param("3", element::boolean), param("2,3"), param("3"), "pdpd");
    EXPECT_EQ(shape_of(pdpd), "[2,3]");
    expect_invalid([] { op::select(param("2", element::f32), param("2"), param("2")); },
                   {"Select '", "cond", "boolean"});
    expect_invalid(
        [] { op::select(param("2", element::boolean), param("2"), param("2", element::i32)); },
        {"Select '", "f32", "i32"});
}

TEST(Convert, OutputHasDestinationTypeAndInputShape) {
    auto node = op::convert(param("?,2..5"), element::u8);
    EXPECT_EQ(node->get_output_element_type(0), element::u8);
    EXPECT_EQ(shape_of(node), "[?,2..5]");
    expect_invalid([] { make_node("Convert", {param("2")}); },
                   {"Convert '", "destination_type", "missing"});
}

TEST(UnaryMath, KeepsTypeAndShapeAndRejectsBoolean) {
    for (const char* type : {"Abs", "Negative", "Exp", "Log", "Sqrt", "Erf", "Floor", "Ceiling"}) {
        SCOPED_TRACE(type);
        auto node = op::unary(type, param("?,3,1..4", element::f16));
        EXPECT_EQ(shape_of(node), "[?,3,1..4]");
        EXPECT_EQ(node->get_output_element_type(0), element::f16);
        EXPECT_EQ(shape_of(op::unary(type, param("..."))), "[...]");
        expect_invalid([&] { op::unary(type, param("2", element::boolean)); },
                       {std::string(type) + " '", "boolean"});
    }
}

}  // namespace
}  // namespace vireo::test
