// Implements InferRequest: one CPU inference, its states and its profiling rows.
#include "sync_infer_request.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>

#include "compiled_model.hpp"

namespace vireo::cpu_plugin {
namespace {

using Status = ProfilingInfo::Status;
using sdk::PipelineStage;

// One row per step (the steps a cancel or an error kept from running: not run), a static
// region's steps in its place, then the ops that became views of their input (nothing ran).
void append_rows(const Graph& graph, const std::vector<StepTiming>& timings,
                 std::vector<ProfilingInfo>& rows) {
    static const std::vector<StepTiming> none;
    for (size_t s = 0; s < graph.steps.size(); ++s) {
        const Step& step = graph.steps[s];
        const bool ran = s < timings.size() && timings[s].executed;
        if (step.kind == StepKind::kRegion) {
            append_rows(*step.bodies.at(0), ran ? timings[s].inner : none, rows);
            continue;
        }
        ProfilingInfo row;
        row.node_name = step.name;
        row.node_type = step.type;
        row.exec_type = ran && timings[s].exec_type ? timings[s].exec_type : step.exec_type;
        if (ran) {
            row.status = Status::EXECUTED;
            row.real_time = row.cpu_time = timings[s].real;
        }
        rows.push_back(std::move(row));
    }
    for (const auto& node : graph.views) {
        ProfilingInfo row;
        row.node_name = node->get_friendly_name();
        row.node_type = node->get_type_name();
        row.exec_type = "view";
        row.status = Status::OPTIMIZED_OUT;
        rows.push_back(std::move(row));
    }
}

// CPU time of the calling thread, in seconds.
double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

InferRequest::InferRequest(const std::shared_ptr<const CompiledModel>& compiled_model)
    : ISyncInferRequest(compiled_model),
      m_model(compiled_model),
      m_executor(compiled_model->graph(), compiled_model->config().omp_threads_per_stream(),
                 compiled_model->kv_cache_counter()),
      m_choose_team(!compiled_model->graph()->dynamic &&
                    compiled_model->config().omp_threads_per_stream() > 1) {
    for (const auto& variable : m_model->graph()->variables)
        m_states.push_back(std::make_shared<sdk::HostVariableState>(variable));
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
        if (m_model->specializable()) {
            std::vector<Shape> shapes;
            for (const auto& t : input_tensors()) shapes.push_back(t.get_shape());
            auto it = m_specialized.find(shapes);
            if (it == m_specialized.end()) {
                // Shapes without a graph of their own (yet: see graph_for) run the generic one.
                if (auto graph = m_model->graph_for(shapes)) {
                    // At most as many executors as the compiled model keeps graphs.
                    if (m_specialized.size() >=
                        std::max<size_t>(1, m_model->config().shape_cache_size))
                        m_specialized.clear();
                    it =
                        m_specialized
                            .emplace(shapes, std::make_unique<GraphExecutor>(
                                                 graph, m_model->config().omp_threads_per_stream()))
                            .first;
                }
            }
            if (it != m_specialized.end()) executor = it->second.get();
        }
    }
    // On a busy machine a static model's run may go to its one-thread graph (TeamChoice).
    bool one_thread = false;
    if (m_choose_team && m_team.serial_next()) {
        if (!m_one_thread)
            if (auto graph = m_model->one_thread_graph())
                m_one_thread = std::make_unique<GraphExecutor>(std::move(graph), 1);
        if (m_one_thread) {
            executor = m_one_thread.get();
            one_thread = true;
        } else {
            m_choose_team = false;  // no such graph: the team it is
        }
    }
    // Host memory is the device's memory: there is nothing to transfer.
    run.stage(PipelineStage::kInputTransfer, {}, Status::OPTIMIZED_OUT);
    // Built when asked for, from the request's timings, which stay those of its last run.
    if (profiled)
        run.op_rows([graph = executor->graph(), timings = &m_step_timings](
                        std::vector<ProfilingInfo>& rows) { append_rows(*graph, *timings, rows); });
    const auto wall = std::chrono::steady_clock::now();
    const double cpu = m_choose_team ? thread_cpu_seconds() : 0;
    {
        auto timer = run.time_stage(PipelineStage::kExecution);
        executor->run(
            input_tensors(), [&run] { return run.cancelled(); },
            profiled ? &m_step_timings : nullptr, m_states);
    }
    if (m_choose_team) {
        m_team.record(
            one_thread,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count(),
            thread_cpu_seconds() - cpu);
        if (one_thread) m_model->count_serial_run();
    }
    run.stage(PipelineStage::kOutputTransfer, {}, Status::OPTIMIZED_OUT);
    if (profiled && executor == &m_executor) m_model->record_step_times(m_step_timings);
    auto timer = run.time_stage(PipelineStage::kOutputPostprocessing);
    executor->finish(output_tensors(), m_states);  // may replace a dynamic output's tensor
}

std::vector<std::shared_ptr<sdk::IVariableState>> InferRequest::query_state() const {
    return {m_states.begin(), m_states.end()};
}

}  // namespace vireo::cpu_plugin
