// Defines the ops whose output shape comes from input values or input shapes: ShapeOf-1/3,
// Range-1/4, Broadcast-1/3, Tile-1 and Pad-1/12.
#include <cmath>
#include <limits>

#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

Outputs infer_shape_of(const Node& node, const Inputs& in, element::Type type) {
    if (type != element::i32 && type != element::i64)
        throw_error<InvalidArgument>(node.describe(), ": output_type must be i32 or i64, got ",
                                     type);
    const PartialShape& data = in[0].shape;
    return {{type, data.rank_is_static() ? PartialShape{static_cast<int64_t>(data.size())}
                                         : PartialShape{Dimension()}}};
}

// Element count of [start, stop) by step; integral ranges truncate their bounds first.
Dimension range_length(const Node& node, const Inputs& in, bool integral) {
    for (size_t i = 0; i < 3; ++i) {
        const char* names[] = {"start", "stop", "step"};
        check_rank(node, in, i, names[i], 0, 0);
    }
    auto start = real_values(in, 0);
    auto stop = real_values(in, 1);
    auto step = real_values(in, 2);
    if (!start || !stop || !step) return Dimension();
    double b = start->at(0), e = stop->at(0), s = step->at(0);
    if (integral) {
        b = std::trunc(b);
        e = std::trunc(e);
        s = std::trunc(s);
    }
    if (s == 0) throw_error<InvalidArgument>(node.describe(), ": step must not be 0");
    if (!std::isfinite(b) || !std::isfinite(e) || !std::isfinite(s))
        throw_error<InvalidArgument>(node.describe(), ": start, stop and step must be finite, got ",
                                     b, ", ", e, ", ", s);
    // (e - b) may overflow to infinity and a huge count does not fit int64: check before the
    // conversion, which would otherwise be undefined (it gave INT64_MIN, a nameless error).
    const double count = std::ceil((e - b) / s);
    if (!(count < static_cast<double>(std::numeric_limits<int64_t>::max())))
        throw_error<InvalidArgument>(node.describe(), ": the range from ", b, " to ", e,
                                     " by step ", s, " has ", count,
                                     " elements, more than a dimension can hold");
    return Dimension(count > 0 ? static_cast<int64_t>(count) : 0);
}

Outputs infer_range_1(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, std::vector<size_t>{0, 1, 2});
    check_type(node, in, 0, "start", is_numeric, "a number type (not boolean)");
    return {{type, PartialShape{range_length(node, in, type.is_integral_number())}}};
}

Outputs infer_range_4(const Node& node, const Inputs& in) {
    const auto& type = node.get_attribute<element::Type>("output_type");
    if (!is_numeric(type))
        throw_error<InvalidArgument>(node.describe(), ": output_type must be a number type, got ",
                                     type);
    for (size_t i = 0; i < 3; ++i)
        check_type(node, in, i, "start/stop/step", is_numeric, "a number type (not boolean)");
    return {{type, PartialShape{range_length(node, in, type.is_integral_number())}}};
}

Outputs infer_broadcast(const Node& node, const Inputs& in) {
    check_type(node, in, 1, "target_shape", is_integral_number, "an integer type");
    const std::string& mode = node.get_attribute<std::string>("mode");
    const PartialShape& data = in[0].shape;
    const PartialShape target = shape_from_values(node, in, 1, "target_shape");
    if (mode == "bidirectional")
        return {{in[0].type, broadcast_shapes(node, data, target, "numpy")}};
    if (mode == "explicit") {
        if (in.size() < 3)
            throw_error<InvalidArgument>(node.describe(),
                                         ": mode 'explicit' needs input 2 (axes_mapping)");
        check_rank(node, in, 2, "axes_mapping", 1, 1);
        auto mapping = values_of(in, 2);
        if (mapping && data.rank_is_static() && mapping->size() != data.size())
            throw_error<InvalidArgument>(node.describe(), ": axes_mapping ", to_text(*mapping),
                                         " must have one entry per ", "axis of data ", data);
        if (mapping && target.rank_is_static() && data.rank_is_static()) {
            const auto axes =
                normalize_axes(node, *mapping, static_cast<int64_t>(target.size()), "axes_mapping");
            for (size_t i = 0; i < axes.size(); ++i) {
                if (i > 0 && axes[i] <= axes[i - 1])
                    throw_error<InvalidArgument>(node.describe(), ": axes_mapping ",
                                                 to_text(*mapping), " must be increasing");
                if (!data[i].compatible(1) && !data[i].compatible(target[axes[i]]))
                    throw_error<InvalidArgument>(node.describe(), ": data ", data, " axis ", i,
                                                 " cannot broadcast to ", "target ", target,
                                                 " axis ", axes[i]);
            }
        }
        return {{in[0].type, target}};
    }
    if (mode == "numpy" && data.rank_is_static() && target.rank_is_static()) {
        if (data.size() > target.size())
            throw_error<InvalidArgument>(node.describe(), ": data ", data,
                                         " has higher rank than target shape ", target);
        // Data must broadcast into the target without changing it.
        const PartialShape merged = broadcast_shapes(node, data, target, "numpy");
        PartialShape out = target;
        for (size_t i = 0; i < out.size(); ++i) {
            if (target[i].is_static() && merged[i].is_static() && target[i] != merged[i])
                throw_error<InvalidArgument>(node.describe(), ": data ", data,
                                             " does not broadcast to target shape ", target);
            if (target[i].is_dynamic()) out[i] = merged[i];
        }
        return {{in[0].type, out}};
    }
    return {{in[0].type, target}};
}

Outputs infer_tile(const Node& node, const Inputs& in) {
    check_type(node, in, 1, "repeats", is_integral_number, "an integer type");
    check_rank(node, in, 1, "repeats", 1, 1);
    const PartialShape& data = in[0].shape;
    auto repeats = values_of(in, 1);
    if (!data.rank_is_static()) return {{in[0].type, PartialShape::dynamic()}};
    if (!repeats) {
        if (auto len = static_length(in[1]))
            return {{in[0].type,
                     PartialShape::dynamic(std::max(data.size(), static_cast<size_t>(*len)))}};
        return {{in[0].type, PartialShape::dynamic()}};
    }
    for (int64_t r : *repeats)
        if (r < 0)
            throw_error<InvalidArgument>(node.describe(), ": repeats ", to_text(*repeats),
                                         " must be non-negative");
    const size_t rank = std::max(data.size(), repeats->size());
    PartialShape out;
    for (size_t i = 0; i < rank; ++i) {
        const size_t from_end = rank - 1 - i;
        const Dimension d =
            from_end < data.size() ? data[data.size() - 1 - from_end] : Dimension(1);
        const int64_t r =
            from_end < repeats->size() ? (*repeats)[repeats->size() - 1 - from_end] : 1;
        out.push_back(d * Dimension(r));
    }
    return {{in[0].type, out}};
}

Outputs infer_pad(const Node& node, const Inputs& in, bool allow_negative) {
    check_type(node, in, 1, "pads_begin", is_integral_number, "an integer type");
    check_type(node, in, 2, "pads_end", is_integral_number, "an integer type");
    check_rank(node, in, 1, "pads_begin", 1, 1);
    check_rank(node, in, 2, "pads_end", 1, 1);
    if (in.size() > 3) {
        merge_types(node, in, 0, 3);
        check_rank(node, in, 3, "pad_value", 0, 0);
        if (node.get_attribute<std::string>("pad_mode") != "constant")
            throw_error<InvalidArgument>(
                node.describe(), ": input 3 (pad_value) is only allowed with pad_mode 'constant'");
    }
    const PartialShape& data = in[0].shape;
    auto begin = values_of(in, 1);
    auto end = values_of(in, 2);
    std::optional<int64_t> rank = static_rank(in[0]);
    if (!rank) rank = static_length(in[1]);
    if (!rank) rank = static_length(in[2]);
    if (!rank) return {{in[0].type, PartialShape::dynamic()}};
    for (const auto* pads : {&begin, &end}) {
        if (!*pads) continue;
        if (static_cast<int64_t>((*pads)->size()) != *rank)
            throw_error<InvalidArgument>(node.describe(), ": pads ", to_text(**pads),
                                         " must have one value per axis of ", "data ", data);
        for (int64_t p : **pads)
            if (p < 0 && !allow_negative)
                throw_error<InvalidArgument>(
                    node.describe(), ": pads ", to_text(**pads),
                    " must be non-negative in Pad-1 (negative pads need Pad-12)");
    }
    if (!data.rank_is_static())
        return {{in[0].type, PartialShape::dynamic(static_cast<size_t>(*rank))}};
    PartialShape out;
    for (size_t i = 0; i < data.size(); ++i) {
        if (!begin || !end) {
            out.push_back(Dimension());
            continue;
        }
        const int64_t total = (*begin)[i] + (*end)[i];
        if (data[i].is_static() && data[i].get_length() + total < 0)
            throw_error<InvalidArgument>(node.describe(), ": pads ", (*begin)[i], " and ",
                                         (*end)[i], " remove more than ", "the ",
                                         data[i].get_length(), " elements of axis ", i);
        out.push_back(total >= 0 ? data[i] + Dimension(total) : data[i] - Dimension(-total));
    }
    return {{in[0].type, out}};
}

}  // namespace

void register_generator_ops(OpRegistry& r) {
    r.add(OpDef{"ShapeOf",
                1,
                "",
                1,
                1,
                {},
                [](const Node& n, const Inputs& in) { return infer_shape_of(n, in, element::i64); },
                {}});
    r.add(OpDef{"ShapeOf",
                3,
                "",
                1,
                1,
                {optional_attr("output_type", AttrType::kElementType, element::i64)},
                [](const Node& n, const Inputs& in) {
                    return infer_shape_of(n, in, n.get_attribute<element::Type>("output_type"));
                },
                {}});
    r.add(OpDef{"Range", 1, "", 3, 3, {}, infer_range_1, {}});
    r.add(OpDef{"Range",
                4,
                "",
                3,
                3,
                {required_attr("output_type", AttrType::kElementType)},
                infer_range_4,
                {}});
    r.add(OpDef{"Broadcast",
                1,
                "",
                2,
                3,
                {optional_attr("mode", AttrType::kString, std::string("numpy"),
                               {"numpy", "explicit", "pdpd"})},
                infer_broadcast,
                {}});
    r.add(OpDef{"Broadcast",
                3,
                "",
                2,
                3,
                {optional_attr("mode", AttrType::kString, std::string("numpy"),
                               {"numpy", "explicit", "bidirectional", "pdpd"})},
                infer_broadcast,
                {}});
    r.add(OpDef{"Tile", 1, "", 2, 2, {}, infer_tile, {}});
    const std::vector<std::string> modes{"constant", "edge", "reflect", "symmetric"};
    r.add(OpDef{"Pad",
                1,
                "",
                3,
                4,
                {required_attr("pad_mode", AttrType::kString, modes)},
                [](const Node& n, const Inputs& in) { return infer_pad(n, in, false); },
                {}});
    r.add(OpDef{"Pad",
                12,
                "",
                3,
                4,
                {required_attr("pad_mode", AttrType::kString, modes)},
                [](const Node& n, const Inputs& in) { return infer_pad(n, in, true); },
                {}});
}

}  // namespace vireo::ops_impl
