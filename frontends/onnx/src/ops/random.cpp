// Translators for ONNX's random ops onto RandomUniform-8: RandomUniform(Like), RandomNormal(Like)
// by the Box-Muller transform, and Bernoulli (U < p). ONNX's optional `seed` makes the numbers
// reproducible run after run; without it every execution draws new ones (seeds 0/0).
#include <bit>
#include <cmath>

#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

// The RandomUniform op_seed of a node: a given seed s (a float attribute in these ops) becomes
// 2^32 + the bits of s as f32, never 0, so a seed of 0.0 is seeded too; no seed gives 0 (unseeded).
int64_t op_seed(const NodeContext& ctx) {
    if (!ctx.has_attribute("seed")) return 0;
    const auto bits = std::bit_cast<uint32_t>(static_cast<float>(ctx.attr_float("seed", 0.0)));
    return (int64_t{1} << 32) | bits;
}

// The output type: attribute `dtype` when present, else `fallback`; a real type.
element::Type real_dtype(const NodeContext& ctx, element::Type fallback) {
    const element::Type t =
        ctx.has_attribute("dtype")
            ? to_element_type(static_cast<int32_t>(ctx.attr_int("dtype")), ctx.describe())
            : fallback;
    if (!t.is_real()) ctx.fail("dtype must be a floating-point type, got ", t);
    return t;
}

// The shape of the output: the `shape` attribute, or the shape of input 0 for the *Like ops.
Output output_shape(const NodeContext& ctx, bool like) {
    return like ? op::shape_of(ctx.input(0))->output(0) : ints(ctx.attr_ints("shape"));
}

element::Type like_type(const NodeContext& ctx, bool like) {
    return like ? ctx.input(0).get_element_type() : element::Type(element::f32);
}

Translator random_uniform(bool like) {
    return [like](const NodeContext& ctx) {
        const element::Type t = real_dtype(ctx, like_type(ctx, like));
        const double low = ctx.attr_float("low", 0.0), high = ctx.attr_float("high", 1.0);
        return one(op::random_uniform(output_shape(ctx, like), scalar(t, low), scalar(t, high), t,
                                      0, op_seed(ctx)));
    };
}

// z = sqrt(-2 ln(1 - u1)) cos(2 pi u2) over two uniform draws in [0, 1) (1 - u1 is in (0, 1], so
// the logarithm is finite), computed in f32 (f64 for f64 outputs); y = mean + scale * z.
Translator random_normal(bool like) {
    return [like](const NodeContext& ctx) {
        const element::Type t = real_dtype(ctx, like_type(ctx, like));
        const element::Type ct = t == element::f64 ? element::f64 : element::f32;
        const Output shape = output_shape(ctx, like);
        const Output u = op::random_uniform(op::concat({ints({2}), shape}, 0), scalar(ct, 0.0),
                                            scalar(ct, 1.0), ct, 0, op_seed(ctx));
        const Output u1 = op::gather(u, op::int64_scalar(0), op::int64_scalar(0));
        const Output u2 = op::gather(u, op::int64_scalar(1), op::int64_scalar(0));
        const Output radius = op::sqrt(
            op::multiply(scalar(ct, -2.0), op::unary("Log", op::subtract(scalar(ct, 1.0), u1))));
        const Output z =
            op::multiply(radius, op::unary("Cos", op::multiply(u2, scalar(ct, 2.0 * M_PI))));
        Output y = op::add(scalar(ct, ctx.attr_float("mean", 0.0)),
                           op::multiply(scalar(ct, ctx.attr_float("scale", 1.0)), z));
        return one(t == ct ? y : op::convert(y, t)->output(0));
    };
}

// Bernoulli-15: 1 where a uniform draw in [0, 1) is below the probability p, else 0 (ONNX's
// reference: np.random.uniform(0, 1, p.shape) < p), in dtype (default: p's type).
OutputVector bernoulli(const NodeContext& ctx) {
    const Output& p = ctx.input(0);
    const element::Type pt = p.get_element_type();
    if (!pt.is_real()) ctx.fail("input must have a floating-point type, got ", pt);
    const element::Type t =
        ctx.has_attribute("dtype")
            ? to_element_type(static_cast<int32_t>(ctx.attr_int("dtype")), ctx.describe())
            : pt;
    const Output u =
        op::random_uniform(op::shape_of(p), scalar(pt, 0.0), scalar(pt, 1.0), pt, 0, op_seed(ctx));
    return one(op::convert(op::less(u, p), t));
}

}  // namespace

void register_random(TranslatorRegistry& r) {
    r.add("", "RandomUniform", 1, random_uniform(false));
    r.add("", "RandomUniformLike", 1, random_uniform(true));
    r.add("", "RandomNormal", 1, random_normal(false));
    r.add("", "RandomNormalLike", 1, random_normal(true));
    r.add("", "Bernoulli", 15, bernoulli);
}

}  // namespace vireo::onnx_import
