// Implements the op builders behind PrePostProcessor::build(): Convert, Transpose, Interpolate,
// Subtract/Divide by constants and Gather for reversing channels, each checked before it is made.
#include "preprocess_build.hpp"

#include <algorithm>
#include <numeric>

#include "vireo/exception.hpp"
#include "vireo/ops.hpp"

namespace vireo::preprocess_impl {
namespace {

std::string quoted(const Layout& layout) {
    return "'" + layout.to_string() + "'";
}

// The index of dimension `name` in the current data; throws naming the step when the layout has
// no such dimension or does not fit the rank.
size_t dim_index(const Current& cur, const std::string& name, const std::string& what,
                 const std::string& step) {
    const PartialShape& shape = cur.output.get_partial_shape();
    if (!shape.rank_is_static())
        throw_error<InvalidArgument>(what, ": ", step, ": the rank of the data is dynamic");
    if (!cur.layout.has_dim(name))
        throw_error<InvalidArgument>(
            what, ": ", step, ": the layout ", quoted(cur.layout), " has no '", name,
            "' dimension; set tensor().set_layout() (or model().set_layout())");
    if (!cur.layout.fits_rank(shape.size()))
        throw_error<InvalidArgument>(what, ": ", step, ": the layout ", quoted(cur.layout),
                                     " does not fit the data ", shape);
    return cur.layout.get_index(name, shape.size());
}

// The constant of `values` for mean/scale: a scalar, or [1,..,C,..,1] along the channel axis.
NodePtr per_channel_constant(const Current& cur, const std::vector<float>& values,
                             const std::string& what, const std::string& step) {
    const element::Type type = cur.output.get_element_type();
    if (values.empty()) throw_error<InvalidArgument>(what, ": ", step, ": no values given");
    if (!type.is_real())
        throw_error<InvalidArgument>(
            what, ": ", step, ": the data is ", type,
            ", not floating-point; add convert_element_type(f32) before it");
    if (values.size() == 1) return op::constant<float>(type, Shape{}, values);
    const size_t c =
        dim_index(cur, "C", what, step + " with " + std::to_string(values.size()) + " values");
    const PartialShape& shape = cur.output.get_partial_shape();
    const Dimension channels = shape[c];
    if (!channels.is_static() || static_cast<size_t>(channels.get_length()) != values.size())
        throw_error<InvalidArgument>(what, ": ", step, ": ", values.size(),
                                     " values given but the data ", shape, " has ", channels,
                                     " channels (axis ", c, " of layout ", quoted(cur.layout), ")");
    Shape const_shape(shape.size(), 1);
    const_shape[c] = values.size();
    return op::constant<float>(type, const_shape, values);
}

void resize(Current& cur, const PreprocessStep& step, const Target& target,
            const std::string& what) {
    const size_t h = dim_index(cur, "H", what, "resize");
    const size_t w = dim_index(cur, "W", what, "resize");
    std::pair<int64_t, int64_t> size;
    if (step.size) {
        size = {static_cast<int64_t>(step.size->first), static_cast<int64_t>(step.size->second)};
    } else {
        const Layout& ml = target.layout;
        if (!ml.has_dim("H") || !ml.has_dim("W") || !target.shape.rank_is_static() ||
            !ml.fits_rank(target.shape.size()))
            throw_error<InvalidArgument>(what, ": resize: the model's layout ", quoted(ml),
                                         " does not give H and W for its shape ", target.shape,
                                         "; set model().set_layout() or give resize() a size");
        const Dimension mh = target.shape[ml.get_index("H", target.shape.size())];
        const Dimension mw = target.shape[ml.get_index("W", target.shape.size())];
        if (!mh.is_static() || !mw.is_static())
            throw_error<InvalidArgument>(what, ": resize: the model's H and W are dynamic in ",
                                         target.shape, "; give resize() a size");
        size = {mh.get_length(), mw.get_length()};
    }
    if (size.first <= 0 || size.second <= 0)
        throw_error<InvalidArgument>(what, ": resize: the size ", size.first, "x", size.second,
                                     " is empty");
    op::InterpolateAttrs attrs;
    switch (step.algorithm) {
        case ResizeAlgorithm::kNearest:
            attrs.mode = "nearest";
            attrs.coordinate_transformation_mode = "asymmetric";
            attrs.nearest_mode = "floor";
            break;
        case ResizeAlgorithm::kLinear:
            attrs.mode = "linear_onnx";
            break;
        case ResizeAlgorithm::kCubic:
            attrs.mode = "cubic";  // the attributes' defaults: half_pixel, cube_coeff -0.75
            break;
        case ResizeAlgorithm::kBilinearPillow:
            attrs.mode = "bilinear_pillow";
            break;
        case ResizeAlgorithm::kBicubicPillow:
            attrs.mode = "bicubic_pillow";
            attrs.cube_coeff = -0.5;
            break;
        default:
            throw_error<InvalidArgument>(what, ": resize: unknown algorithm ",
                                         static_cast<int>(step.algorithm));
    }
    attrs.shape_calculation_mode = "sizes";
    cur.output =
        op::interpolate(cur.output, op::int64_vector({size.first, size.second}), attrs,
                        op::int64_vector({static_cast<int64_t>(h), static_cast<int64_t>(w)}));
}

void reverse_channels(Current& cur, const std::string& what) {
    const size_t c = dim_index(cur, "C", what, "reverse_channels");
    const Dimension channels = cur.output.get_partial_shape()[c];
    if (!channels.is_static())
        throw_error<InvalidArgument>(what, ": reverse_channels: the number of channels (axis ", c,
                                     ") is dynamic");
    std::vector<int64_t> order(static_cast<size_t>(channels.get_length()));
    std::iota(order.rbegin(), order.rend(), int64_t{0});
    cur.output =
        op::gather(cur.output, op::int64_vector(order), op::int64_scalar(static_cast<int64_t>(c)));
}

}  // namespace

void convert_type(Current& cur, element::Type type) {
    if (type.is_dynamic() || cur.output.get_element_type() == type) return;
    cur.output = op::convert(cur.output, type);
}

void convert_layout(Current& cur, const Layout& layout, const std::string& what,
                    const std::string& step) {
    if (layout.empty() || layout == cur.layout) {
        cur.layout = layout.empty() ? cur.layout : layout;
        return;
    }
    if (cur.layout.empty())
        throw_error<InvalidArgument>(what, ": ", step,
                                     ": the current layout is unknown; set tensor().set_layout()");
    const PartialShape& shape = cur.output.get_partial_shape();
    if (!shape.rank_is_static())
        throw_error<InvalidArgument>(what, ": ", step, ": the rank of the data is dynamic");
    const size_t rank = shape.size();
    if (!cur.layout.is_static() || !layout.is_static() || !cur.layout.fits_rank(rank) ||
        !layout.fits_rank(rank))
        throw_error<InvalidArgument>(
            what, ": ", step, " from ", quoted(cur.layout), " to ", quoted(layout),
            ": both layouts must name every dimension of the data ", shape);
    const auto from = cur.layout.names_for_rank(rank);
    const auto to = layout.names_for_rank(rank);
    std::vector<int64_t> order;
    for (const auto& name : to) {
        auto it = std::find(from.begin(), from.end(), name);
        if (name == "?" || it == from.end())
            throw_error<InvalidArgument>(what, ": ", step, " from ", quoted(cur.layout), " to ",
                                         quoted(layout), ": dimension '", name,
                                         "' of the target is not named in the source");
        order.push_back(it - from.begin());
    }
    std::vector<int64_t> identity(rank);
    std::iota(identity.begin(), identity.end(), int64_t{0});
    if (order != identity) cur.output = op::transpose(cur.output, op::int64_vector(order));
    cur.layout = layout;
}

void apply_step(Current& cur, const PreprocessStep& step, const Target& target,
                const std::string& what) {
    using Kind = PreprocessStep::Kind;
    switch (step.kind) {
        case Kind::kConvertElementType: {
            const element::Type type = step.type.is_dynamic() ? target.type : step.type;
            if (type.is_dynamic())
                throw_error<InvalidArgument>(
                    what, ": convert_element_type: no type given and the target's is unknown");
            convert_type(cur, type);
            return;
        }
        case Kind::kConvertLayout: {
            const Layout& layout = step.layout.empty() ? target.layout : step.layout;
            if (layout.empty())
                throw_error<InvalidArgument>(
                    what, ": convert_layout: no layout given and the target's is unknown");
            convert_layout(cur, layout, what, "convert_layout");
            return;
        }
        case Kind::kResize:
            resize(cur, step, target, what);
            return;
        case Kind::kMean:
            cur.output =
                op::subtract(cur.output, per_channel_constant(cur, step.values, what, "mean"));
            return;
        case Kind::kScale: {
            if (std::find(step.values.begin(), step.values.end(), 0.f) != step.values.end())
                throw_error<InvalidArgument>(what, ": scale: a scale of 0 would divide by zero");
            cur.output =
                op::divide(cur.output, per_channel_constant(cur, step.values, what, "scale"));
            return;
        }
        case Kind::kReverseChannels:
            reverse_channels(cur, what);
            return;
        case Kind::kCustom: {
            if (!step.custom) throw_error<InvalidArgument>(what, ": custom: the function is empty");
            Output out = step.custom(cur.output);
            if (!out)
                throw_error<InvalidArgument>(what,
                                             ": custom: the function returned an empty output");
            cur.output = out;
            return;
        }
    }
}

Layout layout_from_rt_info(const Output& port) {
    const auto& rt = port.get_rt_info();
    if (auto it = rt.find("layout"); it != rt.end()) return Layout(it->second.as<std::string>());
    const auto& node_rt = port.get_node()->get_rt_info();
    if (auto it = node_rt.find("layout"); it != node_rt.end())
        return Layout(it->second.as<std::string>());
    return {};
}

}  // namespace vireo::preprocess_impl
