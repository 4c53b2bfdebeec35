// Implements ExecutionPlan: checking that a model fits the device, building the shared GraphPlan,
// and running it on device storage with the modelled cost per op.
#include "execution_plan.hpp"

#include <cstdint>
#include <cstring>

#include "vireo/exception.hpp"
#include "vireo/reference/plan_runner.hpp"
#include "vireo/sdk/support_check.hpp"

namespace vireo::mock_remote {
namespace {

std::chrono::nanoseconds modelled_cost(double flops, size_t bytes, const TimingModel& timing) {
    const double seconds =
        flops / (timing.gflops * 1e9) + static_cast<double>(bytes) / (timing.device_gbps * 1e9);
    return saturated_duration(seconds);
}

reference::GraphPlanOptions plan_options() {
    reference::GraphPlanOptions options;
    options.device_name = "MOCK_REMOTE";
    options.plan_memory = false;  // each value gets its own device buffer (the request's)
    return options;
}

}  // namespace

std::shared_ptr<const Model> ExecutionPlan::checked(std::shared_ptr<const Model> model) {
    sdk::check_supported(*model, "MOCK_REMOTE", runs, sdk::SupportScope::kAllNodes);
    return model;
}

sdk::Support ExecutionPlan::runs(const Node& node) {
    const auto& type = node.get_type_name();
    if (type == "ReadValue" || type == "Assign")
        return sdk::Support::refused("variables (stateful models) are not supported");
    if (type == "If" || type == "Loop")
        return sdk::Support::refused(
            "sub-graph ops (If, Loop) are not supported (TEMPLATE runs them)");
    for (size_t i = 0; i < node.get_output_size(); ++i) {
        const auto& shape = node.get_output_partial_shape(i);
        if (shape.is_dynamic())
            return sdk::Support::refused(
                "output " + std::to_string(i) + " has the dynamic shape " + shape.to_string() +
                " (the device runs static shapes only; reshape the model first)");
        if (!node.get_output_element_type(i).is_static())
            return sdk::Support::refused("output " + std::to_string(i) +
                                         " has no static element type");
    }
    if (type != "Parameter" && type != "Result" && type != "Constant" &&
        !reference::KernelRegistry::instance().supports(node))
        return sdk::Support::refused("no reference kernel for this configuration");
    return true;
}

ExecutionPlan::ExecutionPlan(std::shared_ptr<const Model> model)
    : m_graph(checked(std::move(model)), plan_options()) {
    for (const size_t id : m_graph.constant_values()) m_constants.push_back(values()[id].constant);
    // GraphPlan checked each value; every value gets its own device buffer, so their sum must
    // fit too (three 1 GB values of a tiny IR each passed alone and took 8.4 GB together).
    size_t total = 0;  // saturates: each term is at most the machine's memory
    for (const auto& v : values()) total = v.bytes > SIZE_MAX - total ? SIZE_MAX : total + v.bytes;
    if (total > physical_memory_bytes())
        throw_error<InvalidArgument>("model '", this->model()->get_name(), "': its ",
                                     values().size(), " values need ", total,
                                     " bytes of device memory together, more than the ",
                                     physical_memory_bytes(), " bytes of memory this machine has");
}

std::chrono::nanoseconds ExecutionPlan::execute(
    const std::vector<std::shared_ptr<DeviceStorage>>& values,
    const std::vector<std::shared_ptr<DeviceStorage>>& outputs, const TimingModel& timing,
    std::vector<OpTiming>* timings) const {
    // Kernels take Tensors: wrap each device buffer (the device's memory, not the host's).
    const auto& plan_values = this->values();
    std::vector<Tensor> tensors;
    tensors.reserve(plan_values.size());
    for (size_t i = 0; i < plan_values.size(); ++i) {
        const auto& v = plan_values[i];
        if (!values[i] || values[i]->size() < v.bytes)
            throw_error<InvalidArgument>("value ", i, " of model '", model()->get_name(),
                                         "' has no device buffer of ", v.bytes, " bytes");
        tensors.emplace_back(v.type, v.shape.to_shape(), values[i]->data());
    }
    std::vector<reference::StepTiming> host;
    reference::run_steps(m_graph, tensors, {}, {}, &host);
    // The modelled cost of each op: its work at the device's rate plus the bytes it touches.
    std::chrono::nanoseconds total{0};
    if (timings) timings->clear();
    std::vector<Tensor> ins;
    std::vector<Tensor> outs;
    for (size_t s = 0; s < steps().size(); ++s) {
        const PlanStep& step = steps()[s];
        ins.clear();
        outs.clear();
        size_t bytes = 0;
        for (size_t id : step.inputs) {
            ins.push_back(tensors[id]);
            bytes += plan_values[id].bytes;
        }
        for (size_t id : step.outputs) {
            outs.push_back(tensors[id]);
            bytes += plan_values[id].bytes;
        }
        const auto cost = modelled_cost(step.kernel->flops(ins, outs), bytes, timing);
        total += cost;
        if (timings)
            timings->push_back(
                {step.node->get_friendly_name(), step.node->get_type_name(), cost,
                 std::chrono::duration_cast<std::chrono::nanoseconds>(host[s].real)});
    }
    // Results are copied into the request's (or the user's remote) output buffers on the device.
    for (size_t r = 0; r < output_values().size(); ++r) {
        const auto& v = plan_values[output_values()[r]];
        if (!outputs[r] || outputs[r]->size() < v.bytes)
            throw_error<InvalidArgument>("output ", r, " of model '", model()->get_name(),
                                         "' has no device buffer of ", v.bytes, " bytes");
        if (v.bytes) std::memcpy(outputs[r]->data(), values[output_values()[r]]->data(), v.bytes);
        total += modelled_cost(0.0, 2 * v.bytes, timing);
    }
    return total;
}

}  // namespace vireo::mock_remote
