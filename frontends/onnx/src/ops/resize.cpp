// Translators for ONNX Resize (opsets 10 to 19: coordinate modes including tf_crop_and_resize and
// half_pixel_symmetric, Resize-18's axes and antialias) and Upsample onto Interpolate-11.
#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

std::string interpolate_mode(const NodeContext& ctx) {
    const std::string mode = ctx.attr_string("mode", "nearest");
    if (mode == "nearest") return "nearest";
    if (mode == "linear" || mode == "bilinear") return "linear_onnx";
    if (mode == "cubic") return "cubic";
    ctx.fail("mode '", mode, "' is not nearest, linear or cubic");
}

// Resize-10..19 and Upsample onto one Interpolate-11. `scales` or `sizes` has one entry per axis
// of x, or per entry of Resize-18's `axes` attribute.
OutputVector resize_with(const NodeContext& ctx, const Output& scales, const Output& sizes,
                         bool legacy) {
    const Output& x = ctx.input(0);
    op::InterpolateAttrs attrs;
    attrs.mode = interpolate_mode(ctx);
    bool exclude_outside = false;
    bool crop = false;
    const int64_t rank = static_rank(ctx, x);
    std::vector<int64_t> axes(static_cast<size_t>(rank));
    for (int64_t i = 0; i < rank; ++i) axes[static_cast<size_t>(i)] = i;
    if (legacy) {
        attrs.coordinate_transformation_mode = "asymmetric";
        attrs.nearest_mode = "floor";
    } else {
        attrs.coordinate_transformation_mode =
            ctx.attr_string("coordinate_transformation_mode", "half_pixel");
        crop = attrs.coordinate_transformation_mode == "tf_crop_and_resize";
        attrs.nearest_mode = ctx.attr_string("nearest_mode", "round_prefer_floor");
        attrs.cube_coeff = ctx.attr_float("cubic_coeff_a", -0.75);
        exclude_outside = ctx.attr_int("exclude_outside", 0) != 0;
        // Resize-18: axes, antialias, keep_aspect_ratio_policy.
        if (ctx.has_attribute("axes")) {
            axes = ctx.attr_ints("axes");
            std::vector<bool> seen(static_cast<size_t>(rank), false);
            for (auto& a : axes) {
                a = normalize_axis(ctx, a, rank);
                if (seen[static_cast<size_t>(a)]) ctx.fail("axis ", a, " is listed twice in axes");
                seen[static_cast<size_t>(a)] = true;
            }
        }
        if (ctx.attr_int("antialias", 0) != 0 && attrs.mode != "nearest") {
            // A downscale widens the filter by 1/scale: Interpolate's "linear" with antialias.
            if (attrs.mode != "linear_onnx")
                ctx.unsupported("antialias with mode cubic is not supported");
            attrs.mode = "linear";
            attrs.antialias = true;
        }
        const std::string policy = ctx.attr_string("keep_aspect_ratio_policy", "stretch");
        if (policy != "stretch")
            ctx.unsupported("keep_aspect_ratio_policy '", policy, "' is not supported");
    }
    attrs.pads_begin.assign(static_cast<size_t>(rank), 0);
    attrs.pads_end.assign(static_cast<size_t>(rank), 0);
    const auto axes_input = op::int64_vector(axes);
    Output target = sizes ? Output(op::convert(sizes, element::i64))
                          : Output(op::convert(scales, element::f32));
    attrs.shape_calculation_mode = sizes ? "sizes" : "scales";
    OutputVector inputs = {x, target, axes_input};
    if (crop) {
        // The region of interest: starts then ends, one per resized axis, as fractions.
        if (!ctx.has_input(1)) ctx.fail("tf_crop_and_resize needs the roi input");
        const Output roi = op::convert(ctx.input(1), element::f32);
        inputs.push_back(roi);
        if (!sizes) {
            // ONNX: output length floor(length * (end - start) * scale); as sizes, since the
            // crop's coordinates depend on the output length only.
            const auto n = static_cast<int64_t>(axes.size());
            auto part = [&](int64_t from) {
                return op::slice(roi, op::int64_vector({from}), op::int64_vector({from + n}),
                                 op::int64_vector({1}), op::int64_vector({0}));
            };
            const auto extent = op::subtract(part(n), part(0));
            const auto lengths = op::convert(
                op::gather(op::shape_of(x), axes_input, op::int64_scalar(0)), element::f32);
            inputs[1] =
                op::convert(op::unary("Floor", op::multiply(op::multiply(lengths, extent), target)),
                            element::i64);
            attrs.shape_calculation_mode = "sizes";
        }
    }
    attrs.exclude_outside = exclude_outside;
    if (crop) attrs.extrapolation_value = ctx.attr_float("extrapolation_value", 0.0);
    return one(op::interpolate(x, inputs[1], attrs, axes_input, crop ? inputs[3] : Output()));
}

bool empty_input(const NodeContext& ctx, size_t i) {
    if (!ctx.has_input(i)) return true;
    const auto& shape = ctx.input(i).get_partial_shape();
    return shape.is_static() && shape_size(shape.to_shape()) == 0;
}

OutputVector resize(const NodeContext& ctx) {
    if (ctx.opset() < 11) return resize_with(ctx, ctx.input(1), {}, true);
    if (!empty_input(ctx, 3)) return resize_with(ctx, {}, ctx.input(3), false);
    if (empty_input(ctx, 2)) ctx.fail("needs scales or sizes");
    return resize_with(ctx, ctx.input(2), {}, false);
}

OutputVector upsample(const NodeContext& ctx) {
    if (ctx.opset() < 9) {
        const auto scales = ctx.attr_floats("scales");
        return resize_with(ctx, op::constant<double>(element::f32, Shape{scales.size()}, scales),
                           {}, true);
    }
    return resize_with(ctx, ctx.input(1), {}, true);
}

}  // namespace

void register_misc(TranslatorRegistry& r) {
    r.add("", "Resize", 10, resize);
    r.add("", "Upsample", 7, upsample);
}

}  // namespace vireo::onnx_import
