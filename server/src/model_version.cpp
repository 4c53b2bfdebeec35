// One loaded model version: compile, the infer request pool, the bounded queue, completion.
#include "model_version.hpp"

#include <chrono>
#include <cstring>

#include "vireo/exception.hpp"
#include "vireo/properties.hpp"

namespace vireo::server {

namespace {

std::vector<int64_t> protocol_shape(const PartialShape& shape) {
    if (!shape.rank_is_static()) return {-1};
    std::vector<int64_t> out;
    for (size_t i = 0; i < shape.size(); ++i) {
        const auto& d = shape[i];
        out.push_back(d.is_static() ? static_cast<int64_t>(d.get_length()) : -1);
    }
    return out;
}

std::vector<TensorInfo> describe(const OutputVector& ports) {
    std::vector<TensorInfo> out;
    for (const auto& port : ports) {
        out.push_back({port.get_any_name(), port.get_element_type(),
                       protocol_shape(port.get_partial_shape())});
    }
    return out;
}

uint64_t micros(Clock::duration d) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(d).count());
}

uint64_t nanos(Clock::duration d) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

Status status_of(std::exception_ptr error, const InferJob& job) {
    try {
        std::rethrow_exception(error);
    } catch (const Exception& e) {
        switch (e.kind()) {
            case ErrorKind::kCancelled:
                if (Clock::now() >= job.deadline) {
                    return {StatusCode::kDeadlineExceeded, "inference deadline exceeded"};
                }
                return {StatusCode::kCancelled, e.what()};
            case ErrorKind::kInvalidArgument:
                return {StatusCode::kInvalidArgument, e.what()};
            case ErrorKind::kBusy:
            case ErrorKind::kUnavailable:
                return {StatusCode::kUnavailable, e.what()};
            default:
                return {StatusCode::kInternal, e.what()};
        }
    } catch (const std::exception& e) {
        return {StatusCode::kInternal, e.what()};
    } catch (...) {
        return {StatusCode::kInternal, "unknown error during inference"};
    }
}

}  // namespace

std::shared_ptr<ModelVersion> ModelVersion::load(Core& core, const ModelConfig& config,
                                                 int64_t version, const std::string& model_file,
                                                 Metrics& metrics) {
    std::shared_ptr<ModelVersion> self(new ModelVersion());
    self->m_model_name = config.name;
    self->m_version = version;
    self->m_model_file = model_file;
    self->m_device = config.target_device;
    AnyMap properties;
    for (const auto& [key, value] : config.plugin_config) properties[key] = Any(value);
    auto model = core.read_model(model_file);
    self->m_compiled = core.compile_model(model, config.target_device, properties);
    self->m_inputs = describe(self->m_compiled.inputs());
    self->m_outputs = describe(self->m_compiled.outputs());

    size_t nireq = config.nireq;
    if (nireq == 0) {
        try {
            nireq = self->m_compiled.get_property(optimal_number_of_infer_requests);
        } catch (const Exception&) {
            nireq = 1;
        }
        if (nireq == 0) nireq = 1;
    }
    self->m_metrics = &metrics.version(config.name, version);
    self->m_metrics->streams.store(nireq);
    std::weak_ptr<ModelVersion> weak = self;
    for (size_t slot = 0; slot < nireq; ++slot) {
        InferRequest request = self->m_compiled.create_infer_request();
        request.set_callback([weak, slot](std::exception_ptr error) {
            if (auto version = weak.lock()) version->on_complete(slot, error);
        });
        self->m_requests.push_back(std::move(request));
        self->m_idle.push_back(nireq - 1 - slot);  // slot 0 is taken first
    }
    self->m_running.resize(nireq);
    self->m_started.resize(nireq);
    self->m_max_queue = config.max_queue_size ? config.max_queue_size : 16 * nireq;
    return self;
}

ModelVersion::~ModelVersion() {
    // Fail what is still queued so that no client waits forever; running requests are waited
    // for by their destructors (their callbacks find the weak reference expired).
    std::deque<std::shared_ptr<InferJob>> queue;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        queue.swap(m_queue);
    }
    for (auto& job : queue) job->finish({StatusCode::kUnavailable, "model version unloaded"});
    m_requests.clear();
    for (auto& job : m_running) {
        if (job) job->finish({StatusCode::kUnavailable, "model version unloaded"});
    }
}

Status ModelVersion::submit(const std::shared_ptr<InferJob>& job) {
    job->enqueued = Clock::now();
    size_t slot = 0;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_accepting) {
            return {StatusCode::kUnavailable, "model '" + m_model_name + "' version " +
                                                  std::to_string(m_version) + " is shutting down"};
        }
        if (m_idle.empty()) {
            if (m_queue.size() >= m_max_queue) {
                return {StatusCode::kResourceExhausted,
                        "queue of model '" + m_model_name + "' version " +
                            std::to_string(m_version) + " is full (" + std::to_string(m_max_queue) +
                            " requests waiting); retry later"};
            }
            m_queue.push_back(job);
            m_metrics->queue_size.store(static_cast<int64_t>(m_queue.size()));
            m_metrics->current_requests.fetch_add(1);
            return {};
        }
        slot = m_idle.back();
        m_idle.pop_back();
        m_running[slot] = job;
        job->slot = static_cast<int>(slot);
        m_metrics->current_requests.fetch_add(1);
    }
    run_next(slot, job);
    return {};
}

void ModelVersion::run_next(size_t slot, std::shared_ptr<InferJob> job) {
    while (true) {
        if (!job) {
            std::lock_guard<std::mutex> lock(m_mutex);
            while (!m_queue.empty() && !job) {
                job = std::move(m_queue.front());
                m_queue.pop_front();
                if (job->finished()) job.reset();  // cancelled while queued
            }
            m_metrics->queue_size.store(static_cast<int64_t>(m_queue.size()));
            if (!job) {
                m_running[slot].reset();
                m_idle.push_back(slot);
                m_idle_cv.notify_all();
                return;
            }
            m_running[slot] = job;
            job->slot = static_cast<int>(slot);
        }
        const auto now = Clock::now();
        m_metrics->wait_for_infer_req_us.observe(micros(now - job->enqueued));
        Status failure;
        if (now >= job->deadline) {
            failure = {
                StatusCode::kDeadlineExceeded,
                "deadline exceeded while waiting in the queue of model '" + m_model_name + "'"};
        } else {
            bool counted = false;
            try {
                InferRequest& request = m_requests[slot];
                for (const auto& [index, tensor] : job->inputs) {
                    request.set_tensor(m_compiled.input(index), tensor);
                }
                {
                    std::lock_guard<std::mutex> lock(m_mutex);
                    m_started[slot] = now;
                    m_stats.queue_count += 1;
                    m_stats.queue_ns += nanos(now - job->enqueued);
                }
                m_metrics->active_infer_requests.fetch_add(1);
                counted = true;
                request.start_async();
                return;
            } catch (const std::exception& e) {
                if (counted) m_metrics->active_infer_requests.fetch_sub(1);
                failure = {StatusCode::kInvalidArgument, e.what()};
            }
        }
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_running[slot].reset();
        }
        account(*job, false);
        job->finish(std::move(failure));
        job.reset();
    }
}

void ModelVersion::on_complete(size_t slot, std::exception_ptr error) {
    std::shared_ptr<InferJob> job;
    Clock::time_point started;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        job = m_running[slot];
        started = m_started[slot];
    }
    m_metrics->active_infer_requests.fetch_sub(1);
    if (!job) {  // not expected: every started run has its job; keep the slot usable anyway
        run_next(slot, nullptr);
        return;
    }
    const auto done = Clock::now();
    m_metrics->inference_us.observe(micros(done - started));
    Status status;
    std::vector<OutputData> outputs;
    if (error) {
        status = status_of(error, *job);
    } else {
        try {
            for (size_t index : job->outputs) {
                Tensor tensor = m_requests[slot].get_tensor(m_compiled.output(index));
                if (!tensor.is_continuous()) tensor = tensor.clone();
                OutputData out;
                out.name = m_outputs[index].name;
                out.type = tensor.get_element_type();
                for (size_t d : tensor.get_shape()) out.shape.push_back(static_cast<int64_t>(d));
                out.bytes.assign(static_cast<const char*>(tensor.data()), tensor.get_byte_size());
                outputs.push_back(std::move(out));
            }
        } catch (const std::exception& e) {
            status = {StatusCode::kInternal, std::string("reading outputs: ") + e.what()};
            outputs.clear();
        }
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stats.infer_count += 1;
        m_stats.infer_ns += nanos(done - started);
        m_stats.output_count += 1;
        m_stats.output_ns += nanos(Clock::now() - done);
        m_running[slot].reset();
    }
    account(*job, status.ok());
    job->finish(std::move(status), std::move(outputs));
    run_next(slot, nullptr);
}

void ModelVersion::account(const InferJob& job, bool ok) {
    const auto now = Clock::now();
    m_metrics->current_requests.fetch_sub(1);
    std::lock_guard<std::mutex> lock(m_mutex);
    const uint64_t ns = nanos(now - job.enqueued);
    if (ok) {
        m_stats.success_count += 1;
        m_stats.success_ns += ns;
        m_stats.last_inference_ms =
            static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
    } else {
        m_stats.fail_count += 1;
        m_stats.fail_ns += ns;
    }
}

void ModelVersion::cancel(const std::shared_ptr<InferJob>& job, StatusCode code,
                          const std::string& why) {
    bool was_queued = false;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        for (auto it = m_queue.begin(); it != m_queue.end(); ++it) {
            if (*it == job) {
                m_queue.erase(it);
                was_queued = true;
                break;
            }
        }
        m_metrics->queue_size.store(static_cast<int64_t>(m_queue.size()));
        if (!was_queued && job->slot >= 0 && m_running[job->slot] == job) {
            // The device stops the run; its callback then frees the slot. The client is
            // answered now rather than after the device noticed.
            m_requests[job->slot].cancel();
        }
    }
    if (was_queued) {
        account(*job, false);
        m_idle_cv.notify_all();
    }
    job->finish({code, why});
}

void ModelVersion::stop_accepting() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_accepting = false;
}

bool ModelVersion::wait_idle(Clock::time_point until) {
    std::unique_lock<std::mutex> lock(m_mutex);
    return m_idle_cv.wait_until(
        lock, until, [&] { return m_queue.empty() && m_idle.size() == m_requests.size(); });
}

VersionStats ModelVersion::stats() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_stats;
}

}  // namespace vireo::server
