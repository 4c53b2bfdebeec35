// Implements the MOCK_REMOTE synchronous request: device buffers, input binding, upload and
// submission, waiting on the device job, download, cancellation and profiling rows.
#include "sync_infer_request.hpp"

#include <pthread.h>

#include "remote_tensor.hpp"
#include "vireo/profiling_info.hpp"

namespace vireo::mock_remote {
namespace {

std::string thread_name() {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof(name));
    return name;
}

std::string port_name(const Output& port) {
    if (!port.get_names().empty()) return "'" + *port.get_names().begin() + "'";
    return "'" + port.get_node()->get_friendly_name() + "'";
}

std::chrono::microseconds us(std::chrono::nanoseconds ns) {
    return std::chrono::duration_cast<std::chrono::microseconds>(ns);
}

}  // namespace

SyncInferRequest::SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled_model)
    : ISyncInferRequest(compiled_model),
      m_compiled_model(compiled_model),
      m_device(compiled_model->device()) {
    const auto& plan = *m_compiled_model->plan();
    auto& memory = m_device->memory();
    m_values.assign(plan.values().size(), 0);
    try {
        for (size_t i = 0; i < plan.values().size(); ++i) {
            const auto& v = plan.values()[i];
            m_values[i] = v.kind == ValueKind::kConstant ? m_compiled_model->weights().at(v.index)
                                                         : memory.allocate(v.bytes);
        }
        for (size_t id : plan.output_values())
            m_outputs.push_back(memory.allocate(plan.values()[id].bytes));
    } catch (...) {
        for (size_t i = 0; i < m_values.size(); ++i)
            if (plan.values()[i].kind != ValueKind::kConstant) memory.free(m_values[i]);
        for (auto handle : m_outputs) memory.free(handle);
        throw;
    }
    m_staging.resize(get_inputs().size());
    m_bound_inputs.assign(get_inputs().size(), 0);
    m_upload_sources.assign(get_inputs().size(), nullptr);
    m_bound_outputs.assign(get_outputs().size(), 0);
}

SyncInferRequest::~SyncInferRequest() {
    // A job of a cancelled inference may still run on our buffers: stop it and let it finish.
    if (auto job = current_job()) {
        m_device->cancel(job);
        job->wait();
    }
    const auto& plan = *m_compiled_model->plan();
    auto& memory = m_device->memory();
    for (size_t i = 0; i < m_values.size(); ++i)
        if (plan.values()[i].kind != ValueKind::kConstant) memory.free(m_values[i]);
    for (auto handle : m_outputs) memory.free(handle);
}

std::shared_ptr<DeviceJob> SyncInferRequest::current_job() const {
    std::lock_guard<std::mutex> lock(m_job_mutex);
    return m_job;
}

void SyncInferRequest::check_tensor(const Output& port, const Tensor& tensor) const {
    ISyncInferRequest::check_tensor(port, tensor);
    if (!tensor || !tensor.is_remote()) return;
    const auto* remote = dynamic_cast<const RemoteTensor*>(tensor.impl().get());
    if (!remote) {
        const auto* other = dynamic_cast<const sdk::IRemoteTensor*>(tensor.impl().get());
        throw_error<InvalidArgument>(
            "tensor for port ", port_name(port), ": a remote tensor of device ",
            other ? other->get_device_name() : std::string("(unknown)"),
            " cannot be used by a model compiled for ", m_device->name(),
            " (expected a host tensor or a remote tensor of ", m_device->name(), ")");
    }
    if (remote->device() != m_device)
        throw_error<InvalidArgument>(
            "tensor for port ", port_name(port), ": the remote tensor lives on ",
            remote->get_device_name(), " (", remote->device().get(),
            ") but the model is compiled for ", m_device->name(), " (", m_device.get(),
            "); copy it through a host tensor or compile the model for ",
            remote->get_device_name());
}

void SyncInferRequest::infer(sdk::RunContext& run) {
    infer_preprocess();
    start_pipeline(run);
    wait_pipeline();
    infer_postprocess();
}

void SyncInferRequest::infer_preprocess() {
    const auto start = Clock::now();
    m_times = Times{};
    m_times.host_thread = thread_name();
    check_tensors();
    const auto& plan = *m_compiled_model->plan();
    for (size_t i = 0; i < get_inputs().size(); ++i) {
        const auto& port = get_inputs()[i];
        auto batched = m_batched_tensors.find(i);
        if (batched != m_batched_tensors.end() && !batched->second.empty()) {
            // N tensors of batch 1 -> one dense batch-N buffer, each item at its place along the
            // batch axis (which the port's layout may put after other axes).
            if (!m_staging[i]) m_staging[i] = Tensor(port.get_element_type(), port.get_shape());
            copy_batched_tensors(i, m_staging[i]);
            m_bound_inputs[i] = m_values[plan.input_values()[i]];
            m_upload_sources[i] = m_staging[i].data();
            continue;
        }
        const Tensor& tensor = input_tensor(i);
        if (tensor.is_remote()) {
            m_bound_inputs[i] = static_cast<const RemoteTensor&>(*tensor.impl()).handle();
            m_upload_sources[i] = nullptr;
        } else if (tensor.is_continuous()) {
            m_bound_inputs[i] = m_values[plan.input_values()[i]];
            m_upload_sources[i] = tensor.data();
        } else {
            if (!m_staging[i]) m_staging[i] = Tensor(port.get_element_type(), port.get_shape());
            tensor.copy_to(m_staging[i]);
            m_bound_inputs[i] = m_values[plan.input_values()[i]];
            m_upload_sources[i] = m_staging[i].data();
        }
    }
    for (size_t r = 0; r < get_outputs().size(); ++r) {
        const Tensor& tensor = output_tensor(r);
        m_bound_outputs[r] = tensor.is_remote()
                                 ? static_cast<const RemoteTensor&>(*tensor.impl()).handle()
                                 : m_outputs[r];
    }
    m_times.preprocess = Clock::now() - start;
}

void SyncInferRequest::drain_previous_job() {
    if (auto job = current_job()) job->wait();
}

void SyncInferRequest::start_pipeline(sdk::RunContext& run) {
    drain_previous_job();
    const auto start = Clock::now();
    const auto& plan_ptr = m_compiled_model->plan();
    const auto& plan = *plan_ptr;
    const Config settings = m_compiled_model->config();
    const BusModel bus{settings.timing.bus_gbps, settings.timing.bus_latency_us};
    for (size_t i = 0; i < m_bound_inputs.size(); ++i) {
        if (!m_upload_sources[i]) continue;
        m_device->upload(m_bound_inputs[i], m_upload_sources[i],
                         plan.values()[plan.input_values()[i]].bytes, bus);
        m_times.uploaded = true;
    }
    m_times.upload = Clock::now() - start;

    std::vector<BufferHandle> values = m_values;
    for (size_t i = 0; i < m_bound_inputs.size(); ++i)
        values[plan.input_values()[i]] = m_bound_inputs[i];

    std::unique_lock<std::mutex> lock(m_job_mutex);
    if (run.cancelled())
        throw_error<Cancelled>(m_device->name(),
                               ": the inference was cancelled before it was submitted");
    const auto execution = m_compiled_model->next_execution();
    m_profiling = execution.config.enable_profiling;
    m_op_timings = m_profiling ? std::make_shared<std::vector<OpTiming>>() : nullptr;
    // The job holds only shared, immutable state and handles: it may outlive this request's run.
    JobWork work = [plan_ptr, values = std::move(values), outputs = m_bound_outputs,
                    timing = execution.config.timing,
                    timings = m_op_timings](DeviceMemory& memory) {
        std::vector<std::shared_ptr<DeviceStorage>> value_storage;
        std::vector<std::shared_ptr<DeviceStorage>> output_storage;
        for (auto handle : values) {
            value_storage.push_back(memory.resolve(handle));
            if (!value_storage.back())
                throw_error<Unavailable>("device buffer ", handle, " was freed before use");
        }
        for (auto handle : outputs) {
            output_storage.push_back(memory.resolve(handle));
            if (!output_storage.back())
                throw_error<Unavailable>("device buffer ", handle, " was freed before use");
        }
        return plan_ptr->execute(value_storage, output_storage, timing, timings.get());
    };
    const std::string label =
        "model '" + plan.model()->get_name() + "' execution #" + std::to_string(execution.number);
    m_job = m_device->submit(label, std::move(work), execution.fixed_time, execution.fault);
    lock.unlock();
    // A cancel from now on drops the job; one that came since the check above was flagged before
    // this registration, which then calls the function at once.
    m_cancel_job = run.on_cancel([this] {
        std::lock_guard<std::mutex> guard(m_job_mutex);
        if (m_job) m_device->cancel(m_job);
    });
}

void SyncInferRequest::wait_pipeline() {
    m_times.wait_thread = thread_name();
    auto job = current_job();
    if (!job) return;
    job->wait();
    m_cancel_job.reset();  // the job has ended: nothing left to drop
    m_times.queue = job->queue_time();
    m_times.device = job->device_time();
    m_times.executed = job->outcome() == DeviceJob::Outcome::kCompleted;
    if (auto error = job->error()) std::rethrow_exception(error);
}

void SyncInferRequest::infer_postprocess() {
    auto start = Clock::now();
    m_times.post_thread = thread_name();
    const Config settings = m_compiled_model->config();
    const BusModel bus{settings.timing.bus_gbps, settings.timing.bus_latency_us};
    std::vector<size_t> strided;
    for (size_t r = 0; r < get_outputs().size(); ++r) {
        Tensor& tensor = output_tensor(r);
        if (tensor.is_remote()) continue;  // the device already wrote it
        if (tensor.is_continuous()) {
            m_device->download(m_outputs[r], tensor.data(), tensor.get_byte_size(), bus);
        } else {
            strided.push_back(r);
        }
        m_times.downloaded = true;
    }
    // Strided outputs: download dense, then scatter on the host (postprocessing).
    std::vector<Tensor> dense;
    for (size_t r : strided) {
        const Tensor& tensor = output_tensor(r);
        dense.emplace_back(tensor.get_element_type(), tensor.get_shape());
        m_device->download(m_outputs[r], dense.back().data(), dense.back().get_byte_size(), bus);
    }
    m_times.download = Clock::now() - start;
    start = Clock::now();
    for (size_t k = 0; k < strided.size(); ++k) dense[k].copy_to(output_tensor(strided[k]));
    {
        std::lock_guard<std::mutex> lock(m_job_mutex);
        m_job.reset();
    }
    m_times.postprocess = Clock::now() - start;
}

std::vector<ProfilingInfo> SyncInferRequest::get_profiling_info() const {
    auto stage = [](const char* name, std::chrono::nanoseconds time, const std::string& thread,
                    bool ran) {
        ProfilingInfo row;
        row.status = ran ? ProfilingInfo::Status::EXECUTED : ProfilingInfo::Status::NOT_RUN;
        row.node_name = name;
        row.node_type = "Stage";
        row.exec_type = thread;  // the host thread that ran (or waited for) the stage
        row.real_time = ran ? us(time) : std::chrono::microseconds{0};
        row.cpu_time = row.real_time;
        return row;
    };
    std::vector<ProfilingInfo> rows;
    const bool started = !m_times.host_thread.empty();
    rows.push_back(
        stage(kStageInputPreprocessing, m_times.preprocess, m_times.host_thread, started));
    rows.push_back(
        stage(kStageInputTransfer, m_times.upload, m_times.host_thread, m_times.uploaded));
    rows.push_back(stage(kStageExecution, m_times.device, m_times.wait_thread, m_times.executed));
    rows.push_back(
        stage(kStageOutputTransfer, m_times.download, m_times.post_thread, m_times.downloaded));
    rows.push_back(stage(kStageOutputPostprocessing, m_times.postprocess, m_times.post_thread,
                         !m_times.post_thread.empty()));
    rows.push_back(stage("queue wait", m_times.queue, m_times.wait_thread, m_times.executed));
    if (m_profiling && m_op_timings && m_times.executed) {
        for (const auto& op : *m_op_timings) {
            ProfilingInfo row;
            row.status = ProfilingInfo::Status::EXECUTED;
            row.node_name = op.name;
            row.node_type = op.type;
            row.exec_type = "device";
            row.real_time = us(op.modelled);  // modelled device time
            row.cpu_time = us(op.host);       // what the reference kernel took on the host
            rows.push_back(row);
        }
    }
    return rows;
}

}  // namespace vireo::mock_remote
