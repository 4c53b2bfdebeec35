// Implements SubgraphRunner: If picks a body by its condition; Loop iterates its body with back
// edges and concatenated outputs.
#include "subgraph_runner.hpp"

#include <cstring>

#include "config.hpp"
#include "graph_compiler.hpp"
#include "graph_executor.hpp"
#include "vireo/reference/constant_folding.hpp"
#include "vireo/sdk/memory_limits.hpp"

namespace vireo::cpu_plugin {
namespace {

// The single element of `t` converted to `type` (i64 or boolean), for conditions and counts.
Tensor scalar_as(const Node& node, const Tensor& t, element::Type type, const char* what) {
    if (t.get_size() != 1)
        throw_error<InvalidArgument>(kDeviceName, ": ", node.describe(), ": the ", what,
                                     " must hold one value, got shape ", t.get_shape());
    Tensor out(type, Shape{1});
    Tensor flat(t.get_element_type(), Shape{1}, t.data());
    reference::convert_elements(flat, out);
    return out;
}

bool as_bool(const Node& node, const Tensor& t, const char* what) {
    return *static_cast<const char*>(scalar_as(node, t, element::boolean, what).data()) != 0;
}

// Stacks `parts` (same shape) along `axis`.
Tensor concatenate(const std::vector<Tensor>& parts, size_t axis, const Tensor& like) {
    Shape shape = like.get_shape();
    const size_t part_axis = shape.at(axis);
    shape[axis] = part_axis * parts.size();
    Tensor out(like.get_element_type(), shape);
    size_t outer = 1;
    for (size_t i = 0; i < axis; ++i) outer *= shape[i];
    const size_t chunk = parts.empty() ? 0 : like.get_byte_size() / std::max<size_t>(outer, 1);
    char* dst = static_cast<char*>(out.data());
    for (size_t o = 0; o < outer; ++o)
        for (const auto& p : parts) {
            std::memcpy(dst, static_cast<const char*>(p.data()) + o * chunk, chunk);
            dst += chunk;
        }
    return out;
}

}  // namespace

SubgraphRunner::SubgraphRunner(const Step& step, int omp_threads)
    : m_step(step), m_threads(omp_threads) {
    m_bodies.resize(step.bodies.size());
    m_specialized.resize(step.bodies.size());
}

SubgraphRunner::~SubgraphRunner() = default;

std::string SubgraphRunner::unsupported_reason(const Node& node) {
    for (const auto& body : node.get_bodies())
        if (!body->get_variables().empty()) return "its body uses variables (ReadValue/Assign)";
    if (node.get_type_name() != "Loop") return "";
    for (const char* attr : {"input_slicing", "output_slicing"}) {
        const auto& s = node.get_attribute<std::vector<int64_t>>(attr);
        for (size_t i = 0; i + 4 < s.size(); i += 5) {
            if (s[i] < 0) continue;
            if (std::string(attr) == "input_slicing") return "sliced Loop inputs are not supported";
            if (s[i + 1] != 0 || s[i + 2] != 1 || s[i + 3] != -1 || s[i + 4] != 1)
                return "a concatenated Loop output other than start 0, stride 1, end -1, part 1";
        }
    }
    return "";
}

std::vector<Tensor> SubgraphRunner::run(const std::vector<Tensor>& inputs,
                                        const std::function<bool()>& stop) {
    return m_step.node->get_type_name() == "If" ? run_if(inputs, stop) : run_loop(inputs, stop);
}

std::vector<Tensor> SubgraphRunner::run_body(size_t b, const std::vector<Tensor>& inputs,
                                             const std::function<bool()>& stop) {
    if (stop && stop())
        throw_error<Cancelled>(kDeviceName, ": inference cancelled in ", m_step.node->describe());
    GraphExecutor& executor = executor_for(b, inputs);
    executor.run(inputs, stop, nullptr, {});
    std::vector<Tensor> results;
    for (size_t r = 0; r < m_step.bodies[b]->result_values.size(); ++r)
        results.push_back(executor.result(r).clone());
    return results;
}

GraphExecutor& SubgraphRunner::executor_for(size_t b, const std::vector<Tensor>& inputs) {
    const auto& generic = m_step.bodies[b];
    auto generic_executor = [&]() -> GraphExecutor& {
        if (!m_bodies[b]) m_bodies[b] = std::make_unique<GraphExecutor>(generic, m_threads);
        return *m_bodies[b];
    };
    if (!generic->dynamic) return generic_executor();
    std::vector<Shape> shapes;
    for (const auto& t : inputs) shapes.push_back(t.get_shape());
    auto& cache = m_specialized[b];
    auto it = cache.find(shapes);
    if (it == cache.end()) {
        if (cache.size() >= kMaxBodyShapes) return generic_executor();
        std::unique_ptr<GraphExecutor> executor;
        try {
            auto copy = generic->model->clone();
            std::map<Output, PartialShape> reshaped;
            const auto& params = copy->get_parameters();
            for (size_t i = 0; i < params.size() && i < shapes.size(); ++i)
                reshaped[params[i]->output(0)] = PartialShape(shapes[i]);
            copy->reshape(reshaped);
            reference::fold_model_constants(*copy);  // shapes computed from shapes become static
            auto graph = compile_graph(std::move(copy), nullptr, generic->precision,
                                       generic->dynamic_quantization);
            if (!graph->dynamic || graph->has_region)
                executor = std::make_unique<GraphExecutor>(graph, m_threads);
        } catch (const Exception&) {
            // The generic body runs these shapes and reports what is wrong with them.
        }
        it = cache.emplace(std::move(shapes), std::move(executor)).first;
    }
    return it->second ? *it->second : generic_executor();
}

std::vector<Tensor> SubgraphRunner::run_if(const std::vector<Tensor>& inputs,
                                           const std::function<bool()>& stop) {
    const Node& node = *m_step.node;
    const bool cond = as_bool(node, inputs.at(0), "condition");
    const size_t b = cond ? 0 : 1;
    const auto& in_map =
        node.get_attribute<std::vector<int64_t>>(cond ? "then_inputs" : "else_inputs");
    const auto& out_map =
        node.get_attribute<std::vector<int64_t>>(cond ? "then_outputs" : "else_outputs");
    std::vector<Tensor> body_inputs;
    for (int64_t i : in_map) body_inputs.push_back(inputs.at(static_cast<size_t>(i)));
    const auto results = run_body(b, body_inputs, stop);
    std::vector<Tensor> outputs;
    for (int64_t r : out_map) outputs.push_back(results.at(static_cast<size_t>(r)));
    return outputs;
}

std::vector<Tensor> SubgraphRunner::run_loop(const std::vector<Tensor>& inputs,
                                             const std::function<bool()>& stop) {
    const Node& node = *m_step.node;
    const auto& body = *m_step.bodies[0]->model;
    const auto current = node.get_attribute<int64_t>("current_iteration_input_idx");
    const auto condition = node.get_attribute<int64_t>("body_condition_output_idx");
    const auto& in_ports = node.get_attribute<std::vector<int64_t>>("input_ports");
    const auto& back_edges = node.get_attribute<std::vector<int64_t>>("back_edges");
    const auto& out_results = node.get_attribute<std::vector<int64_t>>("output_results");
    const auto& out_slicing = node.get_attribute<std::vector<int64_t>>("output_slicing");
    const int64_t trip = inputs.at(0) && inputs[0].get_size() == 1
                             ? *static_cast<const int64_t*>(
                                   scalar_as(node, inputs[0], element::i64, "trip count").data())
                             : -1;
    bool go_on = !inputs.at(1) || inputs[1].get_size() == 0 ||
                 as_bool(node, inputs[1], "execution condition");

    const size_t params = body.get_parameters().size();
    std::vector<Tensor> values(params);
    for (size_t p = 0; p < params; ++p) {
        const int64_t port = p < in_ports.size() ? in_ports[p] : -1;
        if (port >= 0) values[p] = inputs.at(static_cast<size_t>(port));
    }
    auto axis_of = [&](size_t o) { return 5 * o < out_slicing.size() ? out_slicing[5 * o] : -1; };
    std::vector<Tensor> last(out_results.size());
    std::vector<std::vector<Tensor>> parts(out_results.size());
    std::vector<Tensor> results;
    size_t scanned_bytes = 0;  // what the scan outputs hold so far, checked every iteration
    int64_t i = 0;
    for (; (trip < 0 || i < trip) && go_on; ++i) {
        if (current >= 0) {
            const auto& param = body.get_parameters().at(static_cast<size_t>(current));
            const auto& ps = param->get_output_partial_shape(0);
            Tensor index(element::i64, Shape{1});
            *index.data<int64_t>() = i;
            Tensor value(param->get_output_element_type(0),
                         ps.is_static() ? ps.to_shape() : Shape{});
            Tensor flat(value.get_element_type(), Shape{1}, value.data());
            reference::convert_elements(index, flat);
            values[static_cast<size_t>(current)] = value;
        }
        results = run_body(0, values, stop);
        for (size_t o = 0; o < out_results.size(); ++o) {
            const Tensor& r = results.at(static_cast<size_t>(out_results[o]));
            if (axis_of(o) >= 0) {
                parts[o].push_back(r);
                scanned_bytes += r.get_byte_size();
            } else {
                last[o] = r;
            }
        }
        // The concatenation needs as much again, and the rest of the model its share: refuse at a
        // quarter of the memory the process may use, before the machine runs out.
        if (scanned_bytes > sdk::physical_memory_bytes() / 4)
            throw_error<InvalidArgument>("CPU: ", node.describe(), ": its scan outputs hold ",
                                         scanned_bytes, " bytes after ", i + 1,
                                         " iterations (trip count ", trip,
                                         "), more than a quarter of the memory available (",
                                         sdk::physical_memory_bytes(), ")");
        for (size_t p = 0; p < params && p < back_edges.size(); ++p)
            if (back_edges[p] >= 0) values[p] = results.at(static_cast<size_t>(back_edges[p]));
        if (condition >= 0)
            go_on = as_bool(node, results.at(static_cast<size_t>(condition)), "body condition");
    }
    std::vector<Tensor> outputs;
    for (size_t o = 0; o < out_results.size(); ++o) {
        const int64_t axis = axis_of(o);
        if (axis >= 0) {
            if (parts[o].empty()) {
                // No iteration: an empty concatenation of the body Result's declared shape.
                const auto& ps = node.get_output_partial_shape(o);
                Shape shape;
                for (size_t d = 0; ps.rank_is_static() && d < ps.size(); ++d)
                    shape.push_back(ps[d].is_static() ? static_cast<size_t>(ps[d].get_length())
                                                      : 0);
                if (static_cast<size_t>(axis) < shape.size()) shape[static_cast<size_t>(axis)] = 0;
                outputs.emplace_back(node.get_output_element_type(o), shape);
            } else {
                outputs.push_back(concatenate(parts[o], static_cast<size_t>(axis), parts[o][0]));
            }
            continue;
        }
        if (!last[o]) {
            // Zero iterations: a loop-carried value is its initial input.
            for (size_t p = 0; p < params && p < back_edges.size() && !last[o]; ++p)
                if (back_edges[p] == out_results[o] && values[p]) last[o] = values[p];
            if (!last[o])
                throw_error<InvalidArgument>(kDeviceName, ": ", node.describe(), ": output ", o,
                                             " has no value after zero iterations");
        }
        outputs.push_back(last[o]);
    }
    return outputs;
}

}  // namespace vireo::cpu_plugin
