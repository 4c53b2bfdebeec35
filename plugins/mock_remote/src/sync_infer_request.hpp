// Declares the MOCK_REMOTE synchronous request: per-request device buffers and the four pipeline
// steps (preprocess, upload + submit, wait, download + postprocess) the async request spreads
// over its executors.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compiled_model.hpp"
#include "device.hpp"
#include "vireo/sdk/isync_infer_request.hpp"

namespace vireo::mock_remote {

/// A request of one compiled model. It owns a device buffer per model input, per model output
/// and per intermediate value (static shapes: allocated once, at creation) and host tensors for
/// the inputs and outputs users see. A remote tensor of the same instance set as an input is
/// used in place (no upload); as an output, the device writes into it (no download).
///
/// The steps run in order, each at most once per inference; they are not thread-safe among
/// themselves (the async request serialises them). Cancel comes through the run context: before
/// submission it stops the run, after it the job is dropped from the device queue (or aborted if
/// it hangs).
class SyncInferRequest : public sdk::ISyncInferRequest {
  public:
    explicit SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled_model);
    /// Cancels and waits for a job still on the device, then frees the buffers.
    ~SyncInferRequest() override;

    /// All four steps inline.
    void infer(sdk::RunContext& run) override;
    /// Stage rows ("input preprocessing", "input transfer", "execution", "output transfer",
    /// "output postprocessing", "queue wait"), then per-op rows with enable_profiling.
    std::vector<ProfilingInfo> get_profiling_info() const override;
    /// Stateful models are not supported: always empty.
    std::vector<std::shared_ptr<sdk::IVariableState>> query_state() const override { return {}; }
    /// Step 1: binds the inputs (assembling batched ones, densifying strided ones).
    void infer_preprocess();
    /// Step 2: uploads host inputs and submits the job, unless the run was cancelled: then
    /// throws Cancelled and submits nothing. After submission, a cancel of `run` drops the job
    /// (until wait_pipeline has seen it end).
    void start_pipeline(sdk::RunContext& run);
    /// Step 3: blocks until the device completes the job; rethrows its error (Unavailable for a
    /// device error, Cancelled for a dropped or aborted job).
    void wait_pipeline();
    /// Step 4: downloads host outputs.
    void infer_postprocess();

  protected:
    /// The base checks plus: a remote tensor must belong to this request's device instance
    /// (InvalidArgument naming both devices otherwise).
    void check_tensor(const Output& port, const Tensor& tensor) const override;

  private:
    struct Times {
        std::chrono::nanoseconds preprocess{0}, upload{0}, queue{0}, device{0}, download{0},
            postprocess{0};
        std::string host_thread, wait_thread, post_thread;
        bool uploaded = false, downloaded = false, executed = false;
    };

    std::shared_ptr<DeviceJob> current_job() const;
    /// Waits for a job of an earlier, cancelled inference that is still running, so that its
    /// buffers are not written under it.
    void drain_previous_job();

    std::shared_ptr<const CompiledModel> m_compiled_model;
    std::shared_ptr<Device> m_device;
    std::vector<BufferHandle> m_values;   // per plan value: weights, inputs and intermediates
    std::vector<BufferHandle> m_outputs;  // per model output
    std::vector<Tensor>
        m_staging;  // per input: dense host copy when the user tensor is strided/batched

    // Bindings of the current inference (handles of remote tensors or of m_values/m_outputs).
    std::vector<BufferHandle> m_bound_inputs;
    std::vector<BufferHandle> m_bound_outputs;
    std::vector<const void*> m_upload_sources;  // null for a remote input
    std::shared_ptr<std::vector<OpTiming>> m_op_timings;
    bool m_profiling = false;
    Times m_times;

    mutable std::mutex m_job_mutex;  // guards m_job (the run's cancel function reads it)
    std::shared_ptr<DeviceJob> m_job;
    sdk::RunContext::CancelRegistration m_cancel_job;  // from submission until the job ended
};

}  // namespace vireo::mock_remote
