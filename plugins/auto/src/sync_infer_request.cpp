// Implements SyncInferRequest: lend a worker, bind the user's tensors, run, fall back on a
// device error.
#include "sync_infer_request.hpp"

#include "compiled_model.hpp"
#include "vireo/exception.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"

namespace auto_plugin {
using namespace vireo;

SyncInferRequest::SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled_model)
    : sdk::ISyncInferRequest(compiled_model),
      m_compiled(compiled_model),
      m_scheduler(compiled_model->scheduler()) {}

SyncInferRequest::~SyncInferRequest() = default;

void SyncInferRequest::run_on(const sdk::InferRequestHandle& worker, const sdk::RunContext& run) {
    const auto& inputs = get_inputs();
    const auto& outputs = get_outputs();
    // The worker's ports are its compiled model's; the user's tensors go to them by index.
    const OutputVector& worker_inputs = worker.impl()->get_inputs();
    const OutputVector& worker_outputs = worker.impl()->get_outputs();
    std::vector<bool> preset(outputs.size(), false);
    worker.call("set_tensor", [&](sdk::IAsyncInferRequest& request) {
        for (size_t i = 0; i < inputs.size(); ++i)
            request.set_tensor(worker_inputs.at(i), input_tensor(i));
        for (size_t i = 0; i < outputs.size(); ++i) {
            const Tensor& mine = output_tensor(i);
            if (mine && (outputs[i].get_partial_shape().is_static() || mine.get_size() > 0)) {
                request.set_tensor(worker_outputs.at(i), mine);
                preset[i] = true;
            }
        }
    });
    {
        std::lock_guard<std::mutex> lock(m_worker_mutex);
        // Under the lock the cancel function takes: either it sees m_running, or this sees the
        // flag it was set after.
        run.throw_if_cancelled(m_scheduler->config().owner);
        m_running = worker;
        worker.call("start_async", [](sdk::IAsyncInferRequest& request) { request.start_async(); });
    }
    struct Clear {
        SyncInferRequest* self;
        ~Clear() {
            std::lock_guard<std::mutex> lock(self->m_worker_mutex);
            self->m_running = {};
        }
    } clear{this};
    worker.call("wait", [](sdk::IAsyncInferRequest& request) { request.wait(); });
    for (size_t i = 0; i < outputs.size(); ++i) {
        Tensor produced = worker.call("get_tensor", [&](sdk::IAsyncInferRequest& request) {
            return request.get_tensor(worker_outputs.at(i));
        });
        if (preset[i] && produced.data() == output_tensor(i).data()) continue;
        // The worker's own tensor: copy it out, the worker serves other requests next.
        Tensor copy(produced.get_element_type(), produced.get_shape());
        produced.copy_to(copy);
        output_tensor(i) = copy;
    }
    try {
        m_profiling = worker.call("get_profiling_info", [](sdk::IAsyncInferRequest& request) {
            return request.get_profiling_info();
        });
    } catch (const Exception&) {
        m_profiling.clear();  // a device without profiling rows
    }
}

void SyncInferRequest::infer(sdk::RunContext& run) {
    const std::string& owner = m_scheduler->config().owner;
    run.throw_if_cancelled(owner);
    // A cancel stops the running worker and wakes a wait for a free one.
    auto cancel_worker = run.on_cancel([this] {
        {
            std::lock_guard<std::mutex> lock(m_worker_mutex);
            if (m_running)
                m_running.call("cancel",
                               [](sdk::IAsyncInferRequest& request) { request.cancel(); });
        }
        m_scheduler->wake();
    });
    convert_batched_tensors();
    std::vector<bool> failed(m_scheduler->config().devices.size(), false);
    std::exception_ptr last_error;
    while (true) {
        Lease lease = m_scheduler->acquire(failed, run);
        if (!lease) {
            if (last_error) std::rethrow_exception(last_error);
            const std::string last = m_scheduler->last_failure();
            throw_error<Unavailable>(owner, ": no device is left to run the inference on",
                                     last.empty() ? "" : " (the last to fail was " + last + ")");
        }
        const size_t device = lease.device;
        try {
            run_on(lease.request, run);
            m_scheduler->release(std::move(lease));
            return;
        } catch (const Exception& e) {
            m_scheduler->release(std::move(lease));
            if (e.kind() != ErrorKind::kUnavailable || !m_scheduler->runtime_fallback() ||
                run.cancelled())
                throw;
            last_error = std::current_exception();
            failed[device] = true;
            m_scheduler->report_failure(device, e.what());
        } catch (...) {
            m_scheduler->release(std::move(lease));
            throw;
        }
    }
}

std::vector<ProfilingInfo> SyncInferRequest::get_profiling_info() const {
    return m_profiling;
}

std::vector<std::shared_ptr<sdk::IVariableState>> SyncInferRequest::query_state() const {
    return {};  // stateless: a run may land on any worker of any device
}

}  // namespace auto_plugin
