// Translators for ONNX Resize (opsets 10, 11, 13) and Upsample onto Interpolate-11.
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

OutputVector resize_with(const NodeContext& ctx, const Output& scales, const Output& sizes,
                         bool legacy) {
    const Output& x = ctx.input(0);
    op::InterpolateAttrs attrs;
    attrs.mode = interpolate_mode(ctx);
    bool exclude_outside = false;
    if (legacy) {
        attrs.coordinate_transformation_mode = "asymmetric";
        attrs.nearest_mode = "floor";
    } else {
        attrs.coordinate_transformation_mode =
            ctx.attr_string("coordinate_transformation_mode", "half_pixel");
        if (attrs.coordinate_transformation_mode == "tf_crop_and_resize")
            ctx.unsupported("coordinate_transformation_mode tf_crop_and_resize is not supported");
        attrs.nearest_mode = ctx.attr_string("nearest_mode", "round_prefer_floor");
        attrs.cube_coeff = ctx.attr_float("cubic_coeff_a", -0.75);
        exclude_outside = ctx.attr_int("exclude_outside", 0) != 0;
    }
    const int64_t rank = static_rank(ctx, x);
    attrs.pads_begin.assign(static_cast<size_t>(rank), 0);
    attrs.pads_end.assign(static_cast<size_t>(rank), 0);
    attrs.shape_calculation_mode = sizes ? "sizes" : "scales";
    const auto node = op::interpolate(
        x, sizes ? op::convert(sizes, element::i64) : op::convert(scales, element::f32), attrs);
    if (exclude_outside) node->set_attribute("exclude_outside", true);
    return one(node);
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
