// Translators for ONNX's quantization ops: (Dynamic)QuantizeLinear, DequantizeLinear and the
// integer/QLinear MatMul and Conv, computed in f32 between exact conversions; and ONNX Runtime's
// com.microsoft QLinear ops (QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu,
// QLinearGlobalAveragePool, QLinearConcat, QGemm) and its Quantize/DequantizeLinear.
#include <limits>
#include <string>

#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

// A scale or zero point for `x`: scalars broadcast as they are, 1-D ones along `axis`.
Output along_axis(const NodeContext& ctx, const Output& v, const Output& x, int64_t axis) {
    const auto& shape = v.get_partial_shape();
    if (shape.rank().is_static() && shape.rank().get_length() == 1) {
        const int64_t rank = static_rank(ctx, x);
        return per_channel(v, rank, normalize_axis(ctx, axis, rank));
    }
    return v;
}

Output to_f32(const Output& v) {
    return v.get_element_type() == element::f32 ? v : Output(op::convert(v, element::f32));
}

Output dequantize(const NodeContext& ctx, const Output& x, const Output& scale,
                  const Output& zero_point, int64_t axis) {
    Output v = to_f32(x);
    if (zero_point) v = op::subtract(v, to_f32(along_axis(ctx, zero_point, x, axis)));
    return op::multiply(v, along_axis(ctx, to_f32(scale), x, axis));
}

// saturate(round_half_even(x / scale) + zero_point) in the zero point's type (u8 without one).
Output quantize(const NodeContext& ctx, const Output& x, const Output& scale,
                const Output& zero_point, int64_t axis) {
    const element::Type out = zero_point ? zero_point.get_element_type() : element::u8;
    Output v = make_node("Round", {op::divide(to_f32(x), along_axis(ctx, to_f32(scale), x, axis))},
                         {{"mode", std::string("half_to_even")}});
    if (zero_point) v = op::add(v, to_f32(along_axis(ctx, zero_point, x, axis)));
    double lo = 0, hi = 255;
    if (out == element::i8)
        lo = -128, hi = 127;
    else if (out == element::u8)
        lo = 0, hi = 255;
    else if (out == element::i32)
        lo = -2147483648.0, hi = 2147483647.0;
    else
        ctx.unsupported("quantizing to ", out, " is not supported");
    return op::convert(op::clamp(v, lo, hi), out);
}

OutputVector dequantize_linear(const NodeContext& ctx) {
    const int64_t axis = ctx.attr_int("axis", 1);
    return one(dequantize(ctx, ctx.input(0), ctx.input(1),
                          ctx.has_input(2) ? ctx.input(2) : Output(), axis));
}

OutputVector quantize_linear(const NodeContext& ctx) {
    const int64_t axis = ctx.attr_int("axis", 1);
    return one(quantize(ctx, ctx.input(0), ctx.input(1), ctx.has_input(2) ? ctx.input(2) : Output(),
                        axis));
}

OutputVector dynamic_quantize_linear(const NodeContext& ctx) {
    const Output x = to_f32(ctx.input(0));
    const Output all = axes_range(0, static_rank(ctx, x));
    Output zero = scalar(element::f32, 0.0);
    Output lo = op::minimum(op::reduce("ReduceMin", x, all, false), zero);
    Output hi = op::maximum(op::reduce("ReduceMax", x, all, false), zero);
    Output scale = op::divide(op::subtract(hi, lo), scalar(element::f32, 255.0));
    Output zp_real = make_node("Round", {op::subtract(zero, op::divide(lo, scale))},
                               {{"mode", std::string("half_to_even")}});
    Output zp = op::convert(op::clamp(zp_real, 0, 255), element::u8);
    return {quantize(ctx, x, scale, zp, 1), scale, zp};
}

Output integer_operand(const Output& v, const NodeContext& ctx, size_t zp_input, bool per_row) {
    Output f = to_f32(v);
    if (!ctx.has_input(zp_input)) return f;
    Output zp = to_f32(ctx.input(zp_input));
    const auto& shape = zp.get_partial_shape();
    // A 1-D zero point of A is per row (its M axis), of B per column (its N axis).
    if (per_row && shape.rank().is_static() && shape.rank().get_length() == 1)
        zp = op::unsqueeze(zp, ints({1}));
    return op::subtract(f, zp);
}

OutputVector matmul_integer(const NodeContext& ctx) {
    Output a = integer_operand(ctx.input(0), ctx, 2, true);
    Output b = integer_operand(ctx.input(1), ctx, 3, false);
    return one(op::convert(op::matmul(a, b), element::i32));
}

OutputVector conv_integer(const NodeContext& ctx) {
    Output x = to_f32(ctx.input(0)), w = to_f32(ctx.input(1));
    if (ctx.has_input(2)) x = op::subtract(x, to_f32(ctx.input(2)));
    if (ctx.has_input(3)) {
        Output zp = to_f32(ctx.input(3));
        const auto& s = zp.get_partial_shape();
        if (s.rank().is_static() && s.rank().get_length() == 1)
            zp = per_channel(zp, static_rank(ctx, w), 0);
        w = op::subtract(w, zp);
    }
    return one(op::convert(build_conv(ctx, x, w), element::i32));
}

OutputVector qlinear_matmul(const NodeContext& ctx) {
    Output a = dequantize(ctx, ctx.input(0), ctx.input(1), ctx.input(2), 1);
    Output b = dequantize(ctx, ctx.input(3), ctx.input(4), ctx.input(5), 1);
    return one(quantize(ctx, op::matmul(a, b), ctx.input(6), ctx.input(7), 1));
}

OutputVector qlinear_conv(const NodeContext& ctx) {
    Output x = dequantize(ctx, ctx.input(0), ctx.input(1), ctx.input(2), 1);
    Output w = dequantize(ctx, ctx.input(3), ctx.input(4), ctx.input(5), 0);
    Output y = build_conv(ctx, x, w);
    if (ctx.has_input(8)) {
        // The i32 bias is quantized with scale x_scale * w_scale and zero point 0.
        Output scale = op::multiply(to_f32(ctx.input(1)), to_f32(ctx.input(4)));
        Output bias = op::multiply(to_f32(ctx.input(8)), scale);
        y = op::add(y, per_channel(bias, static_rank(ctx, y)));
    }
    return one(quantize(ctx, y, ctx.input(6), ctx.input(7), 1));
}

// ONNX Runtime's com.microsoft QLinear ops (its QOperator-format quantized models): dequantize
// the inputs, compute in f32, quantize the result, as QLinearConv above. An absent zero point is
// 0 of u8.
Output optional_input(const NodeContext& ctx, size_t i) {
    return ctx.has_input(i) ? ctx.input(i) : Output();
}

// QLinearAdd / QLinearMul: A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp.
Translator qlinear_binary(const std::string& kind) {
    return [kind](const NodeContext& ctx) {
        const Output a = dequantize(ctx, ctx.input(0), ctx.input(1), optional_input(ctx, 2), 1);
        const Output b = dequantize(ctx, ctx.input(3), ctx.input(4), optional_input(ctx, 5), 1);
        const Output y = kind == "Add" ? Output(op::add(a, b)) : Output(op::multiply(a, b));
        return one(quantize(ctx, y, ctx.input(6), optional_input(ctx, 7), 1));
    };
}

// QLinearSigmoid / QLinearLeakyRelu: X, X_scale, X_zp, Y_scale, Y_zp.
Translator qlinear_unary(const std::string& kind) {
    return [kind](const NodeContext& ctx) {
        const Output x = dequantize(ctx, ctx.input(0), ctx.input(1), optional_input(ctx, 2), 1);
        Output y;
        if (kind == "Sigmoid") {
            y = op::sigmoid(x);
        } else {
            const Output scaled =
                op::multiply(x, scalar(element::f32, ctx.attr_float("alpha", 0.01)));
            y = op::select(op::compare("GreaterEqual", x, scalar(element::f32, 0.0)), x, scaled);
        }
        return one(quantize(ctx, y, ctx.input(3), optional_input(ctx, 4), 1));
    };
}

// QLinearGlobalAveragePool: X, x_scale, x_zp, y_scale, y_zp; channels_last puts C last.
OutputVector qlinear_global_average_pool(const NodeContext& ctx) {
    const Output x = dequantize(ctx, ctx.input(0), ctx.input(1), optional_input(ctx, 2), 1);
    const int64_t rank = static_rank(ctx, x);
    const bool last = ctx.attr_int("channels_last", 0) != 0;
    const Output axes = last ? axes_range(1, rank - 1) : axes_range(2, rank);
    return one(quantize(ctx, op::reduce("ReduceMean", x, axes, true), ctx.input(3),
                        optional_input(ctx, 4), 1));
}

// QLinearConcat: Y_scale, Y_zp, then (X, X_scale, X_zp) per input.
OutputVector qlinear_concat(const NodeContext& ctx) {
    if (ctx.input_size() < 5 || (ctx.input_size() - 2) % 3 != 0)
        ctx.fail("expected Y_scale, Y_zero_point and triples of (X, X_scale, X_zero_point), got ",
                 ctx.input_size(), " inputs");
    OutputVector parts;
    for (size_t i = 2; i + 2 < ctx.input_size(); i += 3) {
        parts.push_back(
            dequantize(ctx, ctx.input(i), ctx.input(i + 1), optional_input(ctx, i + 2), 1));
    }
    const int64_t rank = static_rank(ctx, parts.front());
    const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), rank);
    return one(quantize(ctx, op::concat(parts, axis), ctx.input(0), optional_input(ctx, 1), 1));
}

// QGemm: A, a_scale, a_zp, B, b_scale, b_zp, C (i32, scale a_scale * b_scale), y_scale, y_zp;
// alpha, transA, transB. Without y_scale the output is f32.
OutputVector qgemm(const NodeContext& ctx) {
    const Output a = dequantize(ctx, ctx.input(0), ctx.input(1), optional_input(ctx, 2), 1);
    // B's per-column scale and zero point lie along N: axis 0 of B transposed, 1 otherwise.
    const int64_t b_axis = ctx.attr_int("transB", 0) != 0 ? 0 : 1;
    const Output b = dequantize(ctx, ctx.input(3), ctx.input(4), optional_input(ctx, 5), b_axis);
    Output y = op::matmul(a, b, ctx.attr_int("transA", 0) != 0, ctx.attr_int("transB", 0) != 0);
    const double alpha = ctx.attr_float("alpha", 1.0);
    if (alpha != 1.0) y = op::multiply(y, scalar(element::f32, alpha));
    if (ctx.has_input(6)) {
        const Output scale = op::multiply(to_f32(ctx.input(1)), to_f32(ctx.input(4)));
        y = op::add(y, op::multiply(to_f32(ctx.input(6)), scale));
    }
    if (!ctx.has_input(7)) return one(y);
    return one(quantize(ctx, y, ctx.input(7), optional_input(ctx, 8), 1));
}

}  // namespace

void register_quantization(TranslatorRegistry& r) {
    constexpr const char* kMs = "com.microsoft";
    r.add(kMs, "QuantizeLinear", 1, quantize_linear);
    r.add(kMs, "DequantizeLinear", 1, dequantize_linear);
    r.add(kMs, "QLinearAdd", 1, qlinear_binary("Add"));
    r.add(kMs, "QLinearMul", 1, qlinear_binary("Mul"));
    r.add(kMs, "QLinearSigmoid", 1, qlinear_unary("Sigmoid"));
    r.add(kMs, "QLinearLeakyRelu", 1, qlinear_unary("LeakyRelu"));
    r.add(kMs, "QLinearGlobalAveragePool", 1, qlinear_global_average_pool);
    r.add(kMs, "QLinearConcat", 1, qlinear_concat);
    r.add(kMs, "QGemm", 1, qgemm);
    r.add("", "DequantizeLinear", 10, dequantize_linear);
    r.add("", "QuantizeLinear", 10, quantize_linear);
    r.add("", "DynamicQuantizeLinear", 11, dynamic_quantize_linear);
    r.add("", "MatMulInteger", 10, matmul_integer);
    r.add("", "ConvInteger", 10, conv_integer);
    r.add("", "QLinearMatMul", 10, qlinear_matmul);
    r.add("", "QLinearConv", 10, qlinear_conv);
}

}  // namespace vireo::onnx_import
