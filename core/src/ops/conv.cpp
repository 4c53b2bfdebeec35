// Defines MatMul and the convolution family: Convolution-1, GroupConvolution-1 and
// ConvolutionBackpropData-1, with auto_pad, strides, dilations and (for the latter) output_padding.
#include <cstdint>

#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

const std::vector<std::string> kAutoPad{"explicit", "notset", "valid", "same_upper", "same_lower"};

Outputs infer_matmul(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, 0, 1);
    check_type(node, in, 0, "A", is_numeric, "a number type (not boolean)");
    PartialShape a = in[0].shape;
    PartialShape b = in[1].shape;
    if (!a.rank_is_static() || !b.rank_is_static()) return {{type, PartialShape::dynamic()}};
    if (a.size() == 0 || b.size() == 0)
        throw_error<InvalidArgument>(node.describe(), ": inputs must have rank >= 1, got shapes ",
                                     a, " and ", b);
    // A 1-D input is a row (A) or a column (B) vector, and transposition does not apply to it; the
    // added axis is removed from the output.
    const bool a_vector = a.size() == 1;
    const bool b_vector = b.size() == 1;
    if (a_vector) a.insert(0, 1);
    if (b_vector) b.push_back(1);
    const size_t ra = a.size(), rb = b.size();
    if (!a_vector && node.get_attribute<bool>("transpose_a")) std::swap(a[ra - 1], a[ra - 2]);
    if (!b_vector && node.get_attribute<bool>("transpose_b")) std::swap(b[rb - 1], b[rb - 2]);
    Dimension k;
    if (!Dimension::merge(k, a[ra - 1], b[rb - 2]))
        throw_error<InvalidArgument>(
            node.describe(), ": the inner dimensions do not match: A ", in[0].shape, " and B ",
            in[1].shape, " give K = ", a[ra - 1], " vs ", b[rb - 2],
            " (transpose_a=", node.get_attribute<bool>("transpose_a"),
            ", transpose_b=", node.get_attribute<bool>("transpose_b"), ")");
    PartialShape batch_a(std::vector<Dimension>(a.begin(), a.end() - 2));
    PartialShape batch_b(std::vector<Dimension>(b.begin(), b.end() - 2));
    PartialShape out = broadcast_shapes(node, batch_a, batch_b, "numpy");
    if (!a_vector) out.push_back(a[ra - 2]);
    if (!b_vector) out.push_back(b[rb - 1]);
    return {{type, out}};
}

struct ConvAttrs {
    std::vector<int64_t> strides, dilations, pads_begin, pads_end;
    std::string auto_pad;
};

ConvAttrs read_conv_attrs(const Node& node, size_t spatial) {
    ConvAttrs a;
    a.strides = node.get_attribute<std::vector<int64_t>>("strides");
    a.dilations = node.get_attribute<std::vector<int64_t>>("dilations");
    a.pads_begin = node.get_attribute<std::vector<int64_t>>("pads_begin");
    a.pads_end = node.get_attribute<std::vector<int64_t>>("pads_end");
    a.auto_pad = node.get_attribute<std::string>("auto_pad");
    check_attr_length(node, a.strides, spatial, "strides");
    check_attr_length(node, a.dilations, spatial, "dilations");
    // With auto_pad other than explicit the pads are computed, so their attributes may be empty.
    const bool computed = a.auto_pad != "explicit" && a.auto_pad != "notset";
    check_attr_length(node, a.pads_begin, spatial, "pads_begin", computed);
    check_attr_length(node, a.pads_end, spatial, "pads_end", computed);
    if (a.pads_begin.empty()) a.pads_begin.assign(spatial, 0);
    if (a.pads_end.empty()) a.pads_end.assign(spatial, 0);
    // Range checks here cover the backprop-data shape too (window_output_dim checks the rest).
    auto check_range = [&](const std::vector<int64_t>& values, const char* attr, int64_t lo) {
        for (const int64_t v : values)
            if (v < lo || v > INT32_MAX)
                throw_error<InvalidArgument>(node.describe(), ": attribute '", attr, "' ",
                                             to_text(values), " must hold values in ", lo, "..",
                                             INT32_MAX);
    };
    check_range(a.strides, "strides", 1);
    check_range(a.dilations, "dilations", 1);
    check_range(a.pads_begin, "pads_begin", 0);
    check_range(a.pads_end, "pads_end", 0);
    return a;
}

// Spatial rank from data (N, C, ...) and filter (filter_lead leading non-spatial axes); nullopt
// when both ranks are dynamic.
std::optional<size_t> spatial_rank(const Node& node, const Inputs& in, size_t filter_lead) {
    check_rank(node, in, 0, "data", 3, 5);
    auto data_rank = static_rank(in[0]);
    auto filter_rank = static_rank(in[1]);
    const int64_t lead = static_cast<int64_t>(filter_lead);
    if (data_rank && filter_rank && *data_rank + lead - 2 != *filter_rank)
        throw_error<InvalidArgument>(
            node.describe(), ": data ", in[0].shape, " and filter ", in[1].shape,
            " do not agree on the number of spatial axes (filter must have rank ",
            *data_rank + lead - 2, ")");
    if (data_rank) return static_cast<size_t>(*data_rank - 2);
    if (filter_rank) return static_cast<size_t>(*filter_rank - filter_lead);
    return std::nullopt;
}

Dimension dim_or_dynamic(const PartialShape& s, size_t i) {
    return s.rank_is_static() && i < s.size() ? s[i] : Dimension();
}

// Output (N, out_channels, spatial...) of a forward convolution whose kernel sizes start at
// filter axis `filter_lead`.
PartialShape conv_forward_shape(const Node& node, const Inputs& in, size_t spatial,
                                size_t filter_lead, const Dimension& out_channels) {
    const ConvAttrs a = read_conv_attrs(node, spatial);
    PartialShape out{dim_or_dynamic(in[0].shape, 0), out_channels};
    for (size_t i = 0; i < spatial; ++i) {
        const Dimension k = dim_or_dynamic(in[1].shape, filter_lead + i);
        const Dimension x = dim_or_dynamic(in[0].shape, 2 + i);
        if (k.is_dynamic()) {
            out.push_back(a.auto_pad == "same_upper" || a.auto_pad == "same_lower"
                              ? window_output_dim(node, {x, 1, a.strides[i], 1, 0, 0}, a.auto_pad)
                              : Dimension());
            continue;
        }
        WindowAxis w{
            x, k.get_length(), a.strides[i], a.dilations[i], a.pads_begin[i], a.pads_end[i]};
        out.push_back(window_output_dim(node, w, a.auto_pad));
    }
    return out;
}

Outputs infer_convolution(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, 0, 1);
    auto spatial = spatial_rank(node, in, 2);
    if (!spatial) return {{type, PartialShape::dynamic()}};
    const Dimension c_in = dim_or_dynamic(in[0].shape, 1);
    const Dimension w_in = dim_or_dynamic(in[1].shape, 1);
    if (!c_in.compatible(w_in))
        throw_error<InvalidArgument>(node.describe(), ": data channels (", c_in, " in ",
                                     in[0].shape, ") do not match filter input channels (", w_in,
                                     " in ", in[1].shape, ")");
    return {{type, conv_forward_shape(node, in, *spatial, 2, dim_or_dynamic(in[1].shape, 0))}};
}

Outputs infer_group_convolution(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, 0, 1);
    auto spatial = spatial_rank(node, in, 3);
    if (!spatial) return {{type, PartialShape::dynamic()}};
    // filter: [GROUPS, C_OUT/GROUPS, C_IN/GROUPS, k...]
    const Dimension groups = dim_or_dynamic(in[1].shape, 0);
    const Dimension c_in = dim_or_dynamic(in[0].shape, 1);
    const Dimension w_in = dim_or_dynamic(in[1].shape, 2);
    if (!c_in.compatible(groups * w_in))
        throw_error<InvalidArgument>(node.describe(), ": data channels (", c_in, " in ",
                                     in[0].shape, ") must equal groups x filter input channels (",
                                     groups, " x ", w_in, " from ", in[1].shape, ")");
    return {
        {type, conv_forward_shape(node, in, *spatial, 3, groups * dim_or_dynamic(in[1].shape, 1))}};
}

Outputs infer_conv_backprop(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, 0, 1);
    auto spatial = spatial_rank(node, in, 2);
    if (!spatial && in.size() > 2) {
        if (auto len = static_length(in[2])) spatial = static_cast<size_t>(*len);
    }
    // filter: [C_IN, C_OUT, k...]
    const Dimension c_in = dim_or_dynamic(in[0].shape, 1);
    const Dimension w_in = dim_or_dynamic(in[1].shape, 0);
    if (!c_in.compatible(w_in))
        throw_error<InvalidArgument>(node.describe(), ": data channels (", c_in, " in ",
                                     in[0].shape, ") do not match filter dimension 0 (", w_in,
                                     " in ", in[1].shape, ")");
    if (!spatial) return {{type, PartialShape::dynamic()}};
    const size_t n = *spatial;
    const ConvAttrs a = read_conv_attrs(node, n);
    const std::vector<int64_t> output_padding = int_list_or(node, "output_padding", n, 0);
    PartialShape out{dim_or_dynamic(in[0].shape, 0), dim_or_dynamic(in[1].shape, 1)};
    if (in.size() > 2) {
        check_rank(node, in, 2, "output_shape", 1, 1);
        if (auto len = static_length(in[2]); len && *len != static_cast<int64_t>(n))
            throw_error<InvalidArgument>(node.describe(), ": input 2 (output_shape) must have ", n,
                                         " values (one per spatial axis), got shape ", in[2].shape);
        if (auto values = values_of(in, 2)) {
            for (int64_t v : *values) out.push_back(Dimension(v));
        } else {
            for (size_t i = 0; i < n; ++i) out.push_back(Dimension());
        }
        return {{type, out}};
    }
    // Without output_shape: valid and same_* use zero pads.
    const bool explicit_pads = a.auto_pad == "explicit" || a.auto_pad == "notset";
    for (size_t i = 0; i < n; ++i) {
        const Dimension x = dim_or_dynamic(in[0].shape, 2 + i);
        const Dimension k = dim_or_dynamic(in[1].shape, 2 + i);
        if (x.is_dynamic() || k.is_dynamic()) {
            out.push_back(Dimension());
            continue;
        }
        const int64_t pads = explicit_pads ? a.pads_begin[i] + a.pads_end[i] : 0;
        const int64_t size = a.strides[i] * (x.get_length() - 1) +
                             (k.get_length() - 1) * a.dilations[i] + 1 - pads + output_padding[i];
        if (size < 0)
            throw_error<InvalidArgument>(node.describe(), ": spatial axis ", i,
                                         " gives a negative output size ", size);
        out.push_back(Dimension(size));
    }
    return {{type, out}};
}

std::vector<AttrSpec> conv_attrs() {
    return {required_attr("strides", AttrType::kIntList),
            required_attr("pads_begin", AttrType::kIntList),
            required_attr("pads_end", AttrType::kIntList),
            required_attr("dilations", AttrType::kIntList),
            optional_attr("auto_pad", AttrType::kString, std::string("explicit"), kAutoPad)};
}

}  // namespace

void register_matmul_conv_ops(OpRegistry& r) {
    r.add(OpDef{"MatMul",
                1,
                "",
                2,
                2,
                {optional_attr("transpose_a", AttrType::kBool, false),
                 optional_attr("transpose_b", AttrType::kBool, false)},
                infer_matmul,
                {}});
    r.add(OpDef{"Convolution", 1, "", 2, 2, conv_attrs(), infer_convolution, {}});
    r.add(OpDef{"GroupConvolution", 1, "", 2, 2, conv_attrs(), infer_group_convolution, {}});
    auto backprop = conv_attrs();
    backprop.push_back(optional_attr("output_padding", AttrType::kIntList, std::vector<int64_t>{}));
    r.add(OpDef{
        "ConvolutionBackpropData", 1, "", 2, 3, std::move(backprop), infer_conv_backprop, {}});
}

}  // namespace vireo::ops_impl
