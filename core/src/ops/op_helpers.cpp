// Implements the helpers shared by the op definitions: attribute shorthands, input checks,
// broadcasting of shapes, axis normalisation and the spatial arithmetic of convolution and pooling.
#include "ops/op_helpers.hpp"

#include <algorithm>
#include <cstdint>
#include <set>

#include "vireo/float16.hpp"

namespace vireo::ops_impl {

AttrSpec required_attr(const std::string& name, AttrType type, std::vector<std::string> choices) {
    return AttrSpec{name, type, std::nullopt, std::move(choices)};
}

AttrSpec optional_attr(const std::string& name, AttrType type, AttrValue default_value,
                       std::vector<std::string> choices) {
    return AttrSpec{name, type, std::move(default_value), std::move(choices)};
}

AttrSpec auto_broadcast_attr(const std::string& def) {
    return optional_attr("auto_broadcast", AttrType::kString, def, {"none", "numpy", "pdpd"});
}

std::string to_text(const std::vector<int64_t>& values) {
    std::string s = "[";
    for (size_t i = 0; i < values.size(); ++i) s += (i ? "," : "") + std::to_string(values[i]);
    return s + "]";
}

// ---- Input checks ----

element::Type merge_types(const Node& node, const Inputs& in, size_t a, size_t b) {
    element::Type out;
    if (!element::Type::merge(out, in[a].type, in[b].type))
        throw_error<InvalidArgument>(node.describe(), ": inputs ", a, " and ", b,
                                     " must have the same element type, got ", in[a].type, " and ",
                                     in[b].type);
    return out;
}

element::Type merge_types(const Node& node, const Inputs& in, const std::vector<size_t>& indices) {
    element::Type out = element::dynamic;
    size_t first = indices.empty() ? 0 : indices.front();
    for (size_t i : indices) {
        if (i >= in.size()) continue;
        element::Type merged;
        if (!element::Type::merge(merged, out, in[i].type))
            throw_error<InvalidArgument>(node.describe(), ": inputs ", first, " and ", i,
                                         " must have the same element type, got ", out, " and ",
                                         in[i].type);
        out = merged;
    }
    return out;
}

bool is_integral_number(element::Type t) {
    return t.is_integral_number();
}
bool is_real(element::Type t) {
    return t.is_real();
}
bool is_boolean(element::Type t) {
    return t == element::boolean;
}
bool is_numeric(element::Type t) {
    return t.is_static() && t != element::boolean;
}

void check_type(const Node& node, const Inputs& in, size_t i, const char* name,
                bool (*ok)(element::Type), const char* expected) {
    if (i >= in.size() || in[i].type.is_dynamic()) return;
    if (!ok(in[i].type))
        throw_error<InvalidArgument>(node.describe(), ": input ", i, " (", name, ") must be ",
                                     expected, ", got ", in[i].type);
}

std::optional<int64_t> static_rank(const InferInput& in) {
    if (!in.shape.rank_is_static()) return std::nullopt;
    return static_cast<int64_t>(in.shape.size());
}

void check_rank(const Node& node, const Inputs& in, size_t i, const char* name, int64_t min_rank,
                int64_t max_rank) {
    if (i >= in.size()) return;
    auto rank = static_rank(in[i]);
    if (!rank || (*rank >= min_rank && *rank <= max_rank)) return;
    if (min_rank == max_rank)
        throw_error<InvalidArgument>(node.describe(), ": input ", i, " (", name,
                                     ") must have rank ", min_rank, ", got shape ", in[i].shape);
    throw_error<InvalidArgument>(node.describe(), ": input ", i, " (", name, ") must have rank ",
                                 min_rank, "..", max_rank, ", got shape ", in[i].shape);
}

// ---- Values ----

std::optional<std::vector<int64_t>> values_of(const Inputs& in, size_t i) {
    if (i >= in.size()) return std::nullopt;
    return in[i].int_values();
}

namespace {
template <typename T>
std::vector<double> to_doubles(const Tensor& t) {
    const T* p = static_cast<const T*>(t.data());
    std::vector<double> out(t.get_size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(p[i]);
    return out;
}
}  // namespace

std::optional<std::vector<double>> real_values(const Inputs& in, size_t i) {
    if (i >= in.size() || !in[i].value) return std::nullopt;
    const Tensor& t = in[i].value;
    switch (t.get_element_type().id()) {
        case element::TypeId::f16: {
            std::vector<double> out(t.get_size());
            const auto* p = static_cast<const float16*>(t.data());
            for (size_t k = 0; k < out.size(); ++k) out[k] = static_cast<float>(p[k]);
            return out;
        }
        case element::TypeId::bf16: {
            std::vector<double> out(t.get_size());
            const auto* p = static_cast<const bfloat16*>(t.data());
            for (size_t k = 0; k < out.size(); ++k) out[k] = static_cast<float>(p[k]);
            return out;
        }
        case element::TypeId::f32:
            return to_doubles<float>(t);
        case element::TypeId::f64:
            return to_doubles<double>(t);
        default:
            break;
    }
    auto ints = in[i].int_values();
    if (!ints) return std::nullopt;
    return std::vector<double>(ints->begin(), ints->end());
}

std::optional<int64_t> scalar_value(const Node& node, const Inputs& in, size_t i,
                                    const char* name) {
    auto values = values_of(in, i);
    if (!values) return std::nullopt;
    if (values->size() != 1)
        throw_error<InvalidArgument>(node.describe(), ": input ", i, " (", name,
                                     ") must hold one value, got ", values->size());
    return values->front();
}

std::optional<int64_t> static_length(const InferInput& in) {
    if (!in.shape.rank_is_static()) return std::nullopt;
    if (in.shape.size() == 0) return 1;
    if (in.shape.size() != 1 || in.shape[0].is_dynamic()) return std::nullopt;
    return in.shape[0].get_length();
}

PartialShape shape_from_values(const Node& node, const Inputs& in, size_t i, const char* name) {
    check_rank(node, in, i, name, 1, 1);
    if (auto values = values_of(in, i)) {
        for (int64_t v : *values)
            if (v < 0)
                throw_error<InvalidArgument>(node.describe(), ": input ", i, " (", name,
                                             ") must hold non-negative dimensions, got ",
                                             to_text(*values));
        return PartialShape(*values);
    }
    if (auto length = static_length(in[i]))
        return PartialShape::dynamic(static_cast<size_t>(*length));
    return PartialShape::dynamic();
}

// ---- Axes ----

size_t normalize_axis(const Node& node, int64_t axis, int64_t rank, const char* what) {
    if (axis < -rank || axis >= rank)
        throw_error<InvalidArgument>(node.describe(), ": ", what, " ", axis, " is out of range [",
                                     -rank, ", ", rank - 1, "] for rank ", rank);
    return static_cast<size_t>(axis < 0 ? axis + rank : axis);
}

std::vector<size_t> normalize_axes(const Node& node, const std::vector<int64_t>& axes, int64_t rank,
                                   const char* what, bool allow_repeats) {
    std::vector<size_t> out;
    std::set<size_t> seen;
    for (int64_t a : axes) {
        const size_t n = normalize_axis(node, a, rank, what);
        if (!seen.insert(n).second && !allow_repeats)
            throw_error<InvalidArgument>(node.describe(), ": ", what, " ", to_text(axes),
                                         " repeats axis ", n);
        out.push_back(n);
    }
    return out;
}

// ---- Broadcasting ----

namespace {

// PDPD broadcast (axis -1): `src` (trailing 1s removed) is aligned to the end of `dst`; each of its
// dims must be 1 or match. The result has dst's rank.
bool pdpd_broadcast(PartialShape& dst, const PartialShape& src) {
    if (!dst.rank_is_static()) return true;
    if (!src.rank_is_static()) return true;
    const size_t dst_rank = dst.size();
    size_t src_len = src.size();
    if (src_len > dst_rank) return false;
    const size_t axis = dst_rank - src_len;
    while (src_len > 0 && src[src_len - 1].is_static() && src[src_len - 1].get_length() == 1)
        --src_len;
    for (size_t i = 0; i < src_len; ++i) {
        const Dimension& s = src[i];
        if (s.is_static() && s.get_length() == 1) continue;
        Dimension merged;
        if (!Dimension::merge(merged, dst[axis + i], s)) return false;
        // A dynamic src dim may still be 1 at run time; keep dst's dim then.
        if (s.is_static()) dst[axis + i] = merged;
    }
    return true;
}

}  // namespace

PartialShape broadcast_shapes(const Node& node, const PartialShape& a, const PartialShape& b,
                              const std::string& mode) {
    PartialShape out = a;
    bool ok = true;
    if (mode == "none") {
        ok = PartialShape::merge_into(out, b);
    } else if (mode == "numpy") {
        ok = PartialShape::broadcast_merge_into(out, b);
    } else if (mode == "pdpd") {
        ok = pdpd_broadcast(out, b);
    } else {
        throw_error<InvalidArgument>(node.describe(), ": auto_broadcast '", mode,
                                     "' is not supported (expected none, numpy or pdpd)");
    }
    if (!ok)
        throw_error<InvalidArgument>(node.describe(), ": shapes ", a, " and ", b,
                                     " cannot be broadcast with auto_broadcast '", mode, "'");
    return out;
}

PartialShape numpy_broadcast(const Node& node, const std::vector<PartialShape>& shapes) {
    if (shapes.empty()) return PartialShape();
    PartialShape out = shapes.front();
    for (size_t i = 1; i < shapes.size(); ++i)
        out = broadcast_shapes(node, out, shapes[i], "numpy");
    return out;
}

// ---- Windows ----

Dimension window_output_dim(const Node& node, const WindowAxis& w, const std::string& auto_pad,
                            WindowRounding rounding) {
    // Bounded so that the arithmetic below cannot overflow (pads of INT64_MAX gave garbage
    // dimensions through signed overflow); negative pads are not part of these ops.
    constexpr int64_t kMaxWindowValue = INT32_MAX;
    if (w.stride <= 0 || w.dilation <= 0 || w.window <= 0 || w.stride > kMaxWindowValue ||
        w.dilation > kMaxWindowValue || w.window > kMaxWindowValue)
        throw_error<InvalidArgument>(node.describe(), ": window ", w.window, ", stride ", w.stride,
                                     " and dilation ", w.dilation, " must all be in 1..",
                                     kMaxWindowValue);
    if (w.pad_begin < 0 || w.pad_end < 0 || w.pad_begin > kMaxWindowValue ||
        w.pad_end > kMaxWindowValue)
        throw_error<InvalidArgument>(node.describe(), ": pads_begin ", w.pad_begin,
                                     " and pads_end ", w.pad_end, " must be in 0..",
                                     kMaxWindowValue);
    const int64_t dilated = (w.window - 1) * w.dilation + 1;
    const bool same = auto_pad == "same_upper" || auto_pad == "same_lower";
    const bool valid = auto_pad == "valid";
    const int64_t pads = valid || same ? 0 : w.pad_begin + w.pad_end;
    // Output size for one input size; nullopt when the window does not fit.
    auto out_for = [&](int64_t in) -> std::optional<int64_t> {
        if (same) return (in + w.stride - 1) / w.stride;
        int64_t padded = 0;
        if (__builtin_add_overflow(in, pads, &padded))
            throw_error<InvalidArgument>(node.describe(), ": input size ", in, " plus pads ", pads,
                                         " overflows");
        if (padded < dilated) return std::nullopt;
        // OpenVINO's "ceil" is a plain ceiling; "ceil_torch" drops a last window that would start
        // in the end padding (PyTorch's ceil_mode: k 4, s 3, pads 2+2 on 13 give 5, not 6).
        if (rounding == WindowRounding::kFloor) return (padded - dilated) / w.stride + 1;
        int64_t out = (padded - dilated + w.stride - 1) / w.stride + 1;
        if (rounding == WindowRounding::kCeilTorch && out > 1 &&
            (out - 1) * w.stride >= in + w.pad_begin)
            --out;
        return out;
    };
    if (w.input.is_static()) {
        auto out = out_for(w.input.get_length());
        if (!out)
            throw_error<InvalidArgument>(node.describe(), ": window of size ", dilated, " (kernel ",
                                         w.window, ", dilation ", w.dilation,
                                         ") does not fit input size ", w.input.get_length(),
                                         " with pads ", pads);
        return Dimension(*out);
    }
    auto lo = out_for(w.input.get_min_length());
    const int64_t min = lo ? *lo : 0;
    if (!w.input.is_bounded()) return Dimension(min, Dimension::kInfinity);
    auto hi = out_for(w.input.get_max_length());
    if (!hi)
        throw_error<InvalidArgument>(node.describe(), ": window of size ", dilated,
                                     " does not fit input size ", w.input, " with pads ", pads);
    return Dimension(min, std::max(min, *hi));
}

void check_attr_length(const Node& node, const std::vector<int64_t>& values, size_t count,
                       const char* attr, bool allow_empty) {
    if (values.size() == count || (allow_empty && values.empty())) return;
    throw_error<InvalidArgument>(node.describe(), ": attribute '", attr, "' must have ", count,
                                 " values (one per spatial axis), got ", to_text(values));
}

std::vector<int64_t> int_list_or(const Node& node, const char* name, size_t count, int64_t fill) {
    const auto& values = node.get_attribute<std::vector<int64_t>>(name);
    if (values.empty()) return std::vector<int64_t>(count, fill);
    check_attr_length(node, values, count, name);
    return values;
}

void check_scalar_input(const Node& node, const Inputs& in, size_t i, const char* name) {
    if (i >= in.size()) return;
    const PartialShape& s = in[i].shape;
    if (!s.rank_is_static()) return;
    bool one = s.size() <= 1;
    for (const auto& d : s)
        if (!d.compatible(1)) one = false;
    if (!one)
        throw_error<InvalidArgument>(node.describe(), ": input ", i, " (", name,
                                     ") must be a scalar, got shape ", s);
}

}  // namespace vireo::ops_impl
