// Implements Batcher: gather, copy in along the batch axis, infer once, scatter out.
#include "batcher.hpp"

#include <algorithm>

#include "vireo/exception.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"

namespace batch_plugin {
using namespace vireo;

namespace {

/// Item `k` of a batched host tensor (dim 0 = batch) as a view of batch 1.
Tensor item_of(const Tensor& batched, size_t k) {
    Shape shape = batched.get_shape();
    const size_t n = shape.at(0);
    shape[0] = 1;
    const size_t bytes = batched.get_byte_size() / n;
    return Tensor(batched.get_element_type(), shape,
                  static_cast<char*>(batched.data()) + k * bytes);
}

void cancel_request(const sdk::InferRequestHandle& request) {
    request.call("cancel", [](sdk::IAsyncInferRequest& r) { r.cancel(); });
}

void infer_on(const sdk::InferRequestHandle& request) {
    request.call("infer", [](sdk::IAsyncInferRequest& r) { r.infer(); });
}

std::vector<ProfilingInfo> profiling_of(const sdk::InferRequestHandle& request) {
    return request.call("get_profiling_info",
                        [](sdk::IAsyncInferRequest& r) { return r.get_profiling_info(); });
}

// The tensor of the request's input (`input`) or output port `index`.
Tensor port_tensor(const sdk::InferRequestHandle& request, bool input, size_t index) {
    return request.call("get_tensor", [&](sdk::IAsyncInferRequest& r) {
        return r.get_tensor(input ? r.get_inputs().at(index) : r.get_outputs().at(index));
    });
}

}  // namespace

void RunningBatch::cancel() {
    sdk::InferRequestHandle worker;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_cancelled = true;
        worker = m_worker;
    }
    if (worker) cancel_request(worker);  // outside the lock: the device's cancel may take a while
}

bool RunningBatch::start(const sdk::InferRequestHandle& worker) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_cancelled) return false;
    m_worker = worker;
    return true;
}

void RunningBatch::finish() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_worker = sdk::InferRequestHandle();
}

bool RunningBatch::cancelled() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_cancelled;
}

Batcher::Batcher(std::string owner, sdk::CompiledModelHandle batched,
                 sdk::CompiledModelHandle single, uint32_t batch_size, uint32_t timeout_ms)
    : m_owner(std::move(owner)),
      m_batched(std::move(batched)),
      m_single(std::move(single)),
      m_batch_size(batch_size),
      m_timeout_ms(timeout_ms) {}

sdk::InferRequestHandle Batcher::take(std::vector<sdk::InferRequestHandle>& pool,
                                      const sdk::CompiledModelHandle& model) {
    {
        std::lock_guard<std::mutex> lock(m_pool_mutex);
        if (!pool.empty()) {
            sdk::InferRequestHandle r = std::move(pool.back());
            pool.pop_back();
            return r;
        }
    }
    return model.create_infer_request();
}

void Batcher::give_back(std::vector<sdk::InferRequestHandle>& pool,
                        sdk::InferRequestHandle request) {
    std::lock_guard<std::mutex> lock(m_pool_mutex);
    pool.push_back(std::move(request));
}

void Batcher::run_batch(std::vector<BatchJob*> jobs, const std::shared_ptr<RunningBatch>& batch) {
    std::exception_ptr error;
    try {
        sdk::InferRequestHandle worker = take(m_batched_pool, m_batched);
        if (!batch->start(worker)) throw_error<Cancelled>(m_owner, ": the inference was cancelled");
        const size_t inputs = jobs.front()->inputs.size(), outputs = jobs.front()->outputs.size();
        for (size_t i = 0; i < inputs; ++i) {
            Tensor all = port_tensor(worker, /*input=*/true, i);
            for (size_t k = 0; k < jobs.size(); ++k) {
                Tensor slot = item_of(all, k);
                jobs[k]->inputs[i].copy_to(slot);
            }
        }
        try {
            infer_on(worker);
        } catch (...) {
            batch->finish();
            throw;
        }
        batch->finish();
        const std::vector<ProfilingInfo> rows = profiling_of(worker);
        for (BatchJob* job : jobs) job->profiling = rows;
        for (size_t o = 0; o < outputs; ++o) {
            const Tensor all = port_tensor(worker, /*input=*/false, o);
            for (size_t k = 0; k < jobs.size(); ++k) item_of(all, k).copy_to(jobs[k]->outputs[o]);
        }
        give_back(m_batched_pool, std::move(worker));
        ++m_batches;
    } catch (...) {
        error = std::current_exception();  // every job of the batch gets it, once
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    for (BatchJob* job : jobs) {
        job->error = error;
        job->done = true;
    }
    m_changed.notify_all();
}

void Batcher::run_alone(BatchJob& job, sdk::RunContext& run) {
    sdk::InferRequestHandle worker = take(m_single_pool, m_single);
    std::vector<bool> preset(job.outputs.size(), false);
    worker.call("set_tensor", [&](sdk::IAsyncInferRequest& request) {
        for (size_t i = 0; i < job.inputs.size(); ++i)
            request.set_tensor(request.get_inputs().at(i), job.inputs[i]);
        for (size_t o = 0; o < job.outputs.size(); ++o) {
            // A dynamic output's empty placeholder is not given: the worker's own tensor is
            // copied.
            if (job.outputs[o] && job.outputs[o].get_size() > 0) {
                request.set_tensor(request.get_outputs().at(o), job.outputs[o]);
                preset[o] = true;
            }
        }
    });
    ++m_alone;
    {
        // A cancel of the job reaches the device request (a device that hangs is woken).
        auto cancel = run.on_cancel([worker] { cancel_request(worker); });
        run.throw_if_cancelled(m_owner);
        infer_on(worker);  // its error is the job's
    }
    job.profiling = profiling_of(worker);
    for (size_t o = 0; o < job.outputs.size(); ++o) {
        const Tensor produced = port_tensor(worker, /*input=*/false, o);
        if (preset[o] && produced.data() == job.outputs[o].data()) continue;
        Tensor copy(produced.get_element_type(), produced.get_shape());
        produced.copy_to(copy);
        job.outputs[o] = copy;
    }
    give_back(m_single_pool, std::move(worker));
}

void Batcher::run(BatchJob& job, sdk::RunContext& run) {
    if (!m_batched) {  // not batchable: every request runs alone at once
        run_alone(job, run);
        return;
    }
    std::unique_lock<std::mutex> lock(m_mutex);
    m_pending.push_back(&job);
    if (m_pending.size() >= m_batch_size) {
        std::vector<BatchJob*> jobs(m_pending.begin(), m_pending.begin() + m_batch_size);
        m_pending.erase(m_pending.begin(), m_pending.begin() + m_batch_size);
        auto batch = std::make_shared<RunningBatch>();
        for (BatchJob* j : jobs) {
            j->taken = true;
            j->batch = batch;
        }
        lock.unlock();
        {
            // This thread runs the batch: its own cancel reaches the device request directly.
            auto cancel = run.on_cancel([batch] { batch->cancel(); });
            run_batch(std::move(jobs), batch);
        }
        lock.lock();
    }
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(m_timeout_ms.load());
    bool cancel_sent = false;
    while (!job.done) {
        if (!job.taken) {
            if (run.cancelled() || std::chrono::steady_clock::now() >= deadline) {
                m_pending.erase(std::find(m_pending.begin(), m_pending.end(), &job));
                lock.unlock();
                if (run.cancelled())
                    throw_error<Cancelled>(m_owner, ": the inference was cancelled");
                run_alone(job, run);
                return;
            }
            m_changed.wait_until(lock, deadline);
        } else if (run.cancelled() && !cancel_sent) {
            // In a running batch: cancel its device request; the batch then ends at once, and
            // its other jobs run again alone (below, on their own threads).
            cancel_sent = true;
            auto batch = job.batch;
            lock.unlock();
            batch->cancel();
            lock.lock();
        } else {
            m_changed.wait(lock);  // the batch ends (woken by wake() on a cancel too)
        }
    }
    if (job.error && run.cancelled())
        throw_error<Cancelled>(m_owner, ": the inference was cancelled");
    if (job.error && job.batch && job.batch->cancelled()) {
        // Another job of the batch was cancelled, not this one: run again, alone.
        lock.unlock();
        job.error = nullptr;
        job.done = false;
        run_alone(job, run);
        return;
    }
    if (job.error) std::rethrow_exception(job.error);
}

void Batcher::wake() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_changed.notify_all();
}

}  // namespace batch_plugin
