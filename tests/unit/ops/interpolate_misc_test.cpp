// Shape inference of Interpolate-4/11, TopK-1/3/11, FakeQuantize-1 and the state ops
// ReadValue-3/6 and Assign-3/6.
#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

NodePtr f32s(const std::vector<float>& v) {
    return op::constant<float>(element::f32, Shape{v.size()}, v);
}

op::InterpolateAttrs attrs(const std::string& calc, std::vector<int64_t> pads_begin = {0},
                           std::vector<int64_t> pads_end = {0}) {
    op::InterpolateAttrs a;
    a.mode = "linear";
    a.shape_calculation_mode = calc;
    a.pads_begin = std::move(pads_begin);
    a.pads_end = std::move(pads_end);
    return a;
}

TEST(Interpolate, Version11SizesAndScales) {
    auto x = param("1,3,10,20");
    EXPECT_EQ(shape_of(op::interpolate(x, i64({20, 40}), attrs("sizes"), i64({2, 3}))),
              "[1,3,20,40]");
    EXPECT_EQ(shape_of(op::interpolate(x, f32s({2.f, 0.5f}), attrs("scales"), i64({2, 3}))),
              "[1,3,20,10]");
    EXPECT_EQ(shape_of(op::interpolate(x, i64({1, 3, 5, 5}), attrs("sizes"))), "[1,3,5,5]");
    // floor(9 * 0.333333 + 1e-5) = 3, not 2
    EXPECT_EQ(
        shape_of(op::interpolate(param("1,1,9,9"), f32s({0.333333f}), attrs("scales"), i64({-1}))),
        "[1,1,9,3]");
    // Pads grow the data first: (10 + 1 + 1) * 0.5 = 6
    EXPECT_EQ(shape_of(op::interpolate(x, f32s({0.5f, 0.5f}),
                                       attrs("scales", {0, 0, 1, 1}, {0, 0, 1, 1}), i64({2, 3}))),
              "[1,3,6,11]");
    EXPECT_EQ(shape_of(op::interpolate(x, i64({5}), attrs("sizes", {0, 1}, {0, 1}), i64({2}))),
              "[1,5,5,20]");
}

TEST(Interpolate, DynamicAndUnknownInputs) {
    EXPECT_EQ(
        shape_of(op::interpolate(param("?,3,?,?"), f32s({2.f, 2.f}), attrs("scales"), i64({2, 3}))),
        "[?,3,?,?]");
    EXPECT_EQ(shape_of(op::interpolate(param("1,3,10..20,8"), f32s({2.f, 2.f}), attrs("scales"),
                                       i64({2, 3}))),
              "[1,3,20..40,16]");
    EXPECT_EQ(shape_of(op::interpolate(param("1,3,8,8"), param("2", element::i64), attrs("sizes"),
                                       i64({2, 3}))),
              "[1,3,?,?]");
    EXPECT_EQ(shape_of(op::interpolate(param("1,3,8,8"), i64({4, 4}), attrs("sizes"),
                                       param("2", element::i64))),
              "[?,?,?,?]");
    EXPECT_EQ(shape_of(op::interpolate(param("..."), i64({4, 4}), attrs("sizes"), i64({2, 3}))),
              "[...]");
}

TEST(Interpolate, RoiExtensionThroughTheBuilder) {
    // The roi is a 4th input only when given (the extension's attributes keep their defaults
    // otherwise); a roi without axes is refused, since the inputs are positional.
    auto x = param("1,1,8,8");
    op::InterpolateAttrs a = attrs("sizes");
    auto plain = op::interpolate(x, i64({4, 4}), a, i64({2, 3}));
    EXPECT_EQ(plain->get_input_size(), 3u);
    EXPECT_DOUBLE_EQ(plain->get_attribute<double>("extrapolation_value"), 0.0);
    EXPECT_FALSE(plain->get_attribute<bool>("exclude_outside"));
    a.exclude_outside = true;
    a.extrapolation_value = 7.5;
    auto crop = op::interpolate(x, i64({4, 4}), a, i64({2, 3}), f32s({0.f, 0.f, 0.5f, 0.5f}));
    EXPECT_EQ(crop->get_input_size(), 4u);
    EXPECT_EQ(shape_of(crop), "[1,1,4,4]");
    EXPECT_DOUBLE_EQ(crop->get_attribute<double>("extrapolation_value"), 7.5);
    EXPECT_TRUE(crop->get_attribute<bool>("exclude_outside"));
    EXPECT_THROW(op::interpolate(x, i64({4, 4}), a, Output(), f32s({0.f, 0.f, 1.f, 1.f})),
                 InvalidArgument);
}

TEST(Interpolate, Version4UsesSizesOrScalesInputByMode) {
    op::InterpolateAttrs a = attrs("scales");
    std::map<std::string, AttrValue> attr_map{{"mode", a.mode},
                                              {"shape_calculation_mode", std::string("scales")}};
    auto scales = make_node(
        "Interpolate", {param("1,3,8,8"), i64({1, 1}), f32s({2.f, 3.f}), i64({2, 3})}, attr_map, 4);
    EXPECT_EQ(shape_of(scales), "[1,3,16,24]");
    attr_map["shape_calculation_mode"] = std::string("sizes");
    auto sizes = make_node(
        "Interpolate", {param("1,3,8,8"), i64({5, 7}), f32s({2.f, 3.f}), i64({2, 3})}, attr_map, 4);
    EXPECT_EQ(shape_of(sizes), "[1,3,5,7]");
    EXPECT_EQ(sizes->get_attribute<std::string>("coordinate_transformation_mode"), "half_pixel");
    EXPECT_EQ(sizes->get_attribute<std::string>("nearest_mode"), "round_prefer_floor");
    EXPECT_FALSE(sizes->get_attribute<bool>("antialias"));
    EXPECT_DOUBLE_EQ(sizes->get_attribute<double>("cube_coeff"), -0.75);
    EXPECT_EQ(sizes->get_attribute<std::vector<int64_t>>("pads_begin"), (std::vector<int64_t>{0}));
    // bilinear_pillow exists only in version 11.
    attr_map["mode"] = std::string("bilinear_pillow");
    expect_invalid(
        [&] {
            make_node("Interpolate", {param("1,3,8,8"), i64({5, 7}), f32s({2.f, 3.f})}, attr_map,
                      4);
        },
        {"Interpolate '", "bilinear_pillow"});
}

TEST(Interpolate, Errors) {
    expect_invalid(
        [] {
            op::interpolate(param("1,3,8,8"), i64({4, 4, 4}), attrs("sizes"), i64({2, 3}));
        },
        {"Interpolate '", "sizes", "[3]", "2 axes"});
    expect_invalid(
        [] {
            op::interpolate(param("1,3,8,8"), i64({2, 2}), attrs("scales"), i64({2, 3}));
        },
        {"Interpolate '", "scales", "floating-point"});
    expect_invalid(
        [] {
            op::interpolate(param("1,3,8,8"), i64({2, 2}), attrs("sizes"), i64({2, 4}));
        },
        {"Interpolate '", "axes 4"});
    auto bad = attrs("sizes");
    bad.mode = "area";
    expect_invalid(
        [&] {
            op::interpolate(param("1,3,8,8"), i64({2, 2}), bad, i64({2, 3}));
        },
        {"Interpolate '", "mode", "area"});
}

TEST(TopK, BothOutputsHaveKAlongTheAxis) {
    auto node = op::topk(param("5,10"), i64_scalar(3), 1, "max", "value");
    ASSERT_EQ(node->get_output_size(), 2u);
    EXPECT_EQ(shape_of(node, 0), "[5,3]");
    EXPECT_EQ(shape_of(node, 1), "[5,3]");
    EXPECT_EQ(node->get_output_element_type(0), element::f32);
    EXPECT_EQ(node->get_output_element_type(1), element::i32);
    EXPECT_EQ(shape_of(op::topk(param("5,10"), i64_scalar(20), -1, "min", "index", element::i64)),
              "[5,10]");
    EXPECT_EQ(op::topk(param("5,10"), i64_scalar(2), 0, "min", "none", element::i64)
                  ->get_output_element_type(1),
              element::i64);
    EXPECT_EQ(shape_of(op::topk(param("5,?"), i64_scalar(3), 1, "max", "value")), "[5,..3]");
    EXPECT_EQ(shape_of(op::topk(param("5,10"), param("", element::i64), 1, "max", "value")),
              "[5,..10]");
    for (int version : {1, 3, 11}) {
        auto n = make_node(
            "TopK", {param("4,6"), op::constant<int64_t>(element::i32, Shape{}, {2})},
            {{"axis", int64_t{0}}, {"mode", std::string("max")}, {"sort", std::string("value")}},
            version);
        EXPECT_EQ(shape_of(n, 1), "[2,6]");
        EXPECT_EQ(n->get_output_element_type(1), element::i32);
        EXPECT_EQ(n->has_attribute("stable"), version == 11);
    }
}

TEST(TopK, Errors) {
    expect_invalid([] { op::topk(param("5,10"), i64_scalar(-1), 1, "max", "value"); },
                   {"TopK '", "k", "-1"});
    expect_invalid([] { op::topk(param("5,10"), i64_scalar(1), 2, "max", "value"); },
                   {"TopK '", "axis 2"});
    expect_invalid([] { op::topk(param("5,10"), i64_scalar(1), 1, "max", "value", element::f32); },
                   {"TopK '", "index_element_type", "f32"});
    expect_invalid(
        [] {
            op::topk(param("5,10"), i64({1, 2}), 1, "max", "value");
        },
        {"TopK '", "k", "rank 0"});
    expect_invalid([] { op::topk(param("5,10"), i64_scalar(1), 1, "largest", "value"); },
                   {"TopK '", "mode", "largest"});
}

TEST(FakeQuantize, OutputIsTheBroadcastOfAllInputs) {
    auto node = op::fake_quantize(param("1,3,4,4"), param("1,3,1,1"), param("1,3,1,1"), param(""),
                                  param(""), 256);
    EXPECT_EQ(shape_of(node), "[1,3,4,4]");
    EXPECT_EQ(shape_of(op::fake_quantize(param("?,3,?,?"), param("3,1,1"), param("3,1,1"),
                                         param("1"), param("1"), 255)),
              "[?,3,?,?]");
    expect_invalid(
        [] {
            op::fake_quantize(param("1,3,4,4"), param("1,4,1,1"), param(""), param(""), param(""),
                              256);
        },
        {"FakeQuantize '", "[1,3,4,4]", "[1,4,1,1]"});
    expect_invalid(
        [] { op::fake_quantize(param("2"), param(""), param(""), param(""), param(""), 1); },
        {"FakeQuantize '", "levels", "1"});
    expect_invalid(
        [] {
            op::fake_quantize(param("2"), param("", element::f16), param(""), param(""), param(""),
                              256);
        },
        {"FakeQuantize '", "f32", "f16"});
}

TEST(State, ReadValueAndAssign) {
    auto init = param("1,?");
    auto rv6 = op::read_value("v0", element::f32, PartialShape::parse("1,?"), init);
    EXPECT_EQ(shape_of(rv6), "[1,?]");
    EXPECT_EQ(rv6->get_attribute<std::string>("variable_id"), "v0");
    auto no_init = op::read_value("v1", element::i32, PartialShape{2, 3});
    EXPECT_EQ(shape_of(no_init), "[2,3]");
    EXPECT_EQ(no_init->get_output_element_type(0), element::i32);
    // A dynamic declaration takes the initial value's type and shape.
    auto loose =
        op::read_value("v2", element::dynamic, PartialShape::dynamic(), param("4", element::f16));
    EXPECT_EQ(shape_of(loose), "[4]");
    EXPECT_EQ(loose->get_output_element_type(0), element::f16);
    auto rv3 = make_node("ReadValue", {param("2,2")}, {{"variable_id", std::string("v3")}}, 3);
    EXPECT_EQ(shape_of(rv3), "[2,2]");
    auto assign = op::assign(op::add(rv6, init), "v0");
    EXPECT_EQ(shape_of(assign), "[1,?]");
    EXPECT_EQ(
        make_node("Assign", {param("3")}, {{"variable_id", std::string("v")}}, 3)->get_version(),
        3);
}

TEST(State, Errors) {
    expect_invalid([] { op::read_value("v", element::i32, PartialShape{2}, param("2")); },
                   {"ReadValue '", "variable_type i32", "f32"});
    expect_invalid([] { op::read_value("v", element::f32, PartialShape{3}, param("2")); },
                   {"ReadValue '", "variable_shape [3]", "[2]"});
    expect_invalid([] { op::read_value("", element::f32, PartialShape{2}); },
                   {"ReadValue '", "variable_id"});
    expect_invalid([] { make_node("ReadValue", {param("2")}, {}, 3); },
                   {"ReadValue '", "variable_id", "missing"});
    expect_invalid([] { op::assign(param("2"), ""); }, {"Assign '", "variable_id"});
}

}  // namespace
}  // namespace vireo::test
