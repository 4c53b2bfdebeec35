// Defines the elementwise ops: binary arithmetic (Add ... SquaredDifference), comparisons, logical
// and bitwise ops, Select, Convert, the plain unary math ops (Abs, Exp, Floor, trigonometric and
// hyperbolic functions, Round) and the floating-point class tests (IsInf, IsNaN, IsFinite).
#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

const char* const kArithmetic = "a number type (not boolean)";

Outputs infer_binary_arithmetic(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, 0, 1);
    check_type(node, in, 0, "A", is_numeric, kArithmetic);
    check_type(node, in, 1, "B", is_numeric, kArithmetic);
    return {{type, broadcast_shapes(node, in[0].shape, in[1].shape,
                                    node.get_attribute<std::string>("auto_broadcast"))}};
}

Outputs infer_comparison(const Node& node, const Inputs& in) {
    merge_types(node, in, 0, 1);
    return {
        {element::boolean, broadcast_shapes(node, in[0].shape, in[1].shape,
                                            node.get_attribute<std::string>("auto_broadcast"))}};
}

Outputs infer_binary_logical(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "A", is_boolean, "boolean");
    check_type(node, in, 1, "B", is_boolean, "boolean");
    return {
        {element::boolean, broadcast_shapes(node, in[0].shape, in[1].shape,
                                            node.get_attribute<std::string>("auto_broadcast"))}};
}

Outputs infer_unary_arithmetic(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_numeric, kArithmetic);
    return {{in[0].type, in[0].shape}};
}

bool is_integral_or_boolean(element::Type t) {
    return is_integral_number(t) || is_boolean(t);
}

// BitwiseAnd/Or/Xor-13: integers or boolean, same type, broadcast.
Outputs infer_bitwise_binary(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, 0, 1);
    check_type(node, in, 0, "A", is_integral_or_boolean, "an integer or boolean type");
    check_type(node, in, 1, "B", is_integral_or_boolean, "an integer or boolean type");
    return {{type, broadcast_shapes(node, in[0].shape, in[1].shape,
                                    node.get_attribute<std::string>("auto_broadcast"))}};
}

// BitwiseLeftShift/RightShift-15: integers only.
Outputs infer_bitwise_shift(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, 0, 1);
    check_type(node, in, 0, "A", is_integral_number, "an integer type");
    check_type(node, in, 1, "B", is_integral_number, "an integer type");
    return {{type, broadcast_shapes(node, in[0].shape, in[1].shape,
                                    node.get_attribute<std::string>("auto_broadcast"))}};
}

Outputs infer_bitwise_not(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_integral_or_boolean, "an integer or boolean type");
    return {{in[0].type, in[0].shape}};
}

// IsInf/IsNaN/IsFinite-10: a real input, a boolean output of the same shape.
Outputs infer_fp_class(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_real, "a floating-point type");
    return {{element::boolean, in[0].shape}};
}

Outputs infer_logical_not(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_boolean, "boolean");
    return {{in[0].type, in[0].shape}};
}

Outputs infer_select(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "cond", is_boolean, "boolean");
    const element::Type type = merge_types(node, in, 1, 2);
    const std::string& mode = node.get_attribute<std::string>("auto_broadcast");
    PartialShape out;
    if (mode == "pdpd") {
        // PDPD: 'else' broadcasts into 'then', and 'cond' into the result.
        out = broadcast_shapes(node, in[1].shape, in[2].shape, mode);
        out = broadcast_shapes(node, out, in[0].shape, mode);
    } else {
        out = broadcast_shapes(node, in[1].shape, in[2].shape, mode);
        out = broadcast_shapes(node, in[0].shape, out, mode);
    }
    return {{type, out}};
}

Outputs infer_convert(const Node& node, const Inputs& in) {
    const auto& type = node.get_attribute<element::Type>("destination_type");
    if (!type.is_static() && !type.is_dynamic())
        throw_error<InvalidArgument>(node.describe(),
                                     ": destination_type must be an element type, got ", type);
    return {{type, in[0].shape}};
}

// ConvertLike-1: the data of input 0 converted to the element type of input 1 (whose values are
// not read).
Outputs infer_convert_like(const Node&, const Inputs& in) {
    return {{in[1].type, in[0].shape}};
}

void add_binary(OpRegistry& r, const std::string& type, InferFunction infer,
                std::vector<AttrSpec> extra = {}) {
    std::vector<AttrSpec> attrs{auto_broadcast_attr()};
    for (auto& a : extra) attrs.push_back(std::move(a));
    r.add(OpDef{type, 1, "", 2, 2, std::move(attrs), std::move(infer), {}});
}

}  // namespace

void register_elementwise_ops(OpRegistry& r) {
    for (const char* type : {"Add", "Subtract", "Multiply", "Power", "Maximum", "Minimum",
                             "SquaredDifference", "Mod", "FloorMod"})
        add_binary(r, type, infer_binary_arithmetic);
    add_binary(r, "Divide", infer_binary_arithmetic,
               {optional_attr("m_pythondiv", AttrType::kBool, true)});

    for (const char* type : {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"})
        add_binary(r, type, infer_comparison);
    for (const char* type : {"LogicalAnd", "LogicalOr", "LogicalXor"})
        add_binary(r, type, infer_binary_logical);
    r.add(OpDef{"LogicalNot", 1, "", 1, 1, {}, infer_logical_not, {}});

    r.add(OpDef{"Select", 1, "", 3, 3, {auto_broadcast_attr()}, infer_select, {}});
    r.add(OpDef{"Convert",
                1,
                "",
                1,
                1,
                {required_attr("destination_type", AttrType::kElementType)},
                infer_convert,
                {}});
    r.add(OpDef{"ConvertLike", 1, "", 2, 2, {}, infer_convert_like, {}});

    for (const char* type : {"Abs", "Negative", "Exp", "Log", "Sqrt", "Erf", "Floor", "Ceiling",
                             "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh"})
        r.add(OpDef{type, 1, "", 1, 1, {}, infer_unary_arithmetic, {}});
    for (const char* type : {"Asinh", "Acosh", "Atanh"})
        r.add(OpDef{type, 4, "", 1, 1, {}, infer_unary_arithmetic, {}});
    r.add(OpDef{"Round",
                5,
                "",
                1,
                1,
                {optional_attr("mode", AttrType::kString, std::string("half_to_even"),
                               {"half_to_even", "half_away_from_zero"})},
                infer_unary_arithmetic,
                {}});

    r.add(OpDef{"IsInf",
                10,
                "",
                1,
                1,
                {optional_attr("detect_negative", AttrType::kBool, true),
                 optional_attr("detect_positive", AttrType::kBool, true)},
                infer_fp_class,
                {}});
    for (const char* type : {"IsNaN", "IsFinite"})
        r.add(OpDef{type, 10, "", 1, 1, {}, infer_fp_class, {}});

    for (const char* type : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
        r.add(OpDef{type, 13, "", 2, 2, {auto_broadcast_attr()}, infer_bitwise_binary, {}});
    r.add(OpDef{"BitwiseNot", 13, "", 1, 1, {}, infer_bitwise_not, {}});
    for (const char* type : {"BitwiseLeftShift", "BitwiseRightShift"})
        r.add(OpDef{type, 15, "", 2, 2, {auto_broadcast_attr()}, infer_bitwise_shift, {}});
}

}  // namespace vireo::ops_impl
