// Implements ExecutionPlan: checking that a model fits the device, preparing kernels, and running
// them on device storage with the modelled cost per op.
#include "execution_plan.hpp"

#include <cstdint>
#include <cstring>
#include <map>

#include "vireo/exception.hpp"

namespace vireo::mock_remote {
namespace {

std::chrono::nanoseconds modelled_cost(double flops, size_t bytes, const TimingModel& timing) {
    const double seconds =
        flops / (timing.gflops * 1e9) + static_cast<double>(bytes) / (timing.device_gbps * 1e9);
    return saturated_duration(seconds);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ExecutionPlan::unsupported_ops(
    const Model& model) {
    std::vector<std::pair<std::string, std::string>> out;
    const auto& registry = reference::KernelRegistry::instance();
    for (const auto& node : model.get_ordered_ops()) {
        const auto& type = node->get_type_name();
        if (type == "ReadValue" || type == "Assign") {
            out.emplace_back(node->get_friendly_name(),
                             type + ": variables (stateful models) are not supported");
            continue;
        }
        if (type == "If" || type == "Loop") {
            out.emplace_back(
                node->get_friendly_name(),
                type + ": sub-graph ops (If, Loop) are not supported (TEMPLATE runs them)");
            continue;
        }
        std::string reason;
        for (size_t i = 0; i < node->get_output_size() && reason.empty(); ++i) {
            const auto& shape = node->get_output_partial_shape(i);
            if (shape.is_dynamic())
                reason = type + ": output " + std::to_string(i) + " has the dynamic shape " +
                         shape.to_string() +
                         " (the device runs static shapes only; reshape the model first)";
            else if (!node->get_output_element_type(i).is_static())
                reason = type + ": output " + std::to_string(i) + " has no static element type";
        }
        if (reason.empty() && type != "Parameter" && type != "Result" && type != "Constant" &&
            !registry.supports(*node))
            reason = type + ": no reference kernel for this configuration";
        if (!reason.empty()) out.emplace_back(node->get_friendly_name(), reason);
    }
    return out;
}

ExecutionPlan::ExecutionPlan(std::shared_ptr<const Model> model) : m_model(std::move(model)) {
    const auto bad = unsupported_ops(*m_model);
    if (!bad.empty()) {
        std::string list;
        for (const auto& [name, reason] : bad) list += "\n  '" + name + "' " + reason;
        throw_error<NotImplemented>("model '", m_model->get_name(), "' has ", bad.size(),
                                    " op(s) the device cannot run:", list);
    }
    std::map<std::pair<const Node*, size_t>, size_t> value_of;  // node output -> value id
    auto add_value = [&](const Node& node, size_t port, PlanValue::Kind kind, size_t index) {
        PlanValue v;
        v.kind = kind;
        v.type = node.get_output_element_type(port);
        v.shape = node.get_output_shape(port);
        v.bytes = v.type.bytes_for(shape_size(v.shape));
        if (v.bytes > physical_memory_bytes())
            throw_error<InvalidArgument>("output ", port, " of ", node.describe(), " (", v.type,
                                         " ", v.shape, ") needs ", v.bytes,
                                         " bytes, more than the ", physical_memory_bytes(),
                                         " bytes of memory this machine has");
        v.index = index;
        m_values.push_back(v);
        value_of[{&node, port}] = m_values.size() - 1;
        return m_values.size() - 1;
    };
    const auto& parameters = m_model->get_parameters();
    for (size_t i = 0; i < parameters.size(); ++i)
        m_input_values.push_back(add_value(*parameters[i], 0, PlanValue::Kind::kInput, i));

    const auto& registry = reference::KernelRegistry::instance();
    for (const auto& node : m_model->get_ordered_ops()) {
        const auto& type = node->get_type_name();
        if (type == "Parameter" || type == "Result") continue;
        if (type == "Constant") {
            add_value(*node, 0, PlanValue::Kind::kConstant, m_constants.size());
            m_constants.push_back(node->get_constant_value());
            continue;
        }
        PlanStep step;
        step.node = node;
        step.kernel = registry.create(*node);
        for (const auto& in : node->input_values())
            step.inputs.push_back(value_of.at({in.get_node(), in.get_index()}));
        for (size_t o = 0; o < node->get_output_size(); ++o)
            step.outputs.push_back(add_value(*node, o, PlanValue::Kind::kIntermediate, 0));
        m_steps.push_back(std::move(step));
    }
    for (const auto& result : m_model->get_results()) {
        const auto& src = result->input_value(0);
        m_output_values.push_back(value_of.at({src.get_node(), src.get_index()}));
    }
    // Each value is checked above; every value gets its own device buffer, so their sum must
    // fit too (three 1 GB values of a tiny IR each passed alone and took 8.4 GB together).
    size_t total = 0;  // saturates: each term is at most the machine's memory
    for (const auto& v : m_values) total = v.bytes > SIZE_MAX - total ? SIZE_MAX : total + v.bytes;
    if (total > physical_memory_bytes())
        throw_error<InvalidArgument>("model '", m_model->get_name(), "': its ", m_values.size(),
                                     " values need ", total,
                                     " bytes of device memory together, more than the ",
                                     physical_memory_bytes(), " bytes of memory this machine has");
}

std::chrono::nanoseconds ExecutionPlan::execute(
    const std::vector<std::shared_ptr<DeviceStorage>>& values,
    const std::vector<std::shared_ptr<DeviceStorage>>& outputs, const TimingModel& timing,
    std::vector<OpTiming>* timings) const {
    // Kernels take Tensors: wrap each device buffer (the device's memory, not the host's).
    std::vector<Tensor> tensors;
    tensors.reserve(m_values.size());
    for (size_t i = 0; i < m_values.size(); ++i) {
        const auto& v = m_values[i];
        if (!values[i] || values[i]->size() < v.bytes)
            throw_error<InvalidArgument>("value ", i, " of model '", m_model->get_name(),
                                         "' has no device buffer of ", v.bytes, " bytes");
        tensors.emplace_back(v.type, v.shape, values[i]->data());
    }
    std::chrono::nanoseconds total{0};
    if (timings) timings->clear();
    std::vector<Tensor> ins;
    std::vector<Tensor> outs;
    for (const auto& step : m_steps) {
        ins.clear();
        outs.clear();
        size_t bytes = 0;
        for (size_t id : step.inputs) {
            ins.push_back(tensors[id]);
            bytes += m_values[id].bytes;
        }
        for (size_t id : step.outputs) {
            outs.push_back(tensors[id]);
            bytes += m_values[id].bytes;
        }
        const auto host_start = std::chrono::steady_clock::now();
        step.kernel->execute(ins, outs);
        const auto host_time = std::chrono::steady_clock::now() - host_start;
        const auto cost = modelled_cost(step.kernel->flops(ins, outs), bytes, timing);
        total += cost;
        if (timings)
            timings->push_back({step.node->get_friendly_name(), step.node->get_type_name(), cost,
                                std::chrono::duration_cast<std::chrono::nanoseconds>(host_time)});
    }
    // Results are copied into the request's (or the user's remote) output buffers on the device.
    for (size_t r = 0; r < m_output_values.size(); ++r) {
        const auto& v = m_values[m_output_values[r]];
        if (!outputs[r] || outputs[r]->size() < v.bytes)
            throw_error<InvalidArgument>("output ", r, " of model '", m_model->get_name(),
                                         "' has no device buffer of ", v.bytes, " bytes");
        if (v.bytes) std::memcpy(outputs[r]->data(), values[m_output_values[r]]->data(), v.bytes);
        total += modelled_cost(0.0, 2 * v.bytes, timing);
    }
    return total;
}

}  // namespace vireo::mock_remote
