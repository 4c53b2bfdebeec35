// Defines the sub-graph ops If-8 and Loop-5: their port-map attributes (docs/ops.md "Sub-graph
// ops") and type/shape inference from the body models' Results.
#include <algorithm>

#include "ops/op_helpers.hpp"
#include "vireo/model.hpp"

namespace vireo::ops_impl {
namespace {

constexpr size_t kSliceFields = 5;  // axis, start, stride, end, part_size

const Model& body_at(const Node& node, size_t i, const char* what) {
    const auto& bodies = node.get_bodies();
    if (bodies.size() <= i || !bodies[i])
        throw_error<InvalidArgument>(node.describe(), ": has no ", what, " body (", bodies.size(),
                                     " bodies set)");
    return *bodies[i];
}

const std::vector<int64_t>& ints(const Node& node, const char* name) {
    return node.get_attribute<std::vector<int64_t>>(name);
}

// Checks that `map` has one entry per body Parameter and each names an input of the node in
// [first_input, input count); -1 is allowed where `allow_none`.
void check_input_map(const Node& node, const Model& body, const std::vector<int64_t>& map,
                     const char* attr, const Inputs& in, size_t first_input, bool allow_none) {
    if (map.size() != body.get_parameters().size())
        throw_error<InvalidArgument>(node.describe(), ": attribute '", attr, "' has ", map.size(),
                                     " entries, the body has ", body.get_parameters().size(),
                                     " Parameters");
    for (size_t p = 0; p < map.size(); ++p) {
        const int64_t i = map[p];
        if (i == -1 && allow_none) continue;
        if (i < static_cast<int64_t>(first_input) || i >= static_cast<int64_t>(in.size()))
            throw_error<InvalidArgument>(node.describe(), ": attribute '", attr,
                                         "' maps body Parameter ", p, " to input ", i,
                                         ", expected ", first_input, "..", in.size() - 1);
    }
}

void check_result_index(const Node& node, const Model& body, int64_t r, const char* attr) {
    if (r < 0 || r >= static_cast<int64_t>(body.get_results().size()))
        throw_error<InvalidArgument>(node.describe(), ": attribute '", attr, "' names body Result ",
                                     r, ", the body has ", body.get_results().size(), " Results");
}

// Body Parameter types must agree with the inputs feeding them (shapes may be narrower or wider:
// a body is compiled on its own and checks its inputs when it runs).
void check_param_type(const Node& node, const Model& body, size_t p, const InferInput& input) {
    const element::Type& t = body.get_parameters()[p]->get_output_element_type(0);
    if (t.is_static() && input.type.is_static() && t != input.type)
        throw_error<InvalidArgument>(node.describe(), ": body Parameter ", p, " is ", t,
                                     " but its input is ", input.type);
}

PartialShape merge_branch_shapes(const PartialShape& a, const PartialShape& b) {
    if (!a.rank_is_static() || !b.rank_is_static() || a.size() != b.size())
        return PartialShape::dynamic();
    std::vector<Dimension> dims;
    for (size_t i = 0; i < a.size(); ++i) {
        const Dimension& x = a[i];
        const Dimension& y = b[i];
        if (x.is_static() && y.is_static() && x.get_length() == y.get_length()) {
            dims.push_back(x);
        } else {
            dims.emplace_back(std::min(x.get_min_length(), y.get_min_length()),
                              std::max(x.get_max_length(), y.get_max_length()));
        }
    }
    return PartialShape(dims);
}

std::optional<bool> constant_bool(const InferInput& in) {
    auto v = in.int_values();
    if (!v || v->size() != 1) return std::nullopt;
    return (*v)[0] != 0;
}

Outputs infer_if(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "cond", is_boolean, "boolean");
    check_rank(node, in, 0, "cond", 0, 1);
    const Model& then_body = body_at(node, 0, "then");
    const Model& else_body = body_at(node, 1, "else");
    const auto& then_in = ints(node, "then_inputs");
    const auto& else_in = ints(node, "else_inputs");
    check_input_map(node, then_body, then_in, "then_inputs", in, 1, false);
    check_input_map(node, else_body, else_in, "else_inputs", in, 1, false);
    for (size_t p = 0; p < then_in.size(); ++p)
        check_param_type(node, then_body, p, in[then_in[p]]);
    for (size_t p = 0; p < else_in.size(); ++p)
        check_param_type(node, else_body, p, in[else_in[p]]);
    const auto& then_out = ints(node, "then_outputs");
    const auto& else_out = ints(node, "else_outputs");
    if (then_out.size() != else_out.size())
        throw_error<InvalidArgument>(node.describe(), ": then_outputs has ", then_out.size(),
                                     " entries but else_outputs has ", else_out.size());
    const std::optional<bool> cond = constant_bool(in[0]);
    Outputs out;
    for (size_t o = 0; o < then_out.size(); ++o) {
        check_result_index(node, then_body, then_out[o], "then_outputs");
        check_result_index(node, else_body, else_out[o], "else_outputs");
        const Output t = then_body.output(static_cast<size_t>(then_out[o]));
        const Output e = else_body.output(static_cast<size_t>(else_out[o]));
        if (cond) {
            const Output& taken = *cond ? t : e;
            out.push_back({taken.get_element_type(), taken.get_partial_shape()});
            continue;
        }
        element::Type type = t.get_element_type();
        if (type.is_static() && e.get_element_type().is_static() && type != e.get_element_type())
            throw_error<InvalidArgument>(node.describe(), ": output ", o, " is ", type,
                                         " in the then body but ", e.get_element_type(),
                                         " in the else body");
        if (!type.is_static()) type = e.get_element_type();
        out.push_back({type, merge_branch_shapes(t.get_partial_shape(), e.get_partial_shape())});
    }
    return out;
}

// The iteration count when it is known before running: a constant trip count (>= 0) and a loop
// that cannot end early (no body condition, or a constant true one), or 0 for a constant false
// initial condition.
std::optional<int64_t> static_iterations(const Node& node, const Model& body, const Inputs& in) {
    const std::optional<bool> first = constant_bool(in[1]);
    if (first && !*first) return 0;
    if (!first) return std::nullopt;
    const int64_t cond_idx = node.get_attribute<int64_t>("body_condition_output_idx");
    if (cond_idx >= 0) {
        const Output c = body.output(static_cast<size_t>(cond_idx)).get_node()->input_value(0);
        if (c.get_node()->get_type_name() != "Constant") return std::nullopt;
        const Tensor& v = c.get_node()->get_constant_value();
        if (v.get_size() != 1 || static_cast<const uint8_t*>(v.data())[0] == 0) return std::nullopt;
    }
    auto trip = in[0].int_values();
    if (!trip || trip->size() != 1 || (*trip)[0] < 0) return std::nullopt;
    return (*trip)[0];
}

Outputs infer_loop(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "trip_count", is_integral_number, "an integer type");
    check_type(node, in, 1, "execution_condition", is_boolean, "boolean");
    const Model& body = body_at(node, 0, "loop");
    const size_t params = body.get_parameters().size();
    const int64_t iter_idx = node.get_attribute<int64_t>("current_iteration_input_idx");
    const int64_t cond_idx = node.get_attribute<int64_t>("body_condition_output_idx");
    if (iter_idx < -1 || iter_idx >= static_cast<int64_t>(params))
        throw_error<InvalidArgument>(node.describe(), ": current_iteration_input_idx ", iter_idx,
                                     " is not a body Parameter (the body has ", params, ")");
    if (cond_idx != -1) check_result_index(node, body, cond_idx, "body_condition_output_idx");
    const auto& ports = ints(node, "input_ports");
    check_input_map(node, body, ports, "input_ports", in, 0, true);
    const auto& back = ints(node, "back_edges");
    if (!back.empty() && back.size() != params)
        throw_error<InvalidArgument>(node.describe(), ": back_edges has ", back.size(),
                                     " entries, the body has ", params, " Parameters");
    for (int64_t r : back)
        if (r != -1) check_result_index(node, body, r, "back_edges");
    const auto& in_slices = ints(node, "input_slicing");
    if (!in_slices.empty() && in_slices.size() != params * kSliceFields)
        throw_error<InvalidArgument>(node.describe(), ": input_slicing needs ", kSliceFields,
                                     " values per body Parameter (", params * kSliceFields,
                                     "), got ", in_slices.size());
    for (size_t p = 0; p < params; ++p) {
        if (static_cast<int64_t>(p) == iter_idx) continue;
        if (ports[p] < 0)
            throw_error<InvalidArgument>(node.describe(), ": body Parameter ", p,
                                         " is fed by no input (input_ports has -1 for it)");
        check_param_type(node, body, p, in[ports[p]]);
    }
    const auto& outs = ints(node, "output_results");
    const auto& out_slices = ints(node, "output_slicing");
    if (!out_slices.empty() && out_slices.size() != outs.size() * kSliceFields)
        throw_error<InvalidArgument>(node.describe(), ": output_slicing needs ", kSliceFields,
                                     " values per output (", outs.size() * kSliceFields, "), got ",
                                     out_slices.size());
    const std::optional<int64_t> iterations = static_iterations(node, body, in);
    Outputs out;
    for (size_t o = 0; o < outs.size(); ++o) {
        check_result_index(node, body, outs[o], "output_results");
        const Output r = body.output(static_cast<size_t>(outs[o]));
        PartialShape shape = r.get_partial_shape();
        const int64_t axis = out_slices.empty() ? -1 : out_slices[o * kSliceFields];
        if (axis >= 0) {
            if (!shape.rank_is_static()) {
                out.push_back({r.get_element_type(), PartialShape::dynamic()});
                continue;
            }
            if (axis >= static_cast<int64_t>(shape.size()))
                throw_error<InvalidArgument>(node.describe(), ": output ", o,
                                             " is concatenated on axis ", axis, " but body Result ",
                                             outs[o], " has rank ", shape.size());
            const Dimension part = shape[static_cast<size_t>(axis)];
            if (iterations && part.is_static())
                shape[static_cast<size_t>(axis)] = Dimension(*iterations * part.get_length());
            else
                shape[static_cast<size_t>(axis)] = Dimension::dynamic();
        } else if (!iterations || *iterations == 0) {
            // A carried value's final value is its initial one when the body never runs: the
            // shape covers both (a [0, H, W] start that each iteration appends to).
            for (size_t p = 0; p < back.size(); ++p)
                if (back[p] == outs[o] && ports[p] >= 0)
                    shape = iterations ? in[ports[p]].shape
                                       : merge_branch_shapes(shape, in[ports[p]].shape);
        }
        out.push_back({r.get_element_type(), shape});
    }
    return out;
}

}  // namespace

void register_subgraph_ops(OpRegistry& r) {
    const std::vector<int64_t> none;
    r.add(OpDef{"If",
                8,
                "",
                1,
                1u << 20,
                {optional_attr("then_inputs", AttrType::kIntList, none),
                 optional_attr("else_inputs", AttrType::kIntList, none),
                 optional_attr("then_outputs", AttrType::kIntList, none),
                 optional_attr("else_outputs", AttrType::kIntList, none)},
                infer_if,
                {}});
    r.add(OpDef{"Loop",
                5,
                "",
                2,
                1u << 20,
                {optional_attr("current_iteration_input_idx", AttrType::kInt, int64_t{-1}),
                 optional_attr("body_condition_output_idx", AttrType::kInt, int64_t{-1}),
                 optional_attr("input_ports", AttrType::kIntList, none),
                 optional_attr("back_edges", AttrType::kIntList, none),
                 optional_attr("input_slicing", AttrType::kIntList, none),
                 optional_attr("output_results", AttrType::kIntList, none),
                 optional_attr("output_slicing", AttrType::kIntList, none)},
                infer_loop,
                {}});
}

}  // namespace vireo::ops_impl
