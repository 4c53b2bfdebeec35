// Declares HETERO's SyncInferRequest: one request per part, the cut tensors between them, and
// the binding of every part's ports to the HETERO request's tensors.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "compiled_model.hpp"
#include "vireo/sdk/device_handles.hpp"
#include "vireo/sdk/isync_infer_request.hpp"

namespace hetero {

/// Each part's request is the part device's own IAsyncInferRequest (sdk::InferRequestHandle, which
/// keeps that device's library loaded), driven directly: no public InferRequest around it.
/// infer() runs the parts in order on the caller's thread. Before a part runs, bind(i) gives its
/// ports their tensors: a model input or output is the HETERO request's own tensor (the user's,
/// when set), a cut is one tensor shared by its producer (as output) and its consumers (as
/// input), so nothing is copied between parts on the host. A cut of dynamic shape is the
/// producer's own output tensor, taken after it ran (collect(i)).
/// Cancel: begin_run() registers with the run context a function that cancels the running part
/// and keeps later ones from starting. Not thread-safe, as ISyncInferRequest.
class SyncInferRequest : public vireo::sdk::ISyncInferRequest {
  public:
    explicit SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled);
    ~SyncInferRequest() override;

    void infer(vireo::sdk::RunContext& run) override;
    /// Rows of every part: first the five stages summed over the parts, then each part's rows
    /// with exec_type "<device>:<its exec_type>" (stage rows named "<device> #i <stage>").
    std::vector<vireo::ProfilingInfo> get_profiling_info() const override;
    /// The variables of every part (each lives in the part that reads and writes it).
    std::vector<std::shared_ptr<vireo::sdk::IVariableState>> query_state() const override;
    /// Before the parts run: gathers batched inputs (set_tensors) into their input tensors, then
    /// copies the model outputs that are a model input or a Constant.
    void prepare_inputs();
    /// Sets part i's input and output tensors (see the class comment).
    void bind(size_t part);
    /// After part i ran: takes its dynamic cut outputs.
    void collect(size_t part);
    /// Called when a run starts: clears the cancel flag and ties it to `run`'s cancel token.
    void begin_run(vireo::sdk::RunContext& run);
    bool cancelled() const { return m_cancelled; }
    size_t part_count() const { return m_requests.size(); }
    const vireo::sdk::InferRequestHandle& part_request(size_t part) const {
        return m_requests[part];
    }

  private:
    void run_passthroughs();
    vireo::Tensor& slot_tensor(const Slot& slot);

    std::shared_ptr<const CompiledModel> m_compiled;
    std::vector<vireo::sdk::InferRequestHandle> m_requests;  // one per part
    std::vector<vireo::Tensor> m_cut_tensors;                // one per cut
    std::atomic<bool> m_cancelled{false};
    vireo::sdk::RunContext::CancelRegistration m_cancel_parts;
};

}  // namespace hetero
