// Defines Interpolate-4 (data, sizes, scales[, axes]) and Interpolate-11 (data, scales_or_sizes
// [, axes [, roi]]), with pads, shape_calculation_mode and the resampling attributes, and
// GridSample-9.
#include <cmath>
#include <limits>

#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

// Scales are applied with a small epsilon so that e.g. 3 * (2/3.f) still gives 2.
constexpr double kScaleEpsilon = 1e-5;

// A NaN, infinite or negative scale, or a product past int64, has no dimension: checked here,
// before the conversion (which is undefined for them and used to give INT64_MIN).
int64_t scaled(const Node& node, int64_t size, double scale, size_t axis) {
    if (!std::isfinite(scale) || scale < 0)
        throw_error<InvalidArgument>(node.describe(), ": scale ", scale, " for axis ", axis,
                                     " is not a finite number >= 0");
    const double product = std::floor(static_cast<double>(size) * scale + kScaleEpsilon);
    if (!(product < static_cast<double>(std::numeric_limits<int64_t>::max())))
        throw_error<InvalidArgument>(node.describe(), ": axis ", axis, " of length ", size,
                                     " scaled by ", scale, " is larger than a dimension can hold");
    return static_cast<int64_t>(product);
}

Dimension scale_dim(const Node& node, const Dimension& d, double scale, size_t axis) {
    if (d.is_static()) return Dimension(scaled(node, d.get_length(), scale, axis));
    const int64_t lo = scaled(node, d.get_min_length(), scale, axis);
    const int64_t hi =
        d.is_bounded() ? scaled(node, d.get_max_length(), scale, axis) : Dimension::kInfinity;
    return Dimension(lo, std::max(lo, hi));
}

// `target` is the index of the sizes-or-scales input in use, `axes_index` that of axes (may be
// absent); `scales_mode` says which of the two the target input holds.
Outputs infer_interpolate(const Node& node, const Inputs& in, size_t target, size_t axes_index,
                          bool scales_mode) {
    check_rank(node, in, target, scales_mode ? "scales" : "sizes", 1, 1);
    if (axes_index < in.size()) {
        check_type(node, in, axes_index, "axes", is_integral_number, "an integer type");
        check_rank(node, in, axes_index, "axes", 1, 1);
    }
    if (scales_mode) {
        check_type(node, in, target, "scales", is_real, "a floating-point type");
    } else {
        check_type(node, in, target, "sizes", is_integral_number, "an integer type");
    }
    const PartialShape& data = in[0].shape;
    if (!data.rank_is_static()) return {{in[0].type, PartialShape::dynamic()}};
    const size_t rank = data.size();
    const auto& pads_begin = node.get_attribute<std::vector<int64_t>>("pads_begin");
    const auto& pads_end = node.get_attribute<std::vector<int64_t>>("pads_end");
    for (const auto* pads : {&pads_begin, &pads_end})
        if (pads->size() > rank)
            throw_error<InvalidArgument>(node.describe(), ": pads ", to_text(*pads),
                                         " have more entries than data ", data, " has axes");
    PartialShape out;
    for (size_t i = 0; i < rank; ++i) {
        const int64_t pads =
            (i < pads_begin.size() ? pads_begin[i] : 0) + (i < pads_end.size() ? pads_end[i] : 0);
        out.push_back(pads >= 0 ? data[i] + Dimension(pads) : data[i] - Dimension(-pads));
    }
    // Axes default to all axes of data.
    std::optional<std::vector<size_t>> axes;
    if (axes_index < in.size()) {
        if (auto values = values_of(in, axes_index))
            axes = normalize_axes(node, *values, static_cast<int64_t>(rank), "axes");
    } else {
        axes = std::vector<size_t>(rank);
        for (size_t i = 0; i < rank; ++i) (*axes)[i] = i;
    }
    if (!axes) {
        // Unknown axes: any axis may be resized.
        return {{in[0].type, PartialShape::dynamic(rank)}};
    }
    if (auto len = static_length(in[target]); len && static_cast<size_t>(*len) != axes->size())
        throw_error<InvalidArgument>(node.describe(), ": input ", target, " (",
                                     scales_mode ? "scales" : "sizes", ") has shape ",
                                     in[target].shape, " but there are ", axes->size(), " axes");
    if (scales_mode) {
        auto scales = real_values(in, target);
        for (size_t j = 0; j < axes->size(); ++j)
            out[(*axes)[j]] =
                scales ? scale_dim(node, out[(*axes)[j]], (*scales)[j], (*axes)[j]) : Dimension();
    } else {
        auto sizes = values_of(in, target);
        for (size_t j = 0; j < axes->size(); ++j) {
            if (sizes && (*sizes)[j] < 0)
                throw_error<InvalidArgument>(node.describe(), ": size ", (*sizes)[j], " for axis ",
                                             (*axes)[j], " is negative");
            out[(*axes)[j]] = sizes ? Dimension((*sizes)[j]) : Dimension();
        }
    }
    return {{in[0].type, out}};
}

std::vector<AttrSpec> interpolate_attrs(std::vector<std::string> modes) {
    return {required_attr("mode", AttrType::kString, std::move(modes)),
            required_attr("shape_calculation_mode", AttrType::kString, {"sizes", "scales"}),
            optional_attr("coordinate_transformation_mode", AttrType::kString,
                          std::string("half_pixel"),
                          {"half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn",
                           "align_corners"}),
            optional_attr("nearest_mode", AttrType::kString, std::string("round_prefer_floor"),
                          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"}),
            optional_attr("antialias", AttrType::kBool, false),
            optional_attr("pads_begin", AttrType::kIntList, std::vector<int64_t>{0}),
            optional_attr("pads_end", AttrType::kIntList, std::vector<int64_t>{0}),
            optional_attr("cube_coeff", AttrType::kFloat, -0.75)};
}

// Interpolate-11's attributes, plus Vireo's from ONNX Resize: `exclude_outside` (cubic taps
// outside the input get no weight and the others are renormalised), the coordinate modes
// `tf_crop_and_resize` (with the `roi` input; positions outside the input read
// `extrapolation_value`) and `half_pixel_symmetric` (Resize-19). Their defaults write OpenVINO's
// op.
std::vector<AttrSpec> interpolate_v11_attrs() {
    auto attrs = interpolate_attrs(
        {"nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow"});
    for (auto& a : attrs)
        if (a.name == "coordinate_transformation_mode")
            a = optional_attr(
                "coordinate_transformation_mode", AttrType::kString, std::string("half_pixel"),
                {"half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn",
                 "align_corners", "tf_crop_and_resize", "half_pixel_symmetric"});
    attrs.push_back(optional_attr("exclude_outside", AttrType::kBool, false));
    attrs.push_back(optional_attr("extrapolation_value", AttrType::kFloat, 0.0));
    return attrs;
}

// Interpolate-11's optional fourth input, roi (Vireo's): starts then ends, one per entry of axes,
// as fractions of each axis; read only by tf_crop_and_resize, which needs it and sizes.
void check_roi(const Node& node, const Inputs& in) {
    const bool crop =
        node.get_attribute<std::string>("coordinate_transformation_mode") == "tf_crop_and_resize";
    if (in.size() > 3) {
        check_type(node, in, 3, "roi", is_real, "a floating-point type");
        check_rank(node, in, 3, "roi", 1, 1);
        const auto roi = static_length(in[3]);
        const auto axes = static_length(in[2]);
        if (roi && axes && *roi != 2 * *axes)
            throw_error<InvalidArgument>(node.describe(), ": roi has shape ", in[3].shape,
                                         " but there are ", *axes, " axes (two values each)");
    }
    if (!crop) return;
    if (in.size() < 4)
        throw_error<InvalidArgument>(node.describe(),
                                     ": tf_crop_and_resize needs the roi input (input 3)");
    if (node.get_attribute<std::string>("shape_calculation_mode") != "sizes")
        throw_error<InvalidArgument>(node.describe(),
                                     ": tf_crop_and_resize needs shape_calculation_mode sizes");
}

// GridSample-9: data [N, C, H, W], grid [N, H_out, W_out, 2] -> [N, C, H_out, W_out].
Outputs infer_grid_sample(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_real, "a floating-point type");
    check_type(node, in, 1, "grid", is_real, "a floating-point type");
    check_rank(node, in, 0, "data", 4, 4);
    check_rank(node, in, 1, "grid", 4, 4);
    const PartialShape& data = in[0].shape;
    const PartialShape& grid = in[1].shape;
    PartialShape out{Dimension(), Dimension(), Dimension(), Dimension()};
    if (data.rank_is_static()) {
        out[0] = data[0];
        out[1] = data[1];
    }
    if (grid.rank_is_static()) {
        if (!grid[3].compatible(2))
            throw_error<InvalidArgument>(node.describe(), ": grid ", grid,
                                         " must end with 2 coordinates (x, y)");
        if (!Dimension::merge(out[0], out[0], grid[0]))
            throw_error<InvalidArgument>(node.describe(), ": grid ", grid, " and data ", data,
                                         " differ in the batch dimension");
        out[2] = grid[1];
        out[3] = grid[2];
    }
    return {{in[0].type, out}};
}

}  // namespace

void register_interpolate_ops(OpRegistry& r) {
    r.add(OpDef{"Interpolate",
                4,
                "",
                3,
                4,
                interpolate_attrs({"nearest", "linear", "linear_onnx", "cubic"}),
                [](const Node& n, const Inputs& in) {
                    const bool scales =
                        n.get_attribute<std::string>("shape_calculation_mode") == "scales";
                    return infer_interpolate(n, in, scales ? 2 : 1, 3, scales);
                },
                {}});
    r.add(OpDef{"Interpolate",
                11,
                "",
                2,
                4,
                interpolate_v11_attrs(),
                [](const Node& n, const Inputs& in) {
                    const bool scales =
                        n.get_attribute<std::string>("shape_calculation_mode") == "scales";
                    check_roi(n, in);
                    return infer_interpolate(n, in, 1, 2, scales);
                },
                {}});
    r.add(OpDef{"GridSample",
                9,
                "",
                2,
                2,
                {optional_attr("align_corners", AttrType::kBool, false),
                 optional_attr("mode", AttrType::kString, std::string("bilinear"),
                               {"bilinear", "bicubic", "nearest"}),
                 optional_attr("padding_mode", AttrType::kString, std::string("zeros"),
                               {"zeros", "border", "reflection"})},
                infer_grid_sample,
                {}});
}

}  // namespace vireo::ops_impl
