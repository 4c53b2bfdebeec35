// Defines the ops that cut a tensor into parts: Split-1, VariadicSplit-1, StridedSlice-1 (begin,
// end, new-axis, shrink-axis and ellipsis masks) and Slice-8.
#include <algorithm>

#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

// Length of python-style slice [begin:end:step] of a static size; an unset begin/end (masked)
// means "from the start / to the end" in the direction of step.
int64_t slice_length(int64_t size, std::optional<int64_t> begin, std::optional<int64_t> end,
                     int64_t step) {
    auto clamp = [&](int64_t v) {
        if (v < 0) v += size;
        return step > 0 ? std::clamp<int64_t>(v, 0, size) : std::clamp<int64_t>(v, -1, size - 1);
    };
    const int64_t b = begin ? clamp(*begin) : (step > 0 ? 0 : size - 1);
    const int64_t e = end ? clamp(*end) : (step > 0 ? size : -1);
    if (step > 0) return e > b ? (e - b + step - 1) / step : 0;
    return b > e ? (b - e + (-step) - 1) / (-step) : 0;
}

// The sliced dimension for a possibly dynamic input dimension. Unknown begin/end/step give
// [0, max of input].
Dimension slice_dim(const Node& node, const Dimension& dim, std::optional<int64_t> begin,
                    bool begin_known, std::optional<int64_t> end, bool end_known,
                    std::optional<int64_t> step) {
    if (step && *step == 0)
        throw_error<InvalidArgument>(node.describe(), ": a slice step must not be 0");
    if (!begin_known || !end_known || !step) return Dimension(0, dim.get_max_length());
    if (dim.is_static()) return Dimension(slice_length(dim.get_length(), begin, end, *step));
    int64_t lo = slice_length(dim.get_min_length(), begin, end, *step);
    int64_t hi;
    if (dim.is_bounded()) {
        hi = slice_length(dim.get_max_length(), begin, end, *step);
    } else {
        // Unbounded input: bounded output only when the length stops depending on the size.
        constexpr int64_t kLarge = int64_t{1} << 40;
        const int64_t a = slice_length(kLarge, begin, end, *step);
        hi = a == slice_length(kLarge + 1, begin, end, *step) ? a : Dimension::kInfinity;
    }
    if (lo > hi) std::swap(lo, hi);
    return Dimension(lo, hi);
}

Outputs infer_split(const Node& node, const Inputs& in) {
    check_type(node, in, 1, "axis", is_integral_number, "an integer type");
    check_rank(node, in, 1, "axis", 0, 0);
    const int64_t parts = node.get_attribute<int64_t>("num_splits");
    if (parts <= 0)
        throw_error<InvalidArgument>(node.describe(), ": num_splits must be positive, got ", parts);
    PartialShape out = in[0].shape;
    auto axis = scalar_value(node, in, 1, "axis");
    if (out.rank_is_static()) {
        if (!axis) {
            out = PartialShape::dynamic(out.size());
        } else {
            const size_t a = normalize_axis(node, *axis, static_cast<int64_t>(out.size()), "axis");
            const Dimension& d = out[a];
            if (d.is_static()) {
                if (d.get_length() % parts != 0)
                    throw_error<InvalidArgument>(node.describe(), ": dimension ", d, " of axis ", a,
                                                 " of data ", in[0].shape,
                                                 " is not divisible by num_splits ", parts);
                out[a] = Dimension(d.get_length() / parts);
            } else {
                out[a] =
                    Dimension(d.get_min_length() / parts,
                              d.is_bounded() ? d.get_max_length() / parts : Dimension::kInfinity);
            }
        }
    }
    return Outputs(static_cast<size_t>(parts), InferOutput{in[0].type, out});
}

Outputs infer_variadic_split(const Node& node, const Inputs& in) {
    check_type(node, in, 1, "axis", is_integral_number, "an integer type");
    check_rank(node, in, 1, "axis", 0, 0);
    check_type(node, in, 2, "split_lengths", is_integral_number, "an integer type");
    check_rank(node, in, 2, "split_lengths", 1, 1);
    auto count = static_length(in[2]);
    if (!count)
        throw_error<InvalidArgument>(
            node.describe(), ": input 2 (split_lengths) must have a static length (it sets ",
            "the number of outputs), got shape ", in[2].shape);
    const PartialShape& data = in[0].shape;
    auto axis = scalar_value(node, in, 1, "axis");
    auto lengths = values_of(in, 2);
    Outputs out(static_cast<size_t>(*count), InferOutput{in[0].type, data});
    if (!data.rank_is_static()) return out;
    if (!axis) {
        for (auto& o : out) o.shape = PartialShape::dynamic(data.size());
        return out;
    }
    const size_t a = normalize_axis(node, *axis, static_cast<int64_t>(data.size()), "axis");
    if (!lengths) {
        for (auto& o : out) o.shape[a] = Dimension(0, data[a].get_max_length());
        return out;
    }
    int64_t known_sum = 0;
    std::optional<size_t> minus_one;
    for (size_t i = 0; i < lengths->size(); ++i) {
        const int64_t v = (*lengths)[i];
        if (v == -1 && !minus_one) {
            minus_one = i;
        } else if (v < 0) {
            throw_error<InvalidArgument>(node.describe(), ": split_lengths ", to_text(*lengths),
                                         " may hold non-negative values and at most one -1");
        } else {
            known_sum += v;
            out[i].shape[a] = Dimension(v);
        }
    }
    const Dimension& d = data[a];
    if (minus_one) {
        out[*minus_one].shape[a] = d - Dimension(known_sum);
        if (d.is_static() && d.get_length() < known_sum)
            throw_error<InvalidArgument>(node.describe(), ": split_lengths ", to_text(*lengths),
                                         " sum to more than ", "dimension ", d, " of axis ", a);
    } else if (!d.compatible(known_sum)) {
        throw_error<InvalidArgument>(node.describe(), ": split_lengths ", to_text(*lengths),
                                     " sum to ", known_sum, " but axis ", a, " of data ", data,
                                     " has ", d);
    }
    return out;
}

bool bit(const std::vector<int64_t>& mask, size_t i) {
    return i < mask.size() && mask[i] != 0;
}

Outputs infer_strided_slice(const Node& node, const Inputs& in) {
    for (size_t i = 1; i < in.size(); ++i) {
        check_type(node, in, i,
                   i == 1   ? "begin"
                   : i == 2 ? "end"
                            : "stride",
                   is_integral_number, "an integer type");
        check_rank(node, in, i, i == 1 ? "begin" : i == 2 ? "end" : "stride", 1, 1);
    }
    const auto& begin_mask = node.get_attribute<std::vector<int64_t>>("begin_mask");
    const auto& end_mask = node.get_attribute<std::vector<int64_t>>("end_mask");
    const auto& new_axis_mask = node.get_attribute<std::vector<int64_t>>("new_axis_mask");
    const auto& shrink_mask = node.get_attribute<std::vector<int64_t>>("shrink_axis_mask");
    const auto& ellipsis_mask = node.get_attribute<std::vector<int64_t>>("ellipsis_mask");
    const PartialShape& data = in[0].shape;
    auto begin = values_of(in, 1);
    auto end = values_of(in, 2);
    auto stride = in.size() > 3 ? values_of(in, 3) : std::nullopt;
    // Number of slice entries: from whichever of begin/end/stride says so.
    std::optional<int64_t> entries;
    for (size_t i = 1; i < in.size() && !entries; ++i) entries = static_length(in[i]);
    if (!data.rank_is_static() || !entries) return {{in[0].type, PartialShape::dynamic()}};
    for (size_t i = 1; i < in.size(); ++i)
        if (auto n = static_length(in[i]); n && *n != *entries)
            throw_error<InvalidArgument>(
                node.describe(), ": begin, end and stride must have the same length, got shapes ",
                in[1].shape, ", ", in[2].shape,
                in.size() > 3 ? ", " + in[3].shape.to_string() : "");
    const size_t n = static_cast<size_t>(*entries);
    const size_t rank = data.size();
    size_t consuming = 0;  // entries that take an input axis (not new-axis, not ellipsis)
    size_t ellipses = 0;
    for (size_t i = 0; i < n; ++i) {
        if (bit(ellipsis_mask, i)) {
            ++ellipses;
        } else if (!bit(new_axis_mask, i)) {
            ++consuming;
        }
    }
    if (ellipses > 1)
        throw_error<InvalidArgument>(node.describe(), ": ellipsis_mask ", to_text(ellipsis_mask),
                                     " sets more than one bit");
    if (consuming > rank)
        throw_error<InvalidArgument>(node.describe(), ": ", consuming,
                                     " slice entries need input axes but data ", data, " has rank ",
                                     rank);
    PartialShape out;
    size_t axis = 0;
    for (size_t i = 0; i < n; ++i) {
        if (bit(ellipsis_mask, i)) {
            for (size_t k = 0; k < rank - consuming; ++k) out.push_back(data[axis++]);
            continue;
        }
        if (bit(new_axis_mask, i)) {
            out.push_back(1);
            continue;
        }
        const Dimension& d = data[axis++];
        const std::optional<int64_t> step =
            stride ? std::optional<int64_t>((*stride)[i]) : std::nullopt;
        const bool stride_known = in.size() <= 3 || stride.has_value();
        if (bit(shrink_mask, i)) {
            if (begin && d.is_static()) {
                const int64_t b = (*begin)[i], size = d.get_length();
                if (b < -size || b >= size)
                    throw_error<InvalidArgument>(node.describe(), ": shrink_axis_mask takes index ",
                                                 b, " of axis ", axis - 1, " but its size is ",
                                                 size);
            }
            continue;
        }
        const bool masked_begin = bit(begin_mask, i), masked_end = bit(end_mask, i);
        out.push_back(slice_dim(
            node, d, masked_begin || !begin ? std::nullopt : std::optional<int64_t>((*begin)[i]),
            masked_begin || begin.has_value(),
            masked_end || !end ? std::nullopt : std::optional<int64_t>((*end)[i]),
            masked_end || end.has_value(),
            stride_known ? std::optional<int64_t>(step.value_or(1)) : std::nullopt));
    }
    while (axis < rank) out.push_back(data[axis++]);
    return {{in[0].type, out}};
}

Outputs infer_slice(const Node& node, const Inputs& in) {
    const char* names[] = {"data", "start", "stop", "step", "axes"};
    for (size_t i = 1; i < in.size(); ++i) {
        check_type(node, in, i, names[i], is_integral_number, "an integer type");
        check_rank(node, in, i, names[i], 1, 1);
    }
    const PartialShape& data = in[0].shape;
    if (!data.rank_is_static()) return {{in[0].type, PartialShape::dynamic()}};
    const int64_t rank = static_cast<int64_t>(data.size());
    auto start = values_of(in, 1);
    auto stop = values_of(in, 2);
    auto step = values_of(in, 3);
    std::optional<std::vector<int64_t>> axes;
    if (in.size() > 4) {
        axes = values_of(in, 4);
    } else if (auto len = static_length(in[1])) {
        axes = std::vector<int64_t>(static_cast<size_t>(*len));
        for (size_t i = 0; i < axes->size(); ++i) (*axes)[i] = static_cast<int64_t>(i);
    }
    PartialShape out = data;
    if (!axes) {
        for (size_t i = 0; i < data.size(); ++i) out[i] = Dimension(0, data[i].get_max_length());
        return {{in[0].type, out}};
    }
    const auto normalized = normalize_axes(node, *axes, rank, "axes");
    for (const auto* v : {&start, &stop, &step})
        if (*v && (*v)->size() != normalized.size())
            throw_error<InvalidArgument>(
                node.describe(), ": start, stop, step and axes must have the same length, got ",
                (*v)->size(), " and ", normalized.size());
    for (size_t i = 0; i < normalized.size(); ++i) {
        const size_t a = normalized[i];
        out[a] =
            slice_dim(node, data[a], start ? std::optional<int64_t>((*start)[i]) : std::nullopt,
                      start.has_value(), stop ? std::optional<int64_t>((*stop)[i]) : std::nullopt,
                      stop.has_value(), step ? std::optional<int64_t>((*step)[i]) : std::nullopt);
    }
    return {{in[0].type, out}};
}

}  // namespace

void register_slicing_ops(OpRegistry& r) {
    r.add(OpDef{
        "Split", 1, "", 2, 2, {required_attr("num_splits", AttrType::kInt)}, infer_split, {}});
    r.add(OpDef{"VariadicSplit", 1, "", 3, 3, {}, infer_variadic_split, {}});
    const std::vector<int64_t> none;
    r.add(OpDef{"StridedSlice",
                1,
                "",
                3,
                4,
                {required_attr("begin_mask", AttrType::kIntList),
                 required_attr("end_mask", AttrType::kIntList),
                 optional_attr("new_axis_mask", AttrType::kIntList, none),
                 optional_attr("shrink_axis_mask", AttrType::kIntList, none),
                 optional_attr("ellipsis_mask", AttrType::kIntList, none)},
                infer_strided_slice,
                {}});
    r.add(OpDef{"Slice", 8, "", 4, 5, {}, infer_slice, {}});
}

}  // namespace vireo::ops_impl
