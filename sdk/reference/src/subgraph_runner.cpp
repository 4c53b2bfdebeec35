// Implements SubgraphRunner: If picks and runs one body; Loop runs its body per iteration with
// back edges, sliced inputs, the current-iteration number and concatenated outputs.
#include "vireo/reference/subgraph_runner.hpp"

#include "vireo/model.hpp"
#include "vireo/reference/kernel.hpp"
#include "vireo/sdk/memory_limits.hpp"

namespace vireo::reference {
namespace {

constexpr size_t kSliceFields = 5;  // axis, start, stride, end, part_size

// One port's slicing: the chunk [begin, begin + part) of `axis` for iteration `k`. A negative
// start or end counts from the end (-1 is the end itself); a negative stride walks backwards
// from `start`.
struct Slicing {
    int64_t axis = -1;
    int64_t start = 0;
    int64_t stride = 1;
    int64_t end = -1;
    int64_t part = 1;

    static Slicing at(const std::vector<int64_t>& fields, size_t port) {
        if ((port + 1) * kSliceFields > fields.size()) return {};
        const int64_t* f = &fields[port * kSliceFields];
        return {f[0], f[1], f[2], f[3], f[4]};
    }
    int64_t begin(int64_t dim, int64_t k) const {
        const int64_t s = start < 0 ? dim + start + 1 : start;
        return stride < 0 ? s + k * stride - part : s + k * stride;
    }
};

}  // namespace

SubgraphRunner::SubgraphRunner(const Node& node, std::string device, BodyResults results)
    : m_node(node), m_device(std::move(device)), m_results(results) {}

SubgraphRunner::~SubgraphRunner() = default;

std::vector<Tensor> SubgraphRunner::run(const std::vector<Tensor>& inputs,
                                        const std::function<bool()>& stop) {
    return m_node.get_type_name() == "If" ? run_if(inputs, stop) : run_loop(inputs, stop);
}

Tensor SubgraphRunner::kept(const Tensor& t) const {
    return m_results == BodyResults::kViews ? t.clone() : t;
}

std::vector<Tensor> SubgraphRunner::call_body(size_t b, const std::vector<Tensor>& inputs,
                                              const std::function<bool()>& stop,
                                              int64_t iteration) {
    if (stop && stop()) {
        if (iteration >= 0)
            throw_error<Cancelled>(m_device, ": inference cancelled in iteration ", iteration,
                                   " of ", m_node.describe());
        throw_error<Cancelled>(m_device, ": inference cancelled in ", m_node.describe());
    }
    return run_body(b, inputs, stop);
}

namespace {

// The single element of `t` converted to `type` (i64 or boolean): conditions and trip counts of
// any number or boolean type.
Tensor scalar_as(const std::string& device, const Node& node, const Tensor& t, element::Type type,
                 const char* what) {
    if (t.get_size() != 1)
        throw_error<InvalidArgument>(device, ": ", node.describe(), ": the ", what,
                                     " must hold one value, got shape ", t.get_shape());
    Tensor out(type, Shape{1});
    Tensor flat(t.get_element_type(), Shape{1}, t.data());
    convert_elements(flat, out);
    return out;
}

bool as_bool(const std::string& device, const Node& node, const Tensor& t, const char* what) {
    return *static_cast<const char*>(scalar_as(device, node, t, element::boolean, what).data()) !=
           0;
}

Tensor slice(const std::string& device, const Node& node, const Tensor& src, const Slicing& sl,
             int64_t k, size_t param) {
    const Shape& shape = src.get_shape();
    if (sl.axis >= static_cast<int64_t>(shape.size()))
        throw_error<InvalidArgument>(device, ": ", node.describe(), ": body Parameter ", param,
                                     " is sliced on axis ", sl.axis, " of an input of shape ",
                                     shape);
    const auto axis = static_cast<size_t>(sl.axis);
    const auto dim = static_cast<int64_t>(shape[axis]);
    const int64_t b = sl.begin(dim, k);
    if (b < 0 || b + sl.part > dim)
        throw_error<InvalidArgument>(device, ": ", node.describe(), ": iteration ", k,
                                     " needs elements [", b, ", ", b + sl.part, ") of axis ", axis,
                                     " of body Parameter ", param, "'s input of shape ", shape);
    Coordinate begin(shape.size(), 0);
    Coordinate end(shape.begin(), shape.end());
    begin[axis] = static_cast<size_t>(b);
    end[axis] = static_cast<size_t>(b + sl.part);
    return Tensor(src, begin, end).clone();  // contiguous: a body may read its inputs in place
}

// Concatenates `parts` along the slicing's axis (in reverse order for a negative stride). With
// no parts, the result has `declared`'s rank (dynamic dimensions as 0) and 0 elements on the axis.
Tensor concatenate(const std::vector<Tensor>& parts, const Slicing& sl, element::Type type,
                   const PartialShape& declared) {
    const auto axis = static_cast<size_t>(sl.axis);
    if (parts.empty()) {
        Shape shape;
        if (declared.rank_is_static())
            for (size_t i = 0; i < declared.size(); ++i)
                shape.push_back(
                    declared[i].is_static() ? static_cast<size_t>(declared[i].get_length()) : 0);
        if (axis < shape.size()) shape[axis] = 0;
        return Tensor(type, shape);
    }
    Shape shape = parts[0].get_shape();
    size_t total = 0;
    for (const auto& p : parts) total += p.get_shape().at(axis);
    shape[axis] = total;
    Tensor out(type, shape);
    size_t offset = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
        const Tensor& part = parts[sl.stride < 0 ? parts.size() - 1 - i : i];
        Coordinate begin(shape.size(), 0);
        Coordinate end(shape.begin(), shape.end());
        begin[axis] = offset;
        end[axis] = offset + part.get_shape()[axis];
        Tensor view(out, begin, end);
        part.copy_to(view);
        offset = end[axis];
    }
    return out;
}

// Iteration `k` in the current-iteration Parameter's element type and (static) shape.
Tensor iteration_number(const Node& parameter, int64_t k) {
    const PartialShape& ps = parameter.get_output_partial_shape(0);
    Tensor index(element::i64, Shape{1});
    *index.data<int64_t>() = k;
    Tensor value(parameter.get_output_element_type(0), ps.is_static() ? ps.to_shape() : Shape{});
    Tensor flat(value.get_element_type(), Shape{1}, value.data());
    convert_elements(index, flat);
    return value;
}

}  // namespace

std::vector<Tensor> SubgraphRunner::run_if(const std::vector<Tensor>& inputs,
                                           const std::function<bool()>& stop) {
    const bool cond = as_bool(m_device, m_node, inputs.at(0), "condition");
    const char* side = cond ? "then" : "else";
    const auto& in_map = m_node.get_attribute<std::vector<int64_t>>(std::string(side) + "_inputs");
    const auto& out_map =
        m_node.get_attribute<std::vector<int64_t>>(std::string(side) + "_outputs");
    std::vector<Tensor> body_inputs;
    for (const int64_t i : in_map) body_inputs.push_back(inputs.at(static_cast<size_t>(i)));
    const auto results = call_body(cond ? 0 : 1, body_inputs, stop, -1);
    std::vector<Tensor> outputs;
    for (const int64_t r : out_map) outputs.push_back(results.at(static_cast<size_t>(r)));
    return outputs;
}

std::vector<Tensor> SubgraphRunner::run_loop(const std::vector<Tensor>& inputs,
                                             const std::function<bool()>& stop) {
    const Node& node = m_node;
    const Model& body = *node.get_bodies().at(0);
    const auto& ports = node.get_attribute<std::vector<int64_t>>("input_ports");
    const auto& back = node.get_attribute<std::vector<int64_t>>("back_edges");
    const auto& in_slicing = node.get_attribute<std::vector<int64_t>>("input_slicing");
    const auto& out_results = node.get_attribute<std::vector<int64_t>>("output_results");
    const auto& out_slicing = node.get_attribute<std::vector<int64_t>>("output_slicing");
    const int64_t iter_idx = node.get_attribute<int64_t>("current_iteration_input_idx");
    const int64_t cond_idx = node.get_attribute<int64_t>("body_condition_output_idx");
    const size_t params = body.get_parameters().size();
    auto port_of = [&](size_t p) { return p < ports.size() ? ports[p] : -1; };
    auto back_of = [&](size_t p) { return p < back.size() ? back[p] : -1; };

    const int64_t trip =
        inputs.at(0) && inputs[0].get_size() > 0
            ? *scalar_as(m_device, node, inputs[0], element::i64, "trip count").data<int64_t>()
            : -1;
    bool go_on = !inputs.at(1) || inputs[1].get_size() == 0 ||
                 as_bool(m_device, node, inputs[1], "execution condition");

    std::vector<Tensor> carried(params);  // values of back-edged Parameters after an iteration
    std::vector<std::vector<Tensor>> parts(out_results.size());
    std::vector<Tensor> results;
    size_t scanned_bytes = 0;  // what the scan outputs hold so far, checked every iteration
    int64_t k = 0;
    for (; go_on && (trip < 0 || k < trip); ++k) {
        std::vector<Tensor> body_inputs(params);
        for (size_t p = 0; p < params; ++p) {
            const Slicing sl = Slicing::at(in_slicing, p);
            const int64_t port = port_of(p);
            if (static_cast<int64_t>(p) == iter_idx)
                body_inputs[p] = iteration_number(*body.get_parameters()[p], k);
            else if (k > 0 && back_of(p) >= 0)
                body_inputs[p] = carried[p];
            else if (port >= 0 && sl.axis >= 0)
                body_inputs[p] =
                    slice(m_device, node, inputs.at(static_cast<size_t>(port)), sl, k, p);
            else if (port >= 0)
                body_inputs[p] = inputs.at(static_cast<size_t>(port));
        }
        results = call_body(0, body_inputs, stop, k);
        for (size_t p = 0; p < params; ++p)
            if (back_of(p) >= 0) carried[p] = kept(results.at(static_cast<size_t>(back_of(p))));
        for (size_t o = 0; o < out_results.size(); ++o)
            if (Slicing::at(out_slicing, o).axis >= 0) {
                parts[o].push_back(kept(results.at(static_cast<size_t>(out_results[o]))));
                scanned_bytes += parts[o].back().get_byte_size();
            }
        // The concatenation needs as much again, and the rest of the model its share: refuse at a
        // quarter of the memory the process may use, before the machine runs out.
        if (scanned_bytes > sdk::physical_memory_bytes() / 4)
            throw_error<InvalidArgument>(m_device, ": ", node.describe(),
                                         ": its scan outputs hold ", scanned_bytes, " bytes after ",
                                         k + 1, " iterations (trip count ", trip,
                                         "), more than a quarter of the memory available (",
                                         sdk::physical_memory_bytes(), ")");
        if (cond_idx >= 0)
            go_on = as_bool(m_device, node, results.at(static_cast<size_t>(cond_idx)),
                            "body condition");
    }

    std::vector<Tensor> outputs;
    for (size_t o = 0; o < out_results.size(); ++o) {
        const auto r = static_cast<size_t>(out_results[o]);
        const Slicing sl = Slicing::at(out_slicing, o);
        if (sl.axis >= 0) {
            outputs.push_back(concatenate(parts[o], sl, node.get_output_element_type(o),
                                          node.get_output_partial_shape(o)));
            continue;
        }
        if (k > 0) {
            outputs.push_back(results.at(r));
            continue;
        }
        // No iteration ran: a Result carried back to a Parameter gives that Parameter's input.
        Tensor initial;
        for (size_t p = 0; p < params && !initial; ++p)
            if (back_of(p) == static_cast<int64_t>(r) && port_of(p) >= 0)
                initial = inputs.at(static_cast<size_t>(port_of(p)));
        if (!initial)
            throw_error<InvalidArgument>(m_device, ": ", node.describe(), ": output ", o,
                                         " has no value: no iteration ran and body Result ", r,
                                         " is not carried back to an input");
        outputs.push_back(initial);
    }
    return outputs;
}

}  // namespace vireo::reference
