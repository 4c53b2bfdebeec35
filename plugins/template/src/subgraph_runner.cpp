// Implements SubgraphRunner: If picks and runs one body; Loop runs its body per iteration with
// back edges, sliced inputs, the current-iteration number and concatenated outputs.
#include "subgraph_runner.hpp"

#include "config.hpp"
#include "plan_executor.hpp"
#include "vireo/op_registry.hpp"
#include "vireo/sdk/memory_limits.hpp"

namespace vireo::template_plugin {
namespace {

constexpr size_t kSliceFields = 5;  // axis, start, stride, end, part_size

// The single integer of a scalar (or one-element) tensor of any number or boolean type.
int64_t scalar_of(const Node& node, const Tensor& t, const char* what) {
    InferInput in{t.get_element_type(), PartialShape(t.get_shape()), t};
    const auto values = in.int_values();
    if (!values || values->size() != 1)
        throw_error<InvalidArgument>(kDeviceName, ": ", node.describe(), ": ", what,
                                     " must hold one value, got shape ", t.get_shape());
    return (*values)[0];
}

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
        if (fields.empty()) return {};
        const int64_t* f = &fields[port * kSliceFields];
        return {f[0], f[1], f[2], f[3], f[4]};
    }
    // Number of chunks an axis of `dim` holds.
    int64_t count(int64_t dim) const {
        const int64_t s = start < 0 ? dim + start + 1 : start;
        const int64_t e = end < 0 ? dim + end + 1 : end;
        const int64_t step = stride == 0 ? 1 : (stride < 0 ? -stride : stride);
        const int64_t span = stride < 0 ? s - e : e - s;
        return span <= 0 ? 0 : (span - part) / step + 1;
    }
    int64_t begin(int64_t dim, int64_t k) const {
        const int64_t s = start < 0 ? dim + start + 1 : start;
        return stride < 0 ? s + k * stride - part : s + k * stride;
    }
};

Tensor slice(const Node& node, const Tensor& src, const Slicing& sl, int64_t k, size_t param) {
    const Shape& shape = src.get_shape();
    if (sl.axis >= static_cast<int64_t>(shape.size()))
        throw_error<InvalidArgument>(kDeviceName, ": ", node.describe(), ": body Parameter ", param,
                                     " is sliced on axis ", sl.axis, " of an input of shape ",
                                     shape);
    const auto axis = static_cast<size_t>(sl.axis);
    const auto dim = static_cast<int64_t>(shape[axis]);
    const int64_t b = sl.begin(dim, k);
    if (b < 0 || b + sl.part > dim)
        throw_error<InvalidArgument>(kDeviceName, ": ", node.describe(), ": iteration ", k,
                                     " needs elements [", b, ", ", b + sl.part, ") of axis ", axis,
                                     " of body Parameter ", param, "'s input of shape ", shape);
    Coordinate begin(shape.size(), 0);
    Coordinate end(shape.begin(), shape.end());
    begin[axis] = static_cast<size_t>(b);
    end[axis] = static_cast<size_t>(b + sl.part);
    return Tensor(src, begin, end);
}

// Concatenates `parts` along `axis` (in reverse order for a negative stride). With no parts,
// the result has `fallback`'s rank and 0 elements on `axis`.
Tensor concatenate(const std::vector<Tensor>& parts, const Slicing& sl, element::Type type,
                   const PartialShape& fallback) {
    const auto axis = static_cast<size_t>(sl.axis);
    if (parts.empty()) {
        Shape shape;
        if (fallback.rank_is_static())
            for (size_t i = 0; i < fallback.size(); ++i)
                shape.push_back(
                    fallback[i].is_static() ? static_cast<size_t>(fallback[i].get_length()) : 0);
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

Tensor iteration_number(element::Type type, int64_t k) {
    Tensor t(type, Shape{});
    if (type == element::i32)
        *static_cast<int32_t*>(t.data()) = static_cast<int32_t>(k);
    else if (type == element::i64)
        *static_cast<int64_t*>(t.data()) = k;
    else
        throw_error<InvalidArgument>(
            kDeviceName, ": the current-iteration Parameter must be i32 or i64, got ", type);
    return t;
}

}  // namespace

SubgraphRunner::SubgraphRunner(const PlanStep& step, std::function<void()> on_allocation)
    : m_step(step), m_on_allocation(std::move(on_allocation)), m_bodies(step.bodies.size()) {}

SubgraphRunner::~SubgraphRunner() = default;

std::vector<Tensor> SubgraphRunner::run(const std::vector<Tensor>& inputs,
                                        const std::function<bool()>& stop) {
    return m_step.node->get_type_name() == "If" ? run_if(inputs, stop) : run_loop(inputs, stop);
}

std::vector<Tensor> SubgraphRunner::run_body(size_t b, const std::vector<Tensor>& inputs,
                                             const std::function<bool()>& stop) {
    if (!m_bodies[b])
        m_bodies[b] = std::make_unique<PlanExecutor>(m_step.bodies[b], m_on_allocation);
    PlanExecutor& body = *m_bodies[b];
    for (size_t p = 0; p < inputs.size(); ++p) body.bind_input(p, inputs[p]);
    body.run(stop, nullptr, {});
    std::vector<Tensor> results;
    const size_t count = m_step.bodies[b]->result_values().size();
    for (size_t r = 0; r < count; ++r) results.push_back(body.result(r));
    return results;
}

std::vector<Tensor> SubgraphRunner::run_if(const std::vector<Tensor>& inputs,
                                           const std::function<bool()>& stop) {
    const Node& node = *m_step.node;
    const bool cond = scalar_of(node, inputs.at(0), "cond") != 0;
    const char* side = cond ? "then" : "else";
    const auto& in_map = node.get_attribute<std::vector<int64_t>>(std::string(side) + "_inputs");
    const auto& out_map = node.get_attribute<std::vector<int64_t>>(std::string(side) + "_outputs");
    std::vector<Tensor> body_inputs;
    for (const int64_t i : in_map) body_inputs.push_back(inputs.at(static_cast<size_t>(i)));
    const auto results = run_body(cond ? 0 : 1, body_inputs, stop);
    std::vector<Tensor> outputs;
    for (const int64_t r : out_map) outputs.push_back(results.at(static_cast<size_t>(r)));
    return outputs;
}

std::vector<Tensor> SubgraphRunner::run_loop(const std::vector<Tensor>& inputs,
                                             const std::function<bool()>& stop) {
    const Node& node = *m_step.node;
    const Model& body = *node.get_bodies().at(0);
    const auto& ports = node.get_attribute<std::vector<int64_t>>("input_ports");
    const auto& back = node.get_attribute<std::vector<int64_t>>("back_edges");
    const auto& in_slicing = node.get_attribute<std::vector<int64_t>>("input_slicing");
    const auto& out_results = node.get_attribute<std::vector<int64_t>>("output_results");
    const auto& out_slicing = node.get_attribute<std::vector<int64_t>>("output_slicing");
    const int64_t iter_idx = node.get_attribute<int64_t>("current_iteration_input_idx");
    const int64_t cond_idx = node.get_attribute<int64_t>("body_condition_output_idx");
    const size_t params = ports.size();

    const int64_t trip = scalar_of(node, inputs.at(0), "trip_count");
    bool go_on = scalar_of(node, inputs.at(1), "execution_condition") != 0;
    std::vector<Tensor> carried(params);  // values of back-edged Parameters after an iteration
    std::vector<std::vector<Tensor>> parts(out_results.size());
    std::vector<Tensor> results;
    size_t scanned_bytes = 0;  // what the scan outputs hold so far, checked every iteration
    int64_t k = 0;
    for (; go_on && (trip < 0 || k < trip); ++k) {
        if (stop && stop())
            throw_error<Cancelled>(kDeviceName, ": inference cancelled in iteration ", k, " of ",
                                   node.describe());
        std::vector<Tensor> body_inputs(params);
        for (size_t p = 0; p < params; ++p) {
            const Slicing sl = Slicing::at(in_slicing, p);
            if (static_cast<int64_t>(p) == iter_idx)
                body_inputs[p] =
                    iteration_number(body.get_parameters()[p]->get_output_element_type(0), k);
            else if (k > 0 && !back.empty() && back[p] >= 0)
                body_inputs[p] = carried[p];
            else if (sl.axis >= 0)
                body_inputs[p] = slice(node, inputs.at(static_cast<size_t>(ports[p])), sl, k, p);
            else
                body_inputs[p] = inputs.at(static_cast<size_t>(ports[p]));
        }
        results = run_body(0, body_inputs, stop);
        // Copies: the body's memory is reused by the next iteration.
        for (size_t p = 0; p < params && !back.empty(); ++p)
            if (back[p] >= 0) carried[p] = results.at(static_cast<size_t>(back[p])).clone();
        for (size_t o = 0; o < out_results.size(); ++o)
            if (Slicing::at(out_slicing, o).axis >= 0) {
                parts[o].push_back(results.at(static_cast<size_t>(out_results[o])).clone());
                scanned_bytes += parts[o].back().get_byte_size();
            }
        // The concatenation needs as much again, and the rest of the model its share: refuse at a
        // quarter of the memory the process may use, before the machine runs out.
        if (scanned_bytes > sdk::physical_memory_bytes() / 4)
            throw_error<InvalidArgument>(kDeviceName, ": ", node.describe(),
                                         ": its scan outputs hold ", scanned_bytes, " bytes after ",
                                         k + 1, " iterations (trip count ", trip,
                                         "), more than a quarter of the memory available (",
                                         sdk::physical_memory_bytes(), ")");
        if (cond_idx >= 0)
            go_on = scalar_of(node, results.at(static_cast<size_t>(cond_idx)),
                              "the body condition") != 0;
    }

    std::vector<Tensor> outputs;
    for (size_t o = 0; o < out_results.size(); ++o) {
        const auto r = static_cast<size_t>(out_results[o]);
        const Slicing sl = Slicing::at(out_slicing, o);
        const Output body_out = body.output(r);
        if (sl.axis >= 0) {
            outputs.push_back(concatenate(parts[o], sl, body_out.get_element_type(),
                                          body_out.get_partial_shape()));
            continue;
        }
        if (k > 0) {
            outputs.push_back(results.at(r));
            continue;
        }
        // No iteration ran: a Result carried back to a Parameter gives that Parameter's input.
        Tensor initial;
        for (size_t p = 0; p < params && !back.empty() && !initial; ++p)
            if (back[p] == static_cast<int64_t>(r) && ports[p] >= 0)
                initial = inputs.at(static_cast<size_t>(ports[p]));
        if (!initial)
            throw_error<InvalidArgument>(kDeviceName, ": ", node.describe(), ": output ", o,
                                         " has no value: no iteration ran and body Result ", r,
                                         " is not carried back to an input");
        outputs.push_back(initial);
    }
    return outputs;
}

}  // namespace vireo::template_plugin
