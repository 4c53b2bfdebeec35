// Implements InferRequest: one CPU inference, states and profiling rows.
#include "sync_infer_request.hpp"

#include "compiled_model.hpp"

namespace vireo::cpu_plugin {
namespace {

// A request's own tensor for a port: its shape, or for a dynamic port the smallest shape it allows.
Tensor make_port_tensor(const Output& port) {
    const PartialShape& ps = port.get_partial_shape();
    if (ps.is_static()) return Tensor(port.get_element_type(), ps.to_shape());
    Shape shape;
    if (ps.rank_is_static()) {
        for (const auto& d : ps) shape.push_back(static_cast<size_t>(d.get_min_length()));
    } else {
        shape = Shape{0};
    }
    return Tensor(port.get_element_type(), shape);
}

using Clock = std::chrono::steady_clock;

std::chrono::microseconds since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
}

}  // namespace

InferRequest::InferRequest(const std::shared_ptr<const CompiledModel>& compiled_model)
    : ISyncInferRequest(compiled_model),
      m_model(compiled_model),
      m_executor(compiled_model->graph(), compiled_model->config().omp_threads_per_stream()) {
    for (const auto& port : get_inputs()) allocate_tensor(port, make_port_tensor(port));
    for (const auto& port : get_outputs()) allocate_tensor(port, make_port_tensor(port));
    for (const auto& variable : m_model->graph()->variables)
        m_states.push_back(std::make_shared<VariableState>(variable));
    m_stop = [this] {
        return m_cancel_requested.load(std::memory_order_relaxed) ||
               (m_cancel_check && m_cancel_check());
    };
}

InferRequest::~InferRequest() = default;

void InferRequest::infer() {
    m_cancel_requested.store(false);
    m_ran = m_finished = false;
    convert_batched_tensors();  // set_tensors(): one input tensor of the whole batch
    m_profiled = m_model->profiling_enabled();
    const auto start = Clock::now();
    GraphExecutor* executor = &m_executor;
    if (m_model->specializable()) {
        std::vector<Shape> shapes;
        for (const auto& t : m_input_tensors) shapes.push_back(t.get_shape());
        auto it = m_specialized.find(shapes);
        if (it == m_specialized.end()) {
            if (m_specialized.size() >= CompiledModel::kSpecializations) m_specialized.clear();
            std::unique_ptr<GraphExecutor> made;
            if (auto graph = m_model->graph_for(shapes))
                made = std::make_unique<GraphExecutor>(graph,
                                                       m_model->config().omp_threads_per_stream());
            it = m_specialized.emplace(shapes, std::move(made)).first;
        }
        if (it->second) executor = it->second.get();
    }
    m_last = executor;
    try {
        executor->run(m_input_tensors, m_stop, m_profiled ? &m_step_timings : nullptr, m_states);
    } catch (...) {
        m_run_time = since(start);
        m_ran = true;
        throw;
    }
    m_run_time = since(start);
    m_ran = true;
    if (m_profiled && executor == &m_executor) m_model->record_step_times(m_step_timings);
    const auto out_start = Clock::now();
    executor->finish(m_output_tensors, m_states);
    m_output_time = since(out_start);
    m_finished = true;
}

void InferRequest::cancel() {
    m_cancel_requested.store(true);
}

std::vector<ProfilingInfo> InferRequest::get_profiling_info() const {
    std::vector<ProfilingInfo> rows;
    auto stage = [&](const char* name, bool ran, std::chrono::microseconds time, bool host_only) {
        ProfilingInfo row;
        row.node_name = name;
        row.node_type = "Stage";
        row.exec_type = "host";
        if (host_only) {
            // Host memory is the device's memory: there is nothing to transfer.
            row.status =
                ran ? ProfilingInfo::Status::OPTIMIZED_OUT : ProfilingInfo::Status::NOT_RUN;
        } else {
            row.status = ran ? ProfilingInfo::Status::EXECUTED : ProfilingInfo::Status::NOT_RUN;
            row.real_time = row.cpu_time = ran ? time : std::chrono::microseconds{0};
        }
        rows.push_back(row);
    };
    stage(kStageInputPreprocessing, m_ran, std::chrono::microseconds{0}, false);
    stage(kStageInputTransfer, m_ran, {}, true);
    stage(kStageExecution, m_ran, m_run_time, false);
    stage(kStageOutputTransfer, m_ran, {}, true);
    stage(kStageOutputPostprocessing, m_finished, m_output_time, false);
    if (!m_profiled) return rows;
    const Graph& graph = *(m_last ? m_last->graph() : m_model->graph());
    const auto& steps = graph.steps;
    for (size_t s = 0; s < steps.size() && s < m_step_timings.size(); ++s) {
        ProfilingInfo row;
        row.node_name = steps[s].name;
        row.node_type = steps[s].type;
        row.exec_type = steps[s].exec_type;
        const StepTiming& t = m_step_timings[s];
        row.status = t.executed ? ProfilingInfo::Status::EXECUTED : ProfilingInfo::Status::NOT_RUN;
        row.real_time = row.cpu_time = t.real;
        rows.push_back(row);
    }
    // Ops that became views of their input: nothing ran for them.
    for (const auto& node : graph.views) {
        ProfilingInfo row;
        row.node_name = node->get_friendly_name();
        row.node_type = node->get_type_name();
        row.exec_type = "view";
        row.status = m_ran ? ProfilingInfo::Status::OPTIMIZED_OUT : ProfilingInfo::Status::NOT_RUN;
        rows.push_back(row);
    }
    return rows;
}

std::vector<std::shared_ptr<sdk::IVariableState>> InferRequest::query_state() const {
    return {m_states.begin(), m_states.end()};
}

}  // namespace vireo::cpu_plugin
