// Implements InferRequest: the four stages of a TEMPLATE inference, states and profiling rows.
#include "sync_infer_request.hpp"

#include "compiled_model.hpp"

namespace vireo::template_plugin {
namespace {

// A request's own tensor for a port: the port's shape, or for a dynamic port the smallest shape
// it allows (empty along dynamic dimensions), so that it already fits the port.
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
      m_executor(compiled_model->plan(),
                 [model = compiled_model.get()] { model->count_allocation(); }) {
    for (const auto& port : get_inputs()) allocate_tensor(port, make_port_tensor(port));
    for (const auto& port : get_outputs()) allocate_tensor(port, make_port_tensor(port));
    for (const auto& variable : m_model->plan()->variables())
        m_states.push_back(std::make_shared<VariableState>(variable));
    m_stop = [this] {
        return m_cancel_requested.load(std::memory_order_relaxed) ||
               (m_cancel_check && m_cancel_check());
    };
}

InferRequest::~InferRequest() = default;

void InferRequest::infer() {
    m_cancel_requested.store(false);
    for (bool& ran : m_stage_ran) ran = false;
    infer_preprocess();
    start_pipeline();
    wait_pipeline();
    infer_postprocess();
}

void InferRequest::infer_preprocess() {
    const auto start = Clock::now();
    // The async request validated every tensor before the run started (check_tensors() in the
    // base); the executor re-checks only what memory safety needs (type, static shape), which
    // costs no string formatting per inference.
    convert_batched_tensors();  // set_tensors(): one input tensor of the whole batch
    for (size_t i = 0; i < m_input_tensors.size(); ++i)
        m_executor.bind_input(i, m_input_tensors[i]);
    for (size_t j = 0; j < m_output_tensors.size(); ++j)
        m_executor.bind_output(j, m_output_tensors[j]);
    m_stage_time[kPreprocess] = since(start);
    m_stage_ran[kPreprocess] = true;
}

void InferRequest::start_pipeline() {
    const auto start = Clock::now();
    m_profiled = m_model->profiling_enabled();
    try {
        m_executor.run(m_stop, m_profiled ? &m_step_timings : nullptr, m_states);
    } catch (...) {
        m_stage_time[kExecution] = since(start);
        m_stage_ran[kExecution] = true;
        throw;
    }
    m_stage_time[kExecution] = since(start);
    m_stage_ran[kExecution] = true;
    if (m_profiled) m_model->record_step_times(m_step_timings);
}

void InferRequest::wait_pipeline() {
    // The host computed everything in start_pipeline; a device plugin would wait here.
}

void InferRequest::infer_postprocess() {
    const auto start = Clock::now();
    m_executor.finish(m_states);
    m_stage_time[kPostprocess] = since(start);
    m_stage_ran[kPostprocess] = true;
}

void InferRequest::cancel() {
    m_cancel_requested.store(true);
}

std::vector<ProfilingInfo> InferRequest::get_profiling_info() const {
    std::vector<ProfilingInfo> rows;
    auto stage = [&](const char* name, int index) {
        ProfilingInfo row;
        row.node_name = name;
        row.node_type = "Stage";
        row.exec_type = "host";
        if (index < 0) {
            // Host memory is the device's memory: there is nothing to transfer.
            row.status = m_stage_ran[kPreprocess] ? ProfilingInfo::Status::OPTIMIZED_OUT
                                                  : ProfilingInfo::Status::NOT_RUN;
        } else {
            row.status = m_stage_ran[index] ? ProfilingInfo::Status::EXECUTED
                                            : ProfilingInfo::Status::NOT_RUN;
            row.real_time = row.cpu_time =
                m_stage_ran[index] ? m_stage_time[index] : std::chrono::microseconds{0};
        }
        rows.push_back(row);
    };
    stage(kStageInputPreprocessing, kPreprocess);
    stage(kStageInputTransfer, -1);
    stage(kStageExecution, kExecution);
    stage(kStageOutputTransfer, -1);
    stage(kStageOutputPostprocessing, kPostprocess);
    if (!m_profiled) return rows;
    const auto& steps = m_model->plan()->steps();
    for (size_t s = 0; s < steps.size() && s < m_step_timings.size(); ++s) {
        ProfilingInfo row;
        row.node_name = steps[s].node->get_friendly_name();
        row.node_type = steps[s].node->get_type_name();
        row.exec_type = "ref";
        const StepTiming& t = m_step_timings[s];
        row.status = t.executed ? ProfilingInfo::Status::EXECUTED : ProfilingInfo::Status::NOT_RUN;
        row.real_time = t.real;
        row.cpu_time = t.cpu;
        rows.push_back(row);
    }
    return rows;
}

std::vector<std::shared_ptr<sdk::IVariableState>> InferRequest::query_state() const {
    return {m_states.begin(), m_states.end()};
}

}  // namespace vireo::template_plugin
