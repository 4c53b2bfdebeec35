// Shape inference of ShapeOf-1/3, Range-1/4, Broadcast-1/3, Tile-1, Pad-1/12 and RandomUniform-8;
// Constants built from reals.
#include <cmath>
#include <limits>

#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

NodePtr f32_scalar(float v) {
    return op::constant<float>(element::f32, Shape{}, {v});
}
NodePtr i32_scalar(int64_t v) {
    return op::constant<int64_t>(element::i32, Shape{}, {v});
}

TEST(ShapeOf, OneDimensionalOfTheRank) {
    auto node = op::shape_of(param("2,?,3"));
    EXPECT_EQ(shape_of(node), "[3]");
    EXPECT_EQ(node->get_output_element_type(0), element::i64);
    EXPECT_EQ(op::shape_of(param("2"), element::i32)->get_output_element_type(0), element::i32);
    EXPECT_EQ(shape_of(op::shape_of(param("..."))), "[?]");
    EXPECT_EQ(shape_of(op::shape_of(param(""))), "[0]");
    auto v1 = make_node("ShapeOf", {param("4,4")}, {}, 1);
    EXPECT_EQ(v1->get_output_element_type(0), element::i64);
    EXPECT_FALSE(v1->has_attribute("output_type"));
    expect_invalid([] { op::shape_of(param("2"), element::f32); },
                   {"ShapeOf '", "output_type", "f32"});
}

TEST(Range, LengthIsCeilOfSpanOverStep) {
    EXPECT_EQ(shape_of(op::range(i64_scalar(0), i64_scalar(10), i64_scalar(3), element::i64)),
              "[4]");
    EXPECT_EQ(shape_of(op::range(i64_scalar(10), i64_scalar(0), i64_scalar(-2), element::i32)),
              "[5]");
    EXPECT_EQ(shape_of(op::range(i64_scalar(5), i64_scalar(0), i64_scalar(1), element::i64)),
              "[0]");
    // f32 output: ceil((2.0 - 0.5) / 0.5) = 3
    auto real = op::range(f32_scalar(0.5f), f32_scalar(2.0f), f32_scalar(0.5f), element::f32);
    EXPECT_EQ(shape_of(real), "[3]");
    EXPECT_EQ(real->get_output_element_type(0), element::f32);
    // Integral output truncates the bounds first: 0 .. 2 by 1 = 2 (a real range would have 3).
    EXPECT_EQ(
        shape_of(op::range(f32_scalar(0.5f), f32_scalar(2.7f), f32_scalar(1.0f), element::i32)),
        "[2]");
    EXPECT_EQ(
        shape_of(op::range(f32_scalar(0.5f), f32_scalar(2.7f), f32_scalar(1.0f), element::f32)),
        "[3]");
    EXPECT_EQ(
        shape_of(op::range(i64_scalar(0), param("", element::i64), i64_scalar(1), element::i64)),
        "[?]");
}

TEST(Range, Version1TakesItsTypeFromTheInputs) {
    auto node = make_node("Range", {i32_scalar(0), i32_scalar(6), i32_scalar(2)}, {}, 1);
    EXPECT_EQ(shape_of(node), "[3]");
    EXPECT_EQ(node->get_output_element_type(0), element::i32);
    expect_invalid(
        [] {
            make_node("Range", {i32_scalar(0), i64_scalar(6), i32_scalar(2)}, {}, 1);
        },
        {"Range '", "i32", "i64"});
}

TEST(Range, Errors) {
    expect_invalid([] { op::range(i64_scalar(0), i64_scalar(10), i64_scalar(0), element::i64); },
                   {"Range '", "step must not be 0"});
    expect_invalid(
        [] {
            op::range(i64({0, 1}), i64_scalar(10), i64_scalar(1), element::i64);
        },
        {"Range '", "start", "rank 0", "[2]"});
    expect_invalid(
        [] { op::range(i64_scalar(0), i64_scalar(10), i64_scalar(1), element::boolean); },
        {"Range '", "output_type", "boolean"});
}

TEST(Broadcast, ModesGiveTheirShapes) {
    EXPECT_EQ(shape_of(op::broadcast(param("3,1"), i64({2, 3, 4}))), "[2,3,4]");
    EXPECT_EQ(shape_of(op::broadcast(param("3,1"), i64({2, 1, 4}), "bidirectional")), "[2,3,4]");
    EXPECT_EQ(shape_of(op::broadcast(param("3"), i64({2, 3}), "explicit", i64({1}))), "[2,3]");
    // The target's values are unknown, but a non-1 data dimension must appear in it.
    EXPECT_EQ(shape_of(op::broadcast(param("3"), param("3", element::i64))), "[?,?,3]");
    EXPECT_EQ(shape_of(op::broadcast(param("1"), param("3", element::i64))), "[?,?,?]");
    EXPECT_EQ(shape_of(op::broadcast(param("3"), param("?", element::i64))), "[...]");
    EXPECT_EQ(shape_of(op::broadcast(param("?,4"), i64({2, 1, 4}))), "[2,1,4]");
    EXPECT_EQ(shape_of(make_node("Broadcast", {param("1"), i64({5})}, {}, 1)), "[5]");
    EXPECT_EQ(
        make_node("Broadcast", {param("1"), i64({5})}, {}, 1)->get_attribute<std::string>("mode"),
        "numpy");
}

TEST(Broadcast, Errors) {
    expect_invalid([] { op::broadcast(param("3"), i64({4})); }, {"Broadcast '", "[3]", "[4]"});
    expect_invalid([] { op::broadcast(param("2,3"), i64({3})); }, {"Broadcast '", "higher rank"});
    expect_invalid(
        [] {
            op::broadcast(param("3"), i64({2, 3}), "explicit");
        },
        {"Broadcast '", "axes_mapping"});
    expect_invalid(
        [] {
            op::broadcast(param("3"), i64({2, 3}), "explicit", i64({0}));
        },
        {"Broadcast '", "axis 0", "[2,3]"});
    expect_invalid(
        [] {
            make_node("Broadcast", {param("3"), i64({3})}, {{"mode", std::string("bidirectional")}},
                      1);
        },
        {"Broadcast '", "mode", "bidirectional"});
    expect_invalid([] { op::broadcast(param("3"), i64({-2})); },
                   {"Broadcast '", "target_shape", "non-negative"});
}

TEST(Tile, MultipliesAlignedFromTheRight) {
    EXPECT_EQ(shape_of(op::tile(param("2,3"), i64({2, 2}))), "[4,6]");
    EXPECT_EQ(shape_of(op::tile(param("2,3"), i64({3}))), "[2,9]");
    EXPECT_EQ(shape_of(op::tile(param("2,3"), i64({2, 1, 1}))), "[2,2,3]");
    EXPECT_EQ(shape_of(op::tile(param("1..2,3"), i64({2, 2}))), "[2..4,6]");
    EXPECT_EQ(shape_of(op::tile(param("?,3"), i64({2, 0}))), "[?,0]");
    EXPECT_EQ(shape_of(op::tile(param("2,3"), param("3", element::i64))), "[?,?,?]");
    expect_invalid(
        [] {
            op::tile(param("2,3"), i64({-1, 2}));
        },
        {"Tile '", "[-1,2]", "non-negative"});
}

TEST(Pad, AddsOrCropsPerAxis) {
    EXPECT_EQ(shape_of(op::pad(param("2,3"), i64({1, 0}), i64({0, 2}))), "[3,5]");
    EXPECT_EQ(shape_of(op::pad(param("2,3"), i64({-1, 0}), i64({0, -1}), "edge")), "[1,2]");
    EXPECT_EQ(shape_of(op::pad(param("?,3"), i64({1, 1}), i64({1, 1}), "reflect")), "[2..,5]");
    EXPECT_EQ(shape_of(op::pad(param("2,3"), param("2", element::i64), i64({1, 1}))), "[?,?]");
    EXPECT_EQ(shape_of(op::pad(param("..."), i64({1, 1}), i64({1, 1}))), "[?,?]");
    EXPECT_EQ(
        shape_of(op::pad(param("2,3"), i64({1, 1}), i64({1, 1}), "constant", f32_scalar(0.f))),
        "[4,5]");
    auto v1 = make_node("Pad", {param("2,3"), i64({1, 1}), i64({0, 0})},
                        {{"pad_mode", std::string("symmetric")}}, 1);
    EXPECT_EQ(shape_of(v1), "[3,4]");
}

TEST(Pad, Errors) {
    expect_invalid(
        [] {
            make_node("Pad", {param("2,3"), i64({-1, 0}), i64({0, 0})},
                      {{"pad_mode", std::string("constant")}}, 1);
        },
        {"Pad '", "non-negative", "Pad-12"});
    expect_invalid([] { op::pad(param("2,3"), i64({1}), i64({0, 0})); }, {"Pad '", "[1]", "[2,3]"});
    expect_invalid(
        [] {
            op::pad(param("2,3"), i64({-3, 0}), i64({0, 0}));
        },
        {"Pad '", "remove more than", "axis 0"});
    expect_invalid(
        [] {
            op::pad(param("2,3"), i64({1, 1}), i64({1, 1}), "edge", f32_scalar(0.f));
        },
        {"Pad '", "pad_value", "constant"});
    expect_invalid(
        [] {
            make_node("Pad", {param("2,3"), i64({1, 1}), i64({1, 1})});
        },
        {"Pad '", "pad_mode", "missing"});
    expect_invalid(
        [] {
            op::pad(param("2,3"), i64({1, 1}), i64({1, 1}), "wrap");
        },
        {"Pad '", "pad_mode", "wrap"});
}

// A real value outside an integer type's range saturates instead of being cast (undefined): the
// ONNX Clip-6 translator builds bounds of -inf/+inf in the input's type, which a fuzzed model made
// int8.
TEST(Constant, RealValuesSaturateIntoIntegerTypes) {
    const double inf = std::numeric_limits<double>::infinity();
    auto i8 = op::detail::constant_from_doubles(element::i8, Shape{5},
                                                {-inf, inf, std::nan(""), -3.7, 1e300});
    const auto* p = i8->get_constant_value().data<int8_t>();
    EXPECT_EQ(p[0], -128);
    EXPECT_EQ(p[1], 127);
    EXPECT_EQ(p[2], 0);
    EXPECT_EQ(p[3], -3);
    EXPECT_EQ(p[4], 127);
    auto u64 = op::detail::constant_from_doubles(element::u64, Shape{2}, {-1.0, inf});
    EXPECT_EQ(u64->get_constant_value().data<uint64_t>()[0], 0u);
    EXPECT_EQ(u64->get_constant_value().data<uint64_t>()[1], std::numeric_limits<uint64_t>::max());
}

TEST(RandomUniform, ShapeFromTheShapeInputTypeFromOutputType) {
    auto node = op::random_uniform(i64({2, 3}), f32_scalar(0.f), f32_scalar(1.f), element::f32);
    EXPECT_EQ(shape_of(node), "[2,3]");
    EXPECT_EQ(node->get_output_element_type(0), element::f32);
    auto i32_shape =
        op::random_uniform(i32({4}), i32_scalar(-5), i32_scalar(5), element::i32, 1, 2);
    EXPECT_EQ(shape_of(i32_shape), "[4]");
    EXPECT_EQ(i32_shape->get_output_element_type(0), element::i32);
    // A run-time shape of static length 2 gives rank 2; an empty shape a scalar.
    EXPECT_EQ(shape_of(op::random_uniform(param("2", element::i64), f32_scalar(0.f),
                                          f32_scalar(1.f), element::f32)),
              "[?,?]");
    EXPECT_EQ(shape_of(op::random_uniform(i64({}), f32_scalar(0.f), f32_scalar(1.f), element::f32)),
              "[]");
}

TEST(RandomUniform, RefusesMismatchedBoundsAndNegativeSeeds) {
    expect_invalid(
        [] { op::random_uniform(i64({2}), i32_scalar(0), f32_scalar(1.f), element::f32); },
        {"RandomUniform '", "input 1 (min)", "f32", "i32"});
    expect_invalid(
        [] { op::random_uniform(i64({2}), f32_scalar(1.f), f32_scalar(1.f), element::f32); },
        {"RandomUniform '", "min (1) must be less than max (1)"});
    expect_invalid(
        [] { op::random_uniform(i64({2}), f32_scalar(0.f), f32_scalar(1.f), element::f32, -1, 0); },
        {"RandomUniform '", "global_seed must be non-negative"});
    expect_invalid(
        [] {
            op::random_uniform(i64({2}), op::constant<int64_t>(element::boolean, Shape{}, {0}),
                               op::constant<int64_t>(element::boolean, Shape{}, {1}),
                               element::boolean);
        },
        {"RandomUniform '", "output_type must be f16, bf16, f32, f64, i32 or i64"});
    expect_invalid(
        [] { op::random_uniform(f32_scalar(2.f), f32_scalar(0.f), f32_scalar(1.f), element::f32); },
        {"RandomUniform '", "shape"});
}

}  // namespace
}  // namespace vireo::test
