// Implements InferRequest: one CPU inference, its states and its profiling rows.
#include "sync_infer_request.hpp"

#include "compiled_model.hpp"

namespace vireo::cpu_plugin {
namespace {

using Status = ProfilingInfo::Status;
using sdk::PipelineStage;

}  // namespace

InferRequest::InferRequest(const std::shared_ptr<const CompiledModel>& compiled_model)
    : ISyncInferRequest(compiled_model),
      m_model(compiled_model),
      m_executor(compiled_model->graph(), compiled_model->config().omp_threads_per_stream()) {
    for (const auto& variable : m_model->graph()->variables)
        m_states.push_back(std::make_shared<VariableState>(variable));
}

InferRequest::~InferRequest() = default;

Tensor InferRequest::create_port_tensor(const Output& port, bool /*is_input*/) const {
    return smallest_port_tensor(port);
}

void InferRequest::infer(sdk::RunContext& run) {
    const bool profiled = m_model->profiling_enabled();
    GraphExecutor* executor = &m_executor;
    {
        auto timer = run.time_stage(PipelineStage::kInputPreprocessing);
        convert_batched_tensors();  // set_tensors(): one input tensor of the whole batch
        m_inputs.resize(get_inputs().size());
        for (size_t i = 0; i < m_inputs.size(); ++i) m_inputs[i] = input_tensor(i);
        m_outputs.resize(get_outputs().size());
        for (size_t i = 0; i < m_outputs.size(); ++i) m_outputs[i] = output_tensor(i);
        if (m_model->specializable()) {
            std::vector<Shape> shapes;
            for (const auto& t : m_inputs) shapes.push_back(t.get_shape());
            auto it = m_specialized.find(shapes);
            if (it == m_specialized.end()) {
                if (m_specialized.size() >= CompiledModel::kSpecializations) m_specialized.clear();
                std::unique_ptr<GraphExecutor> made;
                if (auto graph = m_model->graph_for(shapes))
                    made = std::make_unique<GraphExecutor>(
                        graph, m_model->config().omp_threads_per_stream());
                it = m_specialized.emplace(shapes, std::move(made)).first;
            }
            if (it->second) executor = it->second.get();
        }
    }
    // Host memory is the device's memory: there is nothing to transfer.
    run.stage(PipelineStage::kInputTransfer, {}, Status::OPTIMIZED_OUT);
    // One row per step (the steps a cancel or an error kept from running: not run), then the ops
    // that became views of their input (nothing ran for them).
    auto record_rows = [&] {
        const Graph& graph = *executor->graph();
        for (size_t s = 0; s < graph.steps.size(); ++s) {
            ProfilingInfo row;
            row.node_name = graph.steps[s].name;
            row.node_type = graph.steps[s].type;
            row.exec_type = graph.steps[s].exec_type;
            if (s < m_step_timings.size() && m_step_timings[s].executed) {
                row.status = Status::EXECUTED;
                row.real_time = row.cpu_time = m_step_timings[s].real;
            }
            run.op(std::move(row));
        }
        for (const auto& node : graph.views) {
            ProfilingInfo row;
            row.node_name = node->get_friendly_name();
            row.node_type = node->get_type_name();
            row.exec_type = "view";
            row.status = Status::OPTIMIZED_OUT;
            run.op(std::move(row));
        }
    };
    {
        auto timer = run.time_stage(PipelineStage::kExecution);
        try {
            executor->run(
                m_inputs, [&run] { return run.cancelled(); }, profiled ? &m_step_timings : nullptr,
                m_states);
        } catch (...) {
            if (profiled) record_rows();
            throw;
        }
    }
    run.stage(PipelineStage::kOutputTransfer, {}, Status::OPTIMIZED_OUT);
    if (profiled) {
        if (executor == &m_executor) m_model->record_step_times(m_step_timings);
        record_rows();
    }
    auto timer = run.time_stage(PipelineStage::kOutputPostprocessing);
    executor->finish(m_outputs, m_states);
    // A dynamic output's tensor may have been replaced or resized: keep the request's slot.
    for (size_t i = 0; i < m_outputs.size(); ++i) output_tensor(i) = m_outputs[i];
}

std::vector<std::shared_ptr<sdk::IVariableState>> InferRequest::query_state() const {
    return {m_states.begin(), m_states.end()};
}

}  // namespace vireo::cpu_plugin
