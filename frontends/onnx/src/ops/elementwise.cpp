// Translators for ONNX's elementwise ops: arithmetic, comparisons, logic, variadic
// Sum/Mean/Max/Min, unary math, Cast and Where.
#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

Translator binary(const std::string& core_type) {
    return [core_type](const NodeContext& ctx) {
        auto [a, b] = legacy_broadcast(ctx, ctx.input(0), ctx.input(1));
        return one(make_node(core_type, {a, b}));
    };
}

Translator unary(const std::string& core_type) {
    return
        [core_type](const NodeContext& ctx) { return one(make_node(core_type, {ctx.input(0)})); };
}

Translator variadic(const std::string& core_type, bool mean = false) {
    return [core_type, mean](const NodeContext& ctx) {
        Output acc = ctx.input(0);
        for (size_t i = 1; i < ctx.input_size(); ++i)
            acc = make_node(core_type, {acc, ctx.input(i)});
        if (ctx.input_size() == 1) acc = identity(acc);
        if (mean)
            acc = op::divide(acc,
                             scalar(acc.get_element_type(), static_cast<double>(ctx.input_size())));
        return one(acc);
    };
}

OutputVector div(const NodeContext& ctx) {
    auto [a, b] = legacy_broadcast(ctx, ctx.input(0), ctx.input(1));
    // ONNX integer division truncates toward zero (C semantics).
    return one(op::divide(a, b, /*pythondiv=*/false));
}

OutputVector pow(const NodeContext& ctx) {
    auto [a, b] = legacy_broadcast(ctx, ctx.input(0), ctx.input(1));
    if (b.get_element_type() != a.get_element_type()) b = op::convert(b, a.get_element_type());
    return one(op::power(a, b));
}

OutputVector mod(const NodeContext& ctx) {
    const bool fmod = ctx.attr_int("fmod", 0) != 0;
    const auto type = ctx.input(0).get_element_type();
    if (!fmod && type.is_real()) ctx.fail("fmod=0 is defined for integers only");
    // fmod=1: the remainder has the dividend's sign (C fmod); fmod=0: the divisor's (Python %).
    return one(make_node(fmod ? "Mod" : "FloorMod", {ctx.input(0), ctx.input(1)}));
}

OutputVector cast(const NodeContext& ctx) {
    const int64_t to = ctx.attr_int("to");
    return one(op::convert(ctx.input(0),
                           to_element_type(static_cast<int32_t>(to), ctx.describe() + " 'to'")));
}

OutputVector cast_like(const NodeContext& ctx) {
    return one(op::convert(ctx.input(0), ctx.input(1).get_element_type()));
}

OutputVector reciprocal(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    return one(op::divide(scalar(x.get_element_type(), 1.0), x));
}

OutputVector where(const NodeContext& ctx) {
    return one(op::select(ctx.input(0), ctx.input(1), ctx.input(2)));
}

OutputVector is_inf(const NodeContext& ctx) {
    return one(make_node("IsInf", {ctx.input(0)},
                         {{"detect_negative", ctx.attr_int("detect_negative", 1) != 0},
                          {"detect_positive", ctx.attr_int("detect_positive", 1) != 0}}));
}

OutputVector round(const NodeContext& ctx) {
    return one(make_node("Round", {ctx.input(0)}, {{"mode", std::string("half_to_even")}}));
}

OutputVector bit_shift(const NodeContext& ctx) {
    const std::string dir = ctx.attr_string("direction", "");
    if (dir != "LEFT" && dir != "RIGHT")
        ctx.fail("direction must be LEFT or RIGHT, not '", dir, "'");
    return one(make_node(dir == "LEFT" ? "BitwiseLeftShift" : "BitwiseRightShift",
                         {ctx.input(0), ctx.input(1)}));
}

}  // namespace

void register_elementwise(TranslatorRegistry& r) {
    for (auto [onnx_name, core] : std::vector<std::pair<const char*, const char*>>{
             {"Add", "Add"}, {"Sub", "Subtract"}, {"Mul", "Multiply"}}) {
        r.add("", onnx_name, 1, binary(core));
    }
    r.add("", "Div", 1, div);
    r.add("", "Pow", 1, pow);
    r.add("", "Mod", 10, mod);
    for (auto [onnx_name, core] :
         std::vector<std::pair<const char*, const char*>>{{"Equal", "Equal"},
                                                          {"Less", "Less"},
                                                          {"Greater", "Greater"},
                                                          {"LessOrEqual", "LessEqual"},
                                                          {"GreaterOrEqual", "GreaterEqual"},
                                                          {"And", "LogicalAnd"},
                                                          {"Or", "LogicalOr"},
                                                          {"Xor", "LogicalXor"}}) {
        r.add("", onnx_name, 1, binary(core));
    }
    r.add("", "BitShift", 11, bit_shift);
    r.add("", "Not", 1, unary("LogicalNot"));
    r.add("", "Sum", 1, variadic("Add"));
    r.add("", "Mean", 1, variadic("Add", true));
    r.add("", "Max", 1, variadic("Maximum"));
    r.add("", "Min", 1, variadic("Minimum"));
    for (auto [onnx_name, core] : std::vector<std::pair<const char*, const char*>>{
             {"Abs", "Abs"},    {"Neg", "Negative"}, {"Exp", "Exp"},      {"Log", "Log"},
             {"Sqrt", "Sqrt"},  {"Floor", "Floor"},  {"Ceil", "Ceiling"}, {"Erf", "Erf"},
             {"Sign", "Sign"},  {"Sin", "Sin"},      {"Cos", "Cos"},      {"Tan", "Tan"},
             {"Asin", "Asin"},  {"Acos", "Acos"},    {"Atan", "Atan"},    {"Sinh", "Sinh"},
             {"Cosh", "Cosh"},  {"Asinh", "Asinh"},  {"Acosh", "Acosh"},  {"Atanh", "Atanh"},
             {"IsNaN", "IsNaN"}}) {
        r.add("", onnx_name, 1, unary(core));
    }
    r.add("", "IsInf", 10, is_inf);
    r.add("", "Round", 11, round);
    r.add("", "Reciprocal", 1, reciprocal);
    r.add("", "Cast", 1, cast);
    r.add("", "CastLike", 15, cast_like);
    r.add("", "Where", 9, where);
}

}  // namespace vireo::onnx_import
