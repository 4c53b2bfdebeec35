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
    if (auto length = static_length(in[i])) {
        std::vector<Dimension> dims(static_cast<size_t>(*length));
        if (i < node.get_input_size())
            if (auto partial = partial_values(node.input_value(i));
                partial && partial->size() == dims.size())
                for (size_t k = 0; k < dims.size(); ++k)
                    if ((*partial)[k] && *(*partial)[k] >= 0) dims[k] = Dimension(*(*partial)[k]);
        return PartialShape(dims);
    }
    return PartialShape::dynamic();
}

namespace {

using Partial = std::vector<PartialElement>;

constexpr size_t kPartialElements = 16;
constexpr int kPartialDepth = 10;
// Producers one partial_dims call may look at: shape arithmetic is a few dozen ops; a graph
// built to branch at every level (a hostile model) stops here instead of costing 2^depth.
constexpr int kPartialVisits = 256;

// The walk's limits: producers left to look at on this path (depth) and in all (visits).
struct Walk {
    int visits = kPartialVisits;
};

PartialElement known(int64_t v) {
    PartialElement e;
    e.value = v;
    return e;
}

std::optional<Partial> partial_at(const Output& port, int depth, Walk& walk);

// A port whose every element partial_at knows.
std::optional<std::vector<int64_t>> known_at(const Output& port, int depth, Walk& walk) {
    auto p = partial_at(port, depth, walk);
    if (!p) return std::nullopt;
    std::vector<int64_t> v;
    for (const auto& e : *p) {
        if (!e.value) return std::nullopt;
        v.push_back(*e.value);
    }
    return v;
}

// One element of a binary op's result from its operands' elements.
PartialElement combine(const std::string& type, const PartialElement& x, const PartialElement& y) {
    if (x.value && y.value) {
        const int64_t a = *x.value, b = *y.value;
        if (type == "Add") return known(a + b);
        if (type == "Subtract") return known(a - b);
        if (type == "Multiply") return known(a * b);
        if (type == "Divide") return b != 0 && a % b == 0 ? known(a / b) : PartialElement{};
        if (type == "Equal") return known(a == b);
        return {};
    }
    // A dimension stays itself through x * 1, x + 0 and x - 0 ...
    const bool xs = x.symbolic(), ys = y.symbolic();
    if ((type == "Multiply" && ys && x.value == 1) || (type == "Add" && ys && x.value == 0))
        return y;
    if (((type == "Multiply" && y.value == 1) ||
         ((type == "Add" || type == "Subtract") && y.value == 0)) &&
        xs)
        return x;
    // ... and is never negative: it does not equal -1 (Expand's "keep this dimension").
    if (type == "Equal" && ((xs && y.value && *y.value < 0) || (ys && x.value && *x.value < 0)))
        return known(0);
    if (type == "Equal" && xs && ys && x.same(y)) return known(1);
    return {};
}

std::optional<Partial> partial_at(const Output& port, int depth, Walk& walk) {
    const PartialShape& ps = port.get_partial_shape();
    const element::Type et = port.get_element_type();
    if (depth < 0 || --walk.visits < 0 || !(is_integral_number(et) || et == element::boolean) ||
        !ps.is_static() || ps.size() > 1)
        return std::nullopt;
    const size_t count = ps.size() == 0 ? 1 : static_cast<size_t>(ps[0].get_length());
    if (count > kPartialElements) return std::nullopt;
    const Node& node = *port.get_node();
    const std::string& type = node.get_type_name();
    if (type == "Constant") {
        const Tensor& t = node.get_constant_value();
        auto values = InferInput{t.get_element_type(), PartialShape(t.get_shape()), t}.int_values();
        if (!values || values->size() != count) return std::nullopt;
        Partial out;
        for (int64_t v : *values) out.push_back(known(v));
        return out;
    }
    if (type == "ShapeOf") {
        const Output x = node.input_value(0);
        const PartialShape& xs = x.get_partial_shape();
        if (!xs.rank_is_static() || xs.size() != count) return std::nullopt;
        Partial out(count);
        for (size_t k = 0; k < count; ++k) {
            if (xs[k].is_static()) {
                out[k].value = xs[k].get_length();
            } else {
                out[k].source = x;
                out[k].axis = k;
            }
        }
        return out;
    }
    const std::string& domain = node.get_op_def().domain;
    if (!domain.empty() || node.get_output_size() != 1) return std::nullopt;
    if (type == "Convert" || type == "Squeeze" || type == "Unsqueeze" || type == "Reshape") {
        auto in = partial_at(node.input_value(0), depth - 1, walk);
        if (!in || in->size() != count) return std::nullopt;
        return in;
    }
    if (type == "Gather") {
        if (node.get_input_size() != 3 ||
            (node.has_attribute("batch_dims") && node.get_attribute<int64_t>("batch_dims") != 0))
            return std::nullopt;
        const auto data = partial_at(node.input_value(0), depth - 1, walk);
        const auto indices = known_at(node.input_value(1), depth - 1, walk);
        const auto axis = known_at(node.input_value(2), depth - 1, walk);
        if (!data || !indices || indices->size() != count || !axis || axis->size() != 1 ||
            ((*axis)[0] != 0 && (*axis)[0] != -1) ||
            node.input_value(0).get_partial_shape().size() != 1)
            return std::nullopt;
        const auto n = static_cast<int64_t>(data->size());
        Partial out;
        for (int64_t i : *indices) {
            const int64_t at = i < 0 ? i + n : i;
            if (at < 0 || at >= n) return std::nullopt;  // an error at run time
            out.push_back((*data)[static_cast<size_t>(at)]);
        }
        return out;
    }
    if (type == "Concat") {
        const auto axis = node.get_attribute<int64_t>("axis");
        if (axis != 0 && axis != -1) return std::nullopt;
        Partial out;
        for (const auto& in : node.input_values()) {
            auto part = partial_at(in, depth - 1, walk);
            if (!part) {
                // Unknown elements, as many as its static length says.
                const PartialShape& s = in.get_partial_shape();
                if (!s.is_static() || s.size() > 1) return std::nullopt;
                part = Partial(s.size() == 0 ? 1 : static_cast<size_t>(s[0].get_length()));
            }
            out.insert(out.end(), part->begin(), part->end());
        }
        if (out.size() != count) return std::nullopt;
        return out;
    }
    // A scalar broadcast to a vector (ONNX's ConstantOfShape).
    if (type == "Broadcast") {
        const auto value = partial_at(node.input_value(0), depth - 1, walk);
        if (!value || value->size() != 1 || !(*value)[0].value) return std::nullopt;
        return Partial(count, (*value)[0]);
    }
    if (type == "Add" || type == "Subtract" || type == "Multiply" || type == "Divide" ||
        type == "Equal") {
        const auto a = partial_at(node.input_value(0), depth - 1, walk);
        const auto b = partial_at(node.input_value(1), depth - 1, walk);
        if (!a || !b || (a->size() != count && a->size() != 1) ||
            (b->size() != count && b->size() != 1))
            return std::nullopt;
        Partial out(count);
        for (size_t k = 0; k < count; ++k)
            out[k] = combine(type, (*a)[a->size() == 1 ? 0 : k], (*b)[b->size() == 1 ? 0 : k]);
        return out;
    }
    if (type == "Select") {
        Partial parts[3];
        for (size_t i = 0; i < 3; ++i) {
            auto p = partial_at(node.input_value(i), depth - 1, walk);
            if (!p || (p->size() != count && p->size() != 1)) return std::nullopt;
            parts[i] = std::move(*p);
        }
        Partial out(count);
        for (size_t k = 0; k < count; ++k) {
            const auto& cond = parts[0][parts[0].size() == 1 ? 0 : k];
            const auto& then = parts[1][parts[1].size() == 1 ? 0 : k];
            const auto& other = parts[2][parts[2].size() == 1 ? 0 : k];
            if (cond.value)
                out[k] = *cond.value != 0 ? then : other;
            else if (then.same(other))
                out[k] = then;
        }
        return out;
    }
    return std::nullopt;
}

}  // namespace

bool PartialElement::same(const PartialElement& o) const {
    if (value || o.value) return value == o.value;
    return source && source == o.source && axis == o.axis;
}

std::optional<std::vector<PartialElement>> partial_dims(const Output& port) {
    Walk walk;
    auto p = partial_at(port, kPartialDepth, walk);
    if (!p) return std::nullopt;
    for (const auto& e : *p)
        if (e.value || e.symbolic()) return p;
    return std::nullopt;
}

std::optional<std::vector<std::optional<int64_t>>> partial_values(const Output& port) {
    auto p = partial_dims(port);
    if (!p) return std::nullopt;
    std::vector<std::optional<int64_t>> out;
    bool any = false;
    for (const auto& e : *p) {
        out.push_back(e.value);
        any |= e.value.has_value();
    }
    if (!any) return std::nullopt;
    return out;
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
