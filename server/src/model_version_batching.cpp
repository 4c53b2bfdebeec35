// ModelVersion's dynamic batching (model_version.hpp describes it): the batcher thread, one
// batched inference's inputs gathered and its outputs split. Kept apart from model_version.cpp,
// which holds the unbatched scheduler, so that each file stays readable on its own.
#include <algorithm>
#include <cstring>

#include "model_version.hpp"

namespace vireo::server {

// Dynamic batching ---------------------------------------------------------------------------

namespace {

int64_t batch_of(const InferJob& job) {
    const auto& shape = job.inputs.front().second.get_shape();
    return static_cast<int64_t>(shape[0]);
}

// Two requests can share a batch when every input has the same dimensions after the first.
bool same_item_shape(const InferJob& a, const InferJob& b) {
    for (const auto& [index, tensor] : a.inputs) {
        for (const auto& [other_index, other] : b.inputs) {
            if (other_index != index) continue;
            const auto& x = tensor.get_shape();
            const auto& y = other.get_shape();
            if (x.size() != y.size() || !std::equal(x.begin() + 1, x.end(), y.begin() + 1)) {
                return false;
            }
        }
    }
    return true;
}

}  // namespace

Status ModelVersion::submit_batched(const std::shared_ptr<InferJob>& job) {
    if (job->inputs.empty()) return {StatusCode::kInvalidArgument, "a batched model needs inputs"};
    const int64_t batch = batch_of(*job);
    for (const auto& [index, tensor] : job->inputs) {
        const auto& shape = tensor.get_shape();
        if (shape.empty() || static_cast<int64_t>(shape[0]) != batch) {
            return {StatusCode::kInvalidArgument,
                    "input '" + m_inputs[index].name + "': dimension 0 (the batch) must be " +
                        std::to_string(batch) + " like the other inputs'"};
        }
    }
    if (batch < 1 || batch > static_cast<int64_t>(m_batching.max_batch_size)) {
        return {StatusCode::kInvalidArgument, "batch " + std::to_string(batch) + " is outside 1.." +
                                                  std::to_string(m_batching.max_batch_size) +
                                                  " (max_batch_size)"};
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_accepting) {
            return {StatusCode::kUnavailable, "model '" + m_model_name + "' version " +
                                                  std::to_string(m_version) + " is shutting down"};
        }
        if (m_queue.size() >= m_max_queue) {
            return {StatusCode::kResourceExhausted, "queue of model '" + m_model_name +
                                                        "' version " + std::to_string(m_version) +
                                                        " is full (" + std::to_string(m_max_queue) +
                                                        " requests waiting); retry later"};
        }
        m_queue.push_back(job);
        m_metrics->queue_size.store(static_cast<int64_t>(m_queue.size()));
        m_metrics->current_requests.fetch_add(1);
    }
    m_batch_cv.notify_all();
    return {};
}

void ModelVersion::batcher_loop() {
    const int64_t target = m_batching.preferred_batch_size.empty()
                               ? m_batching.max_batch_size
                               : *std::max_element(m_batching.preferred_batch_size.begin(),
                                                   m_batching.preferred_batch_size.end());
    const auto delay = std::chrono::microseconds(m_batching.max_queue_delay_microseconds);
    std::unique_lock<std::mutex> lock(m_mutex);
    while (true) {
        m_batch_cv.wait(lock, [&] { return m_stopping || (!m_queue.empty() && !m_idle.empty()); });
        if (m_stopping) return;
        while (!m_queue.empty() && m_queue.front()->finished()) m_queue.pop_front();  // cancelled
        if (m_queue.empty()) continue;
        // The longest run of compatible requests from the front that fits max_batch_size.
        int64_t items = 0;
        size_t count = 0;
        bool full = false;
        for (const auto& job : m_queue) {
            if (job->finished()) {
                ++count;  // taken along and skipped at dispatch
                continue;
            }
            if (!same_item_shape(*m_queue.front(), *job) ||
                items + batch_of(*job) > static_cast<int64_t>(m_batching.max_batch_size)) {
                full = true;
                break;
            }
            items += batch_of(*job);
            ++count;
        }
        const auto due = m_queue.front()->enqueued + delay;
        if (items < target && !full && Clock::now() < due && m_accepting) {
            m_batch_cv.wait_until(lock, due);
            continue;
        }
        std::vector<std::shared_ptr<InferJob>> batch;
        for (size_t i = 0; i < count; ++i) {
            if (!m_queue.front()->finished()) batch.push_back(m_queue.front());
            m_queue.pop_front();
        }
        m_metrics->queue_size.store(static_cast<int64_t>(m_queue.size()));
        const size_t slot = m_idle.back();
        m_idle.pop_back();
        m_batches[slot] = batch;
        for (auto& job : batch) job->slot = -1;  // a batch is not cancelled for one request
        lock.unlock();
        dispatch_batch(slot, std::move(batch));
        lock.lock();
    }
}

void ModelVersion::dispatch_batch(size_t slot, std::vector<std::shared_ptr<InferJob>> batch) {
    const auto now = Clock::now();
    int64_t total = 0;
    for (const auto& job : batch) {
        total += batch_of(*job);
        m_metrics->wait_for_infer_req_us.observe(micros(now - job->enqueued));
    }
    bool counted = false;
    try {
        InferRequest& request = m_requests[slot];
        for (size_t index = 0; index < m_inputs.size(); ++index) {
            const Tensor* first = nullptr;
            for (const auto& [i, t] : batch.front()->inputs) {
                if (i == index) first = &t;
            }
            if (!first) continue;
            Shape shape = first->get_shape();
            shape[0] = static_cast<size_t>(total);
            Tensor combined(first->get_element_type(), shape);
            char* dst = static_cast<char*>(combined.data());
            for (const auto& job : batch) {
                for (const auto& [i, t] : job->inputs) {
                    if (i != index) continue;
                    std::memcpy(dst, t.data(), t.get_byte_size());
                    dst += t.get_byte_size();
                }
            }
            request.set_tensor(m_compiled.input(index), combined);
        }
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_started[slot] = now;
            for (const auto& job : batch) {
                m_stats.queue_count += 1;
                m_stats.queue_ns += nanos(now - job->enqueued);
                job->queued_for = now - job->enqueued;
            }
        }
        m_metrics->active_infer_requests.fetch_add(1);
        counted = true;
        m_metrics->batch_size.observe(static_cast<uint64_t>(total));
        request.start_async();
    } catch (const std::exception& e) {
        if (counted) m_metrics->active_infer_requests.fetch_sub(1);
        for (const auto& job : batch) {
            account(*job, false);
            job->finish({StatusCode::kInvalidArgument, e.what()});
        }
        std::lock_guard<std::mutex> lock(m_mutex);
        m_batches[slot].clear();
        m_idle.push_back(slot);
        m_idle_cv.notify_all();
        m_batch_cv.notify_all();
    }
}

void ModelVersion::complete_batch(size_t slot, std::exception_ptr error) {
    std::vector<std::shared_ptr<InferJob>> batch;
    Clock::time_point started;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        batch = m_batches[slot];
        started = m_started[slot];
    }
    m_metrics->active_infer_requests.fetch_sub(1);
    const auto done = Clock::now();
    m_metrics->inference_us.observe(micros(done - started));
    std::vector<Tensor> outputs(m_outputs.size());
    Status failure;
    if (error) {
        failure = status_of(error, *batch.front());
    } else {
        try {
            for (size_t index = 0; index < m_outputs.size(); ++index) {
                outputs[index] = m_requests[slot].get_tensor(m_compiled.output(index));
                if (!outputs[index].is_continuous()) outputs[index] = outputs[index].clone();
            }
        } catch (const std::exception& e) {
            failure = {StatusCode::kInternal, std::string("reading outputs: ") + e.what()};
        }
    }
    int64_t total = 0;
    for (const auto& job : batch) total += batch_of(*job);
    for (const auto& tensor : outputs) {
        if (failure.ok() &&
            (tensor.get_shape().empty() || static_cast<int64_t>(tensor.get_shape()[0]) != total)) {
            failure = {StatusCode::kInternal,
                       "a batched output's dimension 0 is not the batch (" + std::to_string(total) +
                           "): the model cannot be batched along dimension 0"};
        }
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stats.infer_count += 1;
        m_stats.infer_ns += nanos(done - started);
    }
    int64_t offset = 0;
    for (const auto& job : batch) {
        const int64_t items = batch_of(*job);
        std::vector<OutputData> results;
        if (failure.ok()) {
            for (size_t index : job->outputs) {
                const Tensor& tensor = outputs[index];
                const size_t row = tensor.get_byte_size() / static_cast<size_t>(total);
                OutputData out;
                out.name = m_outputs[index].name;
                out.type = tensor.get_element_type();
                for (size_t d : tensor.get_shape()) out.shape.push_back(static_cast<int64_t>(d));
                out.shape[0] = items;
                out.bytes.assign(static_cast<const char*>(tensor.data()) + offset * row,
                                 static_cast<size_t>(items) * row);
                results.push_back(std::move(out));
            }
        }
        offset += items;
        account(*job, failure.ok());
        job->ran_for = done - started;
        job->finish(failure, std::move(results));
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stats.output_count += 1;
        m_stats.output_ns += nanos(Clock::now() - done);
        m_batches[slot].clear();
        m_idle.push_back(slot);
        m_idle_cv.notify_all();
    }
    m_batch_cv.notify_all();
}

}  // namespace vireo::server
