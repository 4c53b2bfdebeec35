// Implements the builders of the sub-graph ops (op::if_op, op::loop): identity port maps filled
// in, then make_node with the bodies.
#include "vireo/op_registry.hpp"
#include "vireo/ops.hpp"

namespace vireo::op {
namespace {

std::vector<int64_t> iota_from(size_t count, int64_t first) {
    std::vector<int64_t> v(count);
    for (size_t i = 0; i < count; ++i) v[i] = first + static_cast<int64_t>(i);
    return v;
}

}  // namespace

NodePtr if_op(const Output& cond, const OutputVector& inputs, std::shared_ptr<Model> then_body,
              std::shared_ptr<Model> else_body, IfPorts ports) {
    if (!then_body || !else_body)
        throw_error<InvalidArgument>("op::if_op: both bodies are required");
    if (ports.then_inputs.empty())
        ports.then_inputs = iota_from(then_body->get_parameters().size(), 1);
    if (ports.else_inputs.empty())
        ports.else_inputs = iota_from(else_body->get_parameters().size(), 1);
    if (ports.then_outputs.empty())
        ports.then_outputs = iota_from(then_body->get_results().size(), 0);
    if (ports.else_outputs.empty())
        ports.else_outputs = iota_from(else_body->get_results().size(), 0);
    OutputVector all{cond};
    all.insert(all.end(), inputs.begin(), inputs.end());
    return make_node("If", all,
                     {{"then_inputs", ports.then_inputs},
                      {"else_inputs", ports.else_inputs},
                      {"then_outputs", ports.then_outputs},
                      {"else_outputs", ports.else_outputs}},
                     {std::move(then_body), std::move(else_body)}, 8);
}

NodePtr loop(const Output& trip_count, const Output& execution_condition,
             const OutputVector& inputs, std::shared_ptr<Model> body, LoopPorts ports) {
    if (!body) throw_error<InvalidArgument>("op::loop: the body is required");
    const size_t params = body->get_parameters().size();
    if (ports.input_ports.empty()) {
        int64_t next = 2;
        for (size_t p = 0; p < params; ++p)
            ports.input_ports.push_back(
                static_cast<int64_t>(p) == ports.current_iteration_input_idx ? -1 : next++);
    }
    if (ports.output_results.empty()) {
        for (size_t r = 0; r < body->get_results().size(); ++r)
            if (static_cast<int64_t>(r) != ports.body_condition_output_idx)
                ports.output_results.push_back(static_cast<int64_t>(r));
    }
    OutputVector all{trip_count, execution_condition};
    all.insert(all.end(), inputs.begin(), inputs.end());
    return make_node("Loop", all,
                     {{"current_iteration_input_idx", ports.current_iteration_input_idx},
                      {"body_condition_output_idx", ports.body_condition_output_idx},
                      {"input_ports", ports.input_ports},
                      {"back_edges", ports.back_edges},
                      {"input_slicing", ports.input_slicing},
                      {"output_results", ports.output_results},
                      {"output_slicing", ports.output_slicing}},
                     {std::move(body)}, 5);
}

}  // namespace vireo::op
