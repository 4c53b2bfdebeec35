// Defines the indexed reads and writes: Gather-1/7/8 (batch_dims; negative indices in 8),
// GatherElements-6, GatherND-5/8, ScatterUpdate-3, ScatterNDUpdate-3 and
// ScatterElementsUpdate-3/12.
#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

Outputs infer_gather(const Node& node, const Inputs& in, bool has_batch_dims) {
    check_type(node, in, 1, "indices", is_integral_number, "an integer type");
    check_type(node, in, 2, "axis", is_integral_number, "an integer type");
    check_rank(node, in, 2, "axis", 0, 1);
    const PartialShape& data = in[0].shape;
    const PartialShape& indices = in[1].shape;
    auto axis_value = scalar_value(node, in, 2, "axis");
    int64_t batch_dims = has_batch_dims ? node.get_attribute<int64_t>("batch_dims") : 0;
    if (batch_dims < 0) {
        if (!indices.rank_is_static()) return {{in[0].type, PartialShape::dynamic()}};
        batch_dims += static_cast<int64_t>(indices.size());
    }
    if (batch_dims < 0 ||
        (indices.rank_is_static() && batch_dims > static_cast<int64_t>(indices.size())))
        throw_error<InvalidArgument>(node.describe(), ": batch_dims ",
                                     node.get_attribute<int64_t>("batch_dims"),
                                     " is out of range for indices ", indices);
    if (!data.rank_is_static() || !indices.rank_is_static())
        return {{in[0].type, PartialShape::dynamic()}};
    const int64_t data_rank = static_cast<int64_t>(data.size());
    const int64_t out_rank = data_rank + static_cast<int64_t>(indices.size()) - 1 - batch_dims;
    if (!axis_value)
        return {{in[0].type,
                 PartialShape::dynamic(static_cast<size_t>(std::max<int64_t>(out_rank, 0)))}};
    const size_t axis = normalize_axis(node, *axis_value, data_rank, "axis");
    if (batch_dims > static_cast<int64_t>(axis))
        throw_error<InvalidArgument>(node.describe(), ": batch_dims ", batch_dims,
                                     " must not exceed axis ", axis);
    PartialShape out;
    for (size_t i = 0; i < axis; ++i) {
        Dimension d = data[i];
        if (static_cast<int64_t>(i) < batch_dims && !Dimension::merge(d, data[i], indices[i]))
            throw_error<InvalidArgument>(node.describe(), ": batch dimension ", i,
                                         " differs between data ", data, " and indices ", indices);
        out.push_back(d);
    }
    for (size_t i = static_cast<size_t>(batch_dims); i < indices.size(); ++i)
        out.push_back(indices[i]);
    for (size_t i = axis + 1; i < data.size(); ++i) out.push_back(data[i]);
    return {{in[0].type, out}};
}

Outputs infer_gather_elements(const Node& node, const Inputs& in) {
    check_type(node, in, 1, "indices", is_integral_number, "an integer type");
    const PartialShape& data = in[0].shape;
    const PartialShape& indices = in[1].shape;
    const int64_t axis = node.get_attribute<int64_t>("axis");
    auto rank = static_rank(in[0]);
    if (!rank) rank = static_rank(in[1]);
    if (!rank) return {{in[0].type, PartialShape::dynamic()}};
    if (*rank < 1)
        throw_error<InvalidArgument>(node.describe(), ": data must have rank >= 1, got ", data);
    const size_t a = normalize_axis(node, axis, *rank, "axis");
    if (!data.rank_is_static()) return {{in[0].type, indices}};
    if (!indices.rank_is_static()) {
        PartialShape out = data;
        out[a] = Dimension();
        return {{in[0].type, out}};
    }
    if (data.size() != indices.size())
        throw_error<InvalidArgument>(node.describe(), ": data ", data, " and indices ", indices,
                                     " must have the same rank");
    PartialShape out = indices;
    for (size_t i = 0; i < data.size(); ++i) {
        if (i == a) continue;
        if (!Dimension::merge(out[i], indices[i], data[i]))
            throw_error<InvalidArgument>(node.describe(), ": data ", data, " and indices ", indices,
                                         " differ at axis ", i, " (only axis ", a, " may differ)");
    }
    return {{in[0].type, out}};
}

Outputs infer_scatter_update(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, 0, 2);
    check_type(node, in, 1, "indices", is_integral_number, "an integer type");
    check_type(node, in, 3, "axis", is_integral_number, "an integer type");
    check_rank(node, in, 3, "axis", 0, 1);
    const PartialShape& data = in[0].shape;
    const PartialShape& indices = in[1].shape;
    const PartialShape& updates = in[2].shape;
    if (data.rank_is_static() && indices.rank_is_static() && updates.rank_is_static()) {
        if (updates.size() != data.size() - 1 + indices.size())
            throw_error<InvalidArgument>(node.describe(), ": updates ", updates, " must have rank ",
                                         data.size() - 1 + indices.size(), " (data ", data,
                                         ", indices ", indices, ")");
        if (auto axis_value = scalar_value(node, in, 3, "axis")) {
            const size_t axis =
                normalize_axis(node, *axis_value, static_cast<int64_t>(data.size()), "axis");
            // updates = data[:axis] + indices + data[axis+1:]
            PartialShape expected;
            for (size_t i = 0; i < axis; ++i) expected.push_back(data[i]);
            for (const auto& d : indices) expected.push_back(d);
            for (size_t i = axis + 1; i < data.size(); ++i) expected.push_back(data[i]);
            if (!expected.compatible(updates))
                throw_error<InvalidArgument>(node.describe(), ": updates ", updates,
                                             " do not match ", expected, " (data ", data,
                                             " with indices ", indices, " at axis ", axis, ")");
        }
    }
    return {{type, data}};
}

// GatherND-5/8: indices [..., K] address data[batch..., i_1..i_K]. Output (v8)
// indices.shape[:-1] + data.shape[batch_dims + K:]; v5 flattens the batch dims into one.
Outputs infer_gather_nd(const Node& node, const Inputs& in, bool flatten_batch) {
    check_type(node, in, 1, "indices", is_integral_number, "an integer type");
    check_rank(node, in, 0, "data", 1, 64);
    check_rank(node, in, 1, "indices", 1, 64);
    const PartialShape& data = in[0].shape;
    const PartialShape& indices = in[1].shape;
    const int64_t batch_dims = node.get_attribute<int64_t>("batch_dims");
    if (batch_dims < 0)
        throw_error<InvalidArgument>(node.describe(), ": batch_dims ", batch_dims,
                                     " must not be negative");
    if (indices.rank_is_static() && batch_dims >= static_cast<int64_t>(indices.size()))
        throw_error<InvalidArgument>(node.describe(), ": batch_dims ", batch_dims,
                                     " must be less than the rank of indices ", indices);
    if (data.rank_is_static() && batch_dims >= static_cast<int64_t>(data.size()))
        throw_error<InvalidArgument>(node.describe(), ": batch_dims ", batch_dims,
                                     " must be less than the rank of data ", data);
    if (!data.rank_is_static() || !indices.rank_is_static())
        return {{in[0].type, PartialShape::dynamic()}};
    const auto b = static_cast<size_t>(batch_dims);
    PartialShape batch;
    for (size_t i = 0; i < b; ++i) {
        Dimension d;
        if (!Dimension::merge(d, data[i], indices[i]))
            throw_error<InvalidArgument>(node.describe(), ": batch dimension ", i,
                                         " differs between data ", data, " and indices ", indices);
        batch.push_back(d);
    }
    const Dimension& last = indices[indices.size() - 1];
    if (!last.is_static()) return {{in[0].type, PartialShape::dynamic()}};
    const int64_t k = last.get_length();
    if (k < 1 || b + static_cast<size_t>(k) > data.size())
        throw_error<InvalidArgument>(node.describe(), ": the last dimension of indices ", indices,
                                     " (", k, ") plus batch_dims ", batch_dims,
                                     " must be in [1, rank of data ", data, "]");
    PartialShape out;
    if (flatten_batch && b > 0) {
        Dimension product(1);
        for (const auto& d : batch) product = product * d;
        out.push_back(product);
    } else {
        for (const auto& d : batch) out.push_back(d);
    }
    for (size_t i = b; i + 1 < indices.size(); ++i) out.push_back(indices[i]);
    for (size_t i = b + static_cast<size_t>(k); i < data.size(); ++i) out.push_back(data[i]);
    return {{in[0].type, out}};
}

// ScatterNDUpdate-3: updates must be indices.shape[:-1] + data.shape[K:]; output is data.
Outputs infer_scatter_nd_update(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, 0, 2);
    check_type(node, in, 1, "indices", is_integral_number, "an integer type");
    check_rank(node, in, 1, "indices", 1, 64);
    const PartialShape& data = in[0].shape;
    const PartialShape& indices = in[1].shape;
    const PartialShape& updates = in[2].shape;
    if (data.rank_is_static() && indices.rank_is_static() &&
        indices[indices.size() - 1].is_static()) {
        const int64_t k = indices[indices.size() - 1].get_length();
        if (k > static_cast<int64_t>(data.size()))
            throw_error<InvalidArgument>(node.describe(), ": the last dimension of indices ",
                                         indices, " must not exceed the rank of data ", data);
        PartialShape expected;
        for (size_t i = 0; i + 1 < indices.size(); ++i) expected.push_back(indices[i]);
        for (size_t i = static_cast<size_t>(k); i < data.size(); ++i) expected.push_back(data[i]);
        if (!expected.compatible(updates))
            throw_error<InvalidArgument>(node.describe(), ": updates ", updates, " do not match ",
                                         expected, " (indices ", indices, " into data ", data, ")");
    }
    return {{type, data}};
}

// ScatterElementsUpdate-3/12: indices and updates of one shape, the rank of data; axis a scalar.
Outputs infer_scatter_elements_update(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, 0, 2);
    check_type(node, in, 1, "indices", is_integral_number, "an integer type");
    check_type(node, in, 3, "axis", is_integral_number, "an integer type");
    check_rank(node, in, 3, "axis", 0, 1);
    const PartialShape& data = in[0].shape;
    const PartialShape& indices = in[1].shape;
    const PartialShape& updates = in[2].shape;
    if (!indices.compatible(updates))
        throw_error<InvalidArgument>(node.describe(), ": indices ", indices, " and updates ",
                                     updates, " must have the same shape");
    if (data.rank_is_static() && indices.rank_is_static() && data.size() != indices.size())
        throw_error<InvalidArgument>(node.describe(), ": indices ", indices,
                                     " must have the rank of data ", data);
    if (data.rank_is_static())
        if (auto axis = scalar_value(node, in, 3, "axis"))
            normalize_axis(node, *axis, static_cast<int64_t>(data.size()), "axis");
    return {{type, data}};
}

}  // namespace

void register_gather_scatter_ops(OpRegistry& r) {
    r.add(OpDef{"Gather",
                1,
                "",
                3,
                3,
                {},
                [](const Node& n, const Inputs& in) { return infer_gather(n, in, false); },
                {}});
    for (int version : {7, 8})
        r.add(OpDef{"Gather",
                    version,
                    "",
                    3,
                    3,
                    {optional_attr("batch_dims", AttrType::kInt, int64_t{0})},
                    [](const Node& n, const Inputs& in) { return infer_gather(n, in, true); },
                    {}});
    r.add(OpDef{"GatherElements",
                6,
                "",
                2,
                2,
                {required_attr("axis", AttrType::kInt)},
                infer_gather_elements,
                {}});
    r.add(OpDef{"ScatterUpdate", 3, "", 4, 4, {}, infer_scatter_update, {}});
    r.add(OpDef{"GatherND",
                5,
                "",
                2,
                2,
                {optional_attr("batch_dims", AttrType::kInt, int64_t{0})},
                [](const Node& n, const Inputs& in) { return infer_gather_nd(n, in, true); },
                {}});
    r.add(OpDef{"GatherND",
                8,
                "",
                2,
                2,
                {optional_attr("batch_dims", AttrType::kInt, int64_t{0})},
                [](const Node& n, const Inputs& in) { return infer_gather_nd(n, in, false); },
                {}});
    r.add(OpDef{"ScatterNDUpdate", 3, "", 3, 3, {}, infer_scatter_nd_update, {}});
    r.add(OpDef{"ScatterNDUpdate",
                15,
                "",
                3,
                3,
                {optional_attr("reduction", AttrType::kString, std::string("none"),
                               {"none", "sum", "prod", "min", "max"})},
                infer_scatter_nd_update,
                {}});
    r.add(OpDef{"ScatterElementsUpdate", 3, "", 4, 4, {}, infer_scatter_elements_update, {}});
    r.add(OpDef{"ScatterElementsUpdate",
                12,
                "",
                4,
                4,
                {optional_attr("reduction", AttrType::kString, std::string("none"),
                               {"none", "sum", "prod", "min", "max", "mean"}),
                 optional_attr("use_init_val", AttrType::kBool, true)},
                infer_scatter_elements_update,
                {}});
}

}  // namespace vireo::ops_impl
