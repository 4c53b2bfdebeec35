// Implements SyncInferRequest: bind the caller's tensors into a job and run it in a batch.
#include "sync_infer_request.hpp"

#include "compiled_model.hpp"
#include "vireo/exception.hpp"

namespace batch_plugin {
using namespace vireo;

SyncInferRequest::SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled_model)
    : sdk::ISyncInferRequest(compiled_model), m_batcher(compiled_model->batcher()) {}

void SyncInferRequest::infer(sdk::RunContext& run) {
    run.throw_if_cancelled("BATCH");
    convert_batched_tensors();
    BatchJob job;
    job.inputs = input_tensors();
    job.outputs = output_tensors();
    {
        // A cancel wakes the batcher, which then sees run.cancelled().
        auto wake = run.on_cancel([this] { m_batcher->wake(); });
        m_batcher->run(job, run);
    }
    output_tensors() = job.outputs;  // the same handles, or copies of a dynamic output
    m_profiling = std::move(job.profiling);
}

}  // namespace batch_plugin
