// Defines the ops that rearrange a tensor's shape without computing: Reshape-1 (special_zero, -1),
// Transpose-1, Squeeze-1, Unsqueeze-1 and Concat-1.
#include <algorithm>
#include <limits>
#include <set>

#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

// Product of dimensions as an interval.
Dimension product(const std::vector<Dimension>& dims) {
    Dimension p(1);
    for (const auto& d : dims) p = p * d;
    return p;
}

Outputs infer_reshape(const Node& node, const Inputs& in) {
    check_type(node, in, 1, "shape", is_integral_number, "an integer type");
    check_rank(node, in, 1, "shape", 0, 1);
    const bool special_zero = node.get_attribute<bool>("special_zero");
    const PartialShape& data = in[0].shape;
    auto target = values_of(in, 1);
    if (!target) {
        const auto length = static_length(in[1]);
        if (!length) return {{in[0].type, PartialShape::dynamic()}};
        // What the graph says of the target's elements (partial_values): a known v >= 1 is that
        // dimension, a known 0 copies data's (special_zero) or is 0; the others (unknown, or a
        // -1 whose size depends on them) stay dynamic.
        std::vector<Dimension> out(static_cast<size_t>(*length));
        if (node.get_input_size() > 1)
            if (auto partial = partial_values(node.input_value(1));
                partial && partial->size() == out.size())
                for (size_t i = 0; i < out.size(); ++i) {
                    const auto& v = (*partial)[i];
                    if (!v || *v < 0) continue;
                    if (*v > 0 || !special_zero)
                        out[i] = Dimension(*v);
                    else if (data.rank_is_static() && i < data.size())
                        out[i] = data[i];
                }
        return {{in[0].type, PartialShape(out)}};
    }
    std::vector<Dimension> out;
    // Dims copied from data (0 with special_zero) appear on both sides, so they are left out of
    // both element counts: that lets [?,3,4] -> [0,-1] give [?,12].
    std::vector<Dimension> known;  // output dims other than -1 and the copied ones
    std::vector<bool> copied(data.rank_is_static() ? data.size() : 0, false);
    std::optional<size_t> minus_one;
    for (size_t i = 0; i < target->size(); ++i) {
        const int64_t v = (*target)[i];
        if (v == -1) {
            if (minus_one)
                throw_error<InvalidArgument>(node.describe(), ": target shape ", to_text(*target),
                                             " has more than one -1");
            minus_one = i;
            out.emplace_back();
            continue;
        }
        if (v < -1)
            throw_error<InvalidArgument>(node.describe(), ": target shape ", to_text(*target),
                                         " has invalid value ", v);
        Dimension d(v);
        if (v == 0 && special_zero) {
            if (!data.rank_is_static()) {
                d = Dimension();
            } else if (i >= data.size()) {
                throw_error<InvalidArgument>(node.describe(), ": target shape ", to_text(*target),
                                             " copies axis ", i, " (0 with special_zero) but data ",
                                             data, " has rank ", data.size());
            } else {
                out.push_back(data[i]);
                copied[i] = true;
                continue;
            }
        }
        out.push_back(d);
        known.push_back(d);
    }
    std::vector<Dimension> remaining;
    for (size_t i = 0; i < copied.size(); ++i)
        if (!copied[i]) remaining.push_back(data[i]);
    const Dimension in_count = data.rank_is_static() ? product(remaining) : Dimension();
    const Dimension known_count = product(known);
    if (minus_one) {
        Dimension& inferred = out[*minus_one];
        if (in_count.is_static() && known_count.is_static()) {
            const int64_t n = in_count.get_length(), k = known_count.get_length();
            if (k == 0) {
                if (n != 0)
                    throw_error<InvalidArgument>(
                        node.describe(), ": cannot infer -1 in target shape ", to_text(*target),
                        " for data ", data, ": the other dimensions have zero elements");
                inferred = Dimension(0);
            } else if (n % k != 0) {
                throw_error<InvalidArgument>(node.describe(), ": data ", data, " (", n,
                                             " elements) cannot be reshaped to ", to_text(*target),
                                             ": ", n, " is not divisible by ", k);
            } else {
                inferred = Dimension(n / k);
            }
        } else if (known_count.is_static() && known_count.get_length() > 0) {
            // Bounds of the input element count divided by the known part.
            const int64_t k = known_count.get_length();
            const int64_t lo = (in_count.get_min_length() + k - 1) / k;
            const int64_t hi =
                in_count.is_bounded() ? in_count.get_max_length() / k : Dimension::kInfinity;
            inferred = lo <= hi ? Dimension(lo, hi) : Dimension();
        }
    } else if (in_count.is_static() && known_count.is_static() && in_count != known_count) {
        throw_error<InvalidArgument>(node.describe(), ": data ", data, " cannot be reshaped to ",
                                     to_text(*target), " (giving ", PartialShape(out),
                                     "): the element counts differ (", in_count.get_length(),
                                     " vs ", known_count.get_length(), " outside the copied axes)");
    }
    return {{in[0].type, PartialShape(out)}};
}

Outputs infer_transpose(const Node& node, const Inputs& in) {
    check_type(node, in, 1, "input_order", is_integral_number, "an integer type");
    check_rank(node, in, 1, "input_order", 1, 1);
    const PartialShape& data = in[0].shape;
    auto order = values_of(in, 1);
    if (!data.rank_is_static()) {
        if (auto length = static_length(in[1]); length && *length > 0)
            return {{in[0].type, PartialShape::dynamic(static_cast<size_t>(*length))}};
        return {{in[0].type, PartialShape::dynamic()}};
    }
    const size_t rank = data.size();
    if (!order) return {{in[0].type, PartialShape::dynamic(rank)}};
    if (order->empty()) {
        std::vector<Dimension> reversed(data.dims().rbegin(), data.dims().rend());
        return {{in[0].type, PartialShape(reversed)}};
    }
    if (order->size() != rank)
        throw_error<InvalidArgument>(node.describe(), ": input_order ", to_text(*order), " has ",
                                     order->size(), " values but data ", data, " has rank ", rank);
    std::vector<bool> used(rank, false);
    PartialShape out;
    for (int64_t axis : *order) {
        if (axis < 0 || axis >= static_cast<int64_t>(rank) || used[static_cast<size_t>(axis)])
            throw_error<InvalidArgument>(node.describe(), ": input_order ", to_text(*order),
                                         " is not a permutation of [0, ", rank - 1, "]");
        used[static_cast<size_t>(axis)] = true;
        out.push_back(data[static_cast<size_t>(axis)]);
    }
    return {{in[0].type, out}};
}

Outputs infer_squeeze(const Node& node, const Inputs& in) {
    const PartialShape& data = in[0].shape;
    if (in.size() > 1) {
        check_type(node, in, 1, "axes", is_integral_number, "an integer type");
        check_rank(node, in, 1, "axes", 0, 1);
    }
    if (!data.rank_is_static()) return {{in[0].type, PartialShape::dynamic()}};
    const int64_t rank = static_cast<int64_t>(data.size());
    if (in.size() == 1) {
        // Without axes every dimension of size 1 goes; a dynamic one that may be 1 makes the rank
        // unknown.
        PartialShape out;
        for (const auto& d : data) {
            if (d.is_static() && d.get_length() == 1) continue;
            if (d.is_dynamic() && d.compatible(1)) return {{in[0].type, PartialShape::dynamic()}};
            out.push_back(d);
        }
        return {{in[0].type, out}};
    }
    auto axes = values_of(in, 1);
    if (!axes) {
        if (auto count = static_length(in[1]); count && *count <= rank)
            return {{in[0].type, PartialShape::dynamic(static_cast<size_t>(rank - *count))}};
        return {{in[0].type, PartialShape::dynamic()}};
    }
    const auto normalized = normalize_axes(node, *axes, rank, "axes", true);
    const std::set<size_t> remove(normalized.begin(), normalized.end());
    PartialShape out;
    for (size_t i = 0; i < data.size(); ++i) {
        if (!remove.count(i)) {
            out.push_back(data[i]);
            continue;
        }
        if (!data[i].compatible(1))
            throw_error<InvalidArgument>(node.describe(), ": cannot squeeze axis ", i, " of data ",
                                         data, ": its dimension is ", data[i], ", not 1");
    }
    return {{in[0].type, out}};
}

Outputs infer_unsqueeze(const Node& node, const Inputs& in) {
    check_type(node, in, 1, "axes", is_integral_number, "an integer type");
    check_rank(node, in, 1, "axes", 0, 1);
    const PartialShape& data = in[0].shape;
    auto axes = values_of(in, 1);
    if (!data.rank_is_static()) return {{in[0].type, PartialShape::dynamic()}};
    if (!axes) {
        if (auto count = static_length(in[1]))
            return {{in[0].type, PartialShape::dynamic(data.size() + static_cast<size_t>(*count))}};
        return {{in[0].type, PartialShape::dynamic()}};
    }
    if (axes->empty()) throw_error<InvalidArgument>(node.describe(), ": input 1 (axes) is empty");
    const int64_t out_rank = static_cast<int64_t>(data.size() + axes->size());
    const auto normalized = normalize_axes(node, *axes, out_rank, "axes");
    const std::set<size_t> added(normalized.begin(), normalized.end());
    PartialShape out;
    size_t next = 0;
    for (size_t i = 0; i < static_cast<size_t>(out_rank); ++i)
        out.push_back(added.count(i) ? Dimension(1) : data[next++]);
    return {{in[0].type, out}};
}

Outputs infer_concat(const Node& node, const Inputs& in) {
    std::vector<size_t> all(in.size());
    for (size_t i = 0; i < in.size(); ++i) all[i] = i;
    const element::Type type = merge_types(node, in, all);
    const int64_t axis = node.get_attribute<int64_t>("axis");
    std::optional<PartialShape> out;
    std::optional<size_t> out_axis;
    Dimension total(0);
    bool total_known = true;
    for (size_t i = 0; i < in.size(); ++i) {
        const PartialShape& s = in[i].shape;
        if (!s.rank_is_static()) {
            total_known = false;
            continue;
        }
        if (s.size() == 0)
            throw_error<InvalidArgument>(node.describe(), ": input ", i,
                                         " is a scalar; Concat needs rank >= 1");
        const size_t a = normalize_axis(node, axis, static_cast<int64_t>(s.size()), "axis");
        if (!out) {
            out = s;
            out_axis = a;
        } else {
            if (s.size() != out->size())
                throw_error<InvalidArgument>(node.describe(), ": input ", i, " has shape ", s,
                                             " whose rank differs from the other inputs' ", *out);
            for (size_t d = 0; d < s.size(); ++d) {
                if (d == a) continue;
                if (!Dimension::merge((*out)[d], (*out)[d], s[d]))
                    throw_error<InvalidArgument>(node.describe(), ": input ", i, " has shape ", s,
                                                 " which does not match ", *out,
                                                 " outside the concat axis ", a);
            }
        }
        total = total + s[a];
    }
    if (!out) return {{type, PartialShape::dynamic()}};
    (*out)[*out_axis] =
        total_known ? total : Dimension(total.get_min_length(), Dimension::kInfinity);
    return {{type, *out}};
}

}  // namespace

void register_shape_ops(OpRegistry& r) {
    r.add(OpDef{"Reshape",
                1,
                "",
                2,
                2,
                {required_attr("special_zero", AttrType::kBool)},
                infer_reshape,
                {}});
    r.add(OpDef{"Transpose", 1, "", 2, 2, {}, infer_transpose, {}});
    r.add(OpDef{"Squeeze", 1, "", 1, 2, {}, infer_squeeze, {}});
    r.add(OpDef{"Unsqueeze", 1, "", 2, 2, {}, infer_unsqueeze, {}});
    r.add(OpDef{"Concat",
                1,
                "",
                1,
                std::numeric_limits<size_t>::max(),
                {required_attr("axis", AttrType::kInt)},
                infer_concat,
                {}});
}

}  // namespace vireo::ops_impl
