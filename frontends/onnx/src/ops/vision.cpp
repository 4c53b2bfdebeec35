// Translators for ONNX's detection and sampling ops: NonMaxSuppression, RoiAlign, GridSample and
// Unique, onto the core ops of the same names.
#include <limits>

#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

OutputVector non_max_suppression(const NodeContext& ctx) {
    OutputVector in{ctx.input(0), ctx.input(1)};
    auto scalar_input = [&](size_t i, element::Type t) -> Output {
        return ctx.has_input(i) ? as_scalar(ctx.input(i)) : scalar(t, 0.0);
    };
    const auto t = ctx.input(1).get_element_type();
    in.push_back(scalar_input(2, element::i64));
    in.push_back(scalar_input(3, t));
    // ONNX's default score_threshold keeps every box: the lowest value of the scores' type.
    in.push_back(ctx.has_input(4) ? scalar_input(4, t)
                                  : scalar(t, -std::numeric_limits<double>::infinity()));
    auto nms = make_node(
        "NonMaxSuppression", in,
        {{"box_encoding", std::string(ctx.attr_int("center_point_box", 0) ? "center" : "corner")},
         {"sort_result_descending", false},
         {"output_type", element::Type(element::i64)}});
    // The core op sizes its output to the upper bound; ONNX's has exactly the selected rows.
    Output count = op::convert(nms->output(2), element::i64);
    return one(op::slice(nms->output(0), ints({0}), count, ints({1}), ints({0})));
}

OutputVector roi_align(const NodeContext& ctx) {
    std::string mode = "asymmetric";
    if (ctx.opset() >= 16) {
        const std::string m = ctx.attr_string("coordinate_transformation_mode", "half_pixel");
        if (m == "half_pixel")
            mode = "half_pixel_for_nn";  // ONNX's half_pixel shifts by -0.5 only
        else if (m != "output_half_pixel")
            ctx.fail("coordinate_transformation_mode '", m, "' is unknown");
    }
    Output indices = ctx.input(2);
    if (!indices.get_element_type().is_integral_number())
        indices = op::convert(indices, element::i64);
    return one(make_node("ROIAlign", {ctx.input(0), ctx.input(1), indices},
                         {{"pooled_h", ctx.attr_int("output_height", 1)},
                          {"pooled_w", ctx.attr_int("output_width", 1)},
                          {"sampling_ratio", ctx.attr_int("sampling_ratio", 0)},
                          {"spatial_scale", ctx.attr_float("spatial_scale", 1.0)},
                          {"mode", ctx.attr_string("mode", "avg")},
                          {"aligned_mode", mode}}));
}

OutputVector grid_sample(const NodeContext& ctx) {
    return one(make_node("GridSample", {ctx.input(0), ctx.input(1)},
                         {{"align_corners", ctx.attr_int("align_corners", 0) != 0},
                          {"mode", ctx.attr_string("mode", "bilinear")},
                          {"padding_mode", ctx.attr_string("padding_mode", "zeros")}}));
}

OutputVector unique(const NodeContext& ctx) {
    OutputVector in{ctx.input(0)};
    if (ctx.has_attribute("axis")) in.push_back(op::int64_scalar(ctx.attr_int("axis")));
    auto node = make_node("Unique", in, {{"sorted", ctx.attr_int("sorted", 1) != 0}});
    return node->outputs();
}

}  // namespace

void register_vision(TranslatorRegistry& r) {
    r.add("", "NonMaxSuppression", 10, non_max_suppression);
    r.add("", "RoiAlign", 10, roi_align);
    r.add("", "GridSample", 16, grid_sample);
    r.add("", "Unique", 11, unique);
}

}  // namespace vireo::onnx_import
