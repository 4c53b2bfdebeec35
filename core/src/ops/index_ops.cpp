// Defines the ops whose output is built from index values: OneHot-1 (a depth axis inserted at
// `axis`), Eye-9 (batched shifted identity matrices), NonZero-3 (the coordinates of non-zero
// elements) and Unique-10. The output lengths of NonZero and Unique are known only from the input's
// value: shape inference bounds them by the input's size until the value is known.
#include <algorithm>
#include <cstring>
#include <limits>

#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

// OneHot-1: indices (integer), depth (integer scalar), on_value and off_value (scalars of the
// output type). Output: indices' shape with `depth` inserted at `axis` (in [-r-1, r]).
Outputs infer_one_hot(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "indices", is_integral_number, "an integer type");
    check_type(node, in, 1, "depth", is_integral_number, "an integer type");
    const element::Type type = merge_types(node, in, 2, 3);
    check_scalar_input(node, in, 1, "depth");
    check_scalar_input(node, in, 2, "on_value");
    check_scalar_input(node, in, 3, "off_value");
    Dimension depth;
    if (auto d = scalar_value(node, in, 1, "depth")) {
        if (*d < 0)
            throw_error<InvalidArgument>(node.describe(), ": depth must be non-negative, got ", *d);
        depth = Dimension(*d);
    }
    const int64_t axis = node.get_attribute<int64_t>("axis");
    const PartialShape& indices = in[0].shape;
    if (!indices.rank_is_static()) return {{type, PartialShape::dynamic()}};
    const size_t at = normalize_axis(node, axis, static_cast<int64_t>(indices.size()) + 1, "axis");
    PartialShape out;
    for (size_t i = 0; i < at; ++i) out.push_back(indices[i]);
    out.push_back(depth);
    for (size_t i = at; i < indices.size(); ++i) out.push_back(indices[i]);
    return {{type, out}};
}

// Eye-9: num_rows, num_columns, diagonal_index (scalars or 1-element 1-D, i32/i64)
// [, batch_shape 1-D]; output batch_shape + [num_rows, num_columns] of `output_type`.
Outputs infer_eye(const Node& node, const Inputs& in) {
    const auto type = node.get_attribute<element::Type>("output_type");
    if (!type.is_static() || type == element::boolean || type.is_sub_byte())
        throw_error<InvalidArgument>(node.describe(), ": output_type must be a number type, got ",
                                     type);
    const char* names[] = {"num_rows", "num_columns", "diagonal_index", "batch_shape"};
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i].type.is_static() && in[i].type != element::i32 && in[i].type != element::i64)
            throw_error<InvalidArgument>(node.describe(), ": input ", i, " (", names[i],
                                         ") must be i32 or i64, got ", in[i].type);
        if (i < 3) {
            check_rank(node, in, i, names[i], 0, 1);
            check_scalar_input(node, in, i, names[i]);
        }
    }
    Dimension dims[2];
    for (size_t i = 0; i < 2; ++i)
        if (auto v = scalar_value(node, in, i, names[i])) {
            if (*v < 0)
                throw_error<InvalidArgument>(node.describe(), ": ", names[i],
                                             " must be non-negative, got ", *v);
            dims[i] = Dimension(*v);
        }
    PartialShape out;
    if (in.size() > 3) {
        check_rank(node, in, 3, "batch_shape", 1, 1);
        out = shape_from_values(node, in, 3, "batch_shape");
        if (!out.rank_is_static()) return {{type, PartialShape::dynamic()}};
    }
    out.push_back(dims[0]);
    out.push_back(dims[1]);
    return {{type, out}};
}

// NonZero-3: [rank of data, number of non-zero elements].
Outputs infer_non_zero(const Node& node, const Inputs& in) {
    const element::Type type = node.get_attribute<element::Type>("output_type");
    if (type != element::i32 && type != element::i64)
        throw_error<InvalidArgument>(node.describe(), ": output_type must be i32 or i64, got ",
                                     type);
    const PartialShape& data = in[0].shape;
    const Dimension rank =
        data.rank_is_static() ? Dimension(static_cast<int64_t>(data.size())) : Dimension();
    Dimension count;
    if (data.is_static()) {
        int64_t total = 1;
        for (const auto& d : data) total *= d.get_length();
        count = Dimension(0, total);
        if (in[0].value) {
            int64_t n = 0;
            const Tensor& t = in[0].value;
            if (t.get_element_type().is_real()) {
                if (auto values = real_values(in, 0))
                    for (double v : *values) n += (v != 0.0) ? 1 : 0;  // NaN counts as non-zero
            } else {
                // Integers and boolean: an element is zero when all its bytes are.
                const size_t bytes = t.get_element_type().size();
                const size_t size = t.get_size();  // not per element: it multiplies the shape
                const auto* p = static_cast<const uint8_t*>(t.data());
                for (size_t e = 0; e < size; ++e) {
                    bool nonzero = false;
                    for (size_t b = 0; b < bytes; ++b) nonzero = nonzero || p[e * bytes + b] != 0;
                    n += nonzero ? 1 : 0;
                }
            }
            count = Dimension(n);
        }
    }
    return {{type, PartialShape{rank, count}}};
}

// How many distinct elements (or slices) `n` candidates can hold: [min(n, 1), n].
Dimension distinct_count(const Dimension& n) {
    if (!n.is_static()) return Dimension(n.get_min_length() > 0 ? 1 : 0, n.get_max_length());
    return Dimension(std::min<int64_t>(n.get_length(), 1), n.get_length());
}

// Unique-10: data [, axis]; outputs unique values (slices), first-occurrence indices, the inverse
// indices and the counts.
Outputs infer_unique(const Node& node, const Inputs& in) {
    const auto index_type = node.get_attribute<element::Type>("index_element_type");
    const auto count_type = node.get_attribute<element::Type>("count_element_type");
    for (const auto& [type, name] :
         {std::pair{index_type, "index_element_type"}, std::pair{count_type, "count_element_type"}})
        if (type != element::i32 && type != element::i64)
            throw_error<InvalidArgument>(node.describe(), ": ", name, " must be i32 or i64, got ",
                                         type);
    const PartialShape& data = in[0].shape;
    std::optional<size_t> axis;
    if (in.size() > 1) {
        check_type(node, in, 1, "axis", is_integral_number, "an integer type");
        check_rank(node, in, 1, "axis", 0, 1);
        auto value = scalar_value(node, in, 1, "axis");
        if (!value || !data.rank_is_static())
            return {{in[0].type, PartialShape::dynamic()},
                    {index_type, PartialShape::dynamic(1)},
                    {index_type, PartialShape::dynamic(1)},
                    {count_type, PartialShape::dynamic(1)}};
        axis = normalize_axis(node, *value, static_cast<int64_t>(data.size()), "axis");
    }
    // The candidates: every element, or every slice along the axis.
    Dimension candidates;
    if (axis) {
        candidates = data[*axis];
    } else if (data.is_static()) {
        int64_t total = 1;
        for (const auto& d : data) total *= d.get_length();
        candidates = Dimension(total);
    }
    Dimension unique = distinct_count(candidates);
    if (in[0].value && data.is_static()) {
        // The exact count: candidates compared by value (reals as canonical doubles: -0.0 is 0.0,
        // every NaN is one value), as the kernel compares them.
        const Tensor& t = in[0].value;
        const Shape shape = data.to_shape();
        size_t outer = 1, len = t.get_size(), inner = 1;
        if (axis) {
            len = shape[*axis];
            for (size_t i = 0; i < *axis; ++i) outer *= shape[i];
            for (size_t i = *axis + 1; i < shape.size(); ++i) inner *= shape[i];
        }
        std::vector<uint8_t> flat;
        size_t bytes = t.get_element_type().size();
        if (t.get_element_type().is_real()) {
            const auto reals = real_values(in, 0);
            bytes = sizeof(double);
            flat.resize(reals->size() * bytes);
            for (size_t e = 0; e < reals->size(); ++e) {
                double v = (*reals)[e];
                if (v == 0.0) v = 0.0;
                if (v != v) v = std::numeric_limits<double>::quiet_NaN();
                std::memcpy(flat.data() + e * bytes, &v, bytes);
            }
        } else {
            const auto* raw = static_cast<const uint8_t*>(t.data());
            flat.assign(raw, raw + t.get_byte_size());
        }
        const uint8_t* p = flat.data();
        std::vector<std::string> keys(len);
        for (size_t o = 0; o < outer; ++o)
            for (size_t j = 0; j < len; ++j)
                keys[j].append(reinterpret_cast<const char*>(p + (o * len + j) * inner * bytes),
                               inner * bytes);
        std::sort(keys.begin(), keys.end());
        unique =
            Dimension(static_cast<int64_t>(std::unique(keys.begin(), keys.end()) - keys.begin()));
    }
    PartialShape values;
    if (axis) {
        values = data;
        values[*axis] = unique;
    } else {
        values = PartialShape{unique};
    }
    return {{in[0].type, values},
            {index_type, PartialShape{unique}},
            {index_type, PartialShape{candidates}},
            {count_type, PartialShape{unique}}};
}

}  // namespace

void register_index_ops(OpRegistry& r) {
    r.add(OpDef{"OneHot", 1, "", 4, 4, {required_attr("axis", AttrType::kInt)}, infer_one_hot, {}});
    r.add(OpDef{
        "Eye", 9, "", 3, 4, {required_attr("output_type", AttrType::kElementType)}, infer_eye, {}});
    r.add(OpDef{"Unique",
                10,
                "",
                1,
                2,
                {optional_attr("sorted", AttrType::kBool, true),
                 optional_attr("index_element_type", AttrType::kElementType, element::i64),
                 optional_attr("count_element_type", AttrType::kElementType, element::i64)},
                infer_unique,
                {}});
    r.add(OpDef{"NonZero",
                3,
                "",
                1,
                1,
                {optional_attr("output_type", AttrType::kElementType, element::i64)},
                infer_non_zero,
                {}});
}

}  // namespace vireo::ops_impl
