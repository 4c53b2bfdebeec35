// Implements SyncInferRequest: bind the caller's tensors into a job and run it in a batch.
#include "sync_infer_request.hpp"

#include "compiled_model.hpp"
#include "vireo/exception.hpp"

namespace batch_plugin {
using namespace vireo;

SyncInferRequest::SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled_model)
    : sdk::ISyncInferRequest(compiled_model), m_batcher(compiled_model->batcher()) {}

void SyncInferRequest::infer() {
    m_cancelled.store(false);  // see AUTO's SyncInferRequest: the probe covers earlier cancels
    if (m_cancel_probe && m_cancel_probe())
        throw_error<Cancelled>("BATCH: the inference was cancelled");
    convert_batched_tensors();
    BatchJob job;
    job.inputs = m_input_tensors;
    job.outputs = m_output_tensors;
    m_batcher->run(job, m_cancelled);
    m_output_tensors = job.outputs;  // the same handles, or copies of a dynamic output
    m_profiling = std::move(job.profiling);
}

void SyncInferRequest::cancel() {
    m_cancelled.store(true);
    m_batcher->wake();
}

}  // namespace batch_plugin
