// Implements HETERO's SyncInferRequest: binding parts to shared tensors, running them in order,
// merged profiling and states.
#include "sync_infer_request.hpp"

#include <map>

#include "plugin.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"
#include "vireo/sdk/ivariable_state.hpp"

namespace hetero {
using namespace vireo;

namespace {

// A part's variable seen through HETERO: forwards to the part's state and keeps the part's
// library loaded (the module is declared first, so it goes after the state). Its errors reach
// the user through HETERO's VariableState, which names the variable.
class PartVariableState : public sdk::IVariableState {
  public:
    PartVariableState(std::shared_ptr<sdk::IVariableState> state, std::shared_ptr<void> module)
        : sdk::IVariableState(state->get_name(), sdk::with_module(state->get_state(), module)),
          m_module(std::move(module)),
          m_state(std::move(state)) {}
    void reset() override { m_state->reset(); }
    void set_state(const Tensor& state) override { m_state->set_state(state); }
    Tensor get_state() const override { return sdk::with_module(m_state->get_state(), m_module); }

  private:
    std::shared_ptr<void> m_module;
    std::shared_ptr<sdk::IVariableState> m_state;
};

// A part's tensor, kept by HETERO (a dynamic cut) or handed to the user (a model output): it
// holds the part's library.
Tensor part_tensor(const sdk::InferRequestHandle& request, const Output& port) {
    return sdk::with_module(
        request.call("get_tensor", [&](sdk::IAsyncInferRequest& r) { return r.get_tensor(port); }),
        request.module());
}

}  // namespace

SyncInferRequest::SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled)
    : sdk::ISyncInferRequest(compiled), m_compiled(compiled) {
    for (const auto& part : compiled->parts())
        m_requests.push_back(part.compiled.create_infer_request());
    for (const Cut& cut : compiled->cuts())
        m_cut_tensors.push_back(cut.shape.is_static() ? Tensor(cut.type, cut.shape.to_shape())
                                                      : Tensor());
}

SyncInferRequest::~SyncInferRequest() = default;

Tensor& SyncInferRequest::slot_tensor(const Slot& slot) {
    switch (slot.kind) {
        case Slot::Kind::kInput:
            return input_tensor(slot.index);
        case Slot::Kind::kOutput:
            return output_tensor(slot.index);
        case Slot::Kind::kCut:
            break;
    }
    return m_cut_tensors[slot.index];
}

void SyncInferRequest::prepare_inputs() {
    convert_batched_tensors();
    run_passthroughs();
}

void SyncInferRequest::run_passthroughs() {
    for (const Passthrough& p : m_compiled->passthroughs()) {
        const Tensor source = p.input ? input_tensor(*p.input) : p.constant;
        Tensor& target = output_tensor(p.output);
        if (!target || target.get_size() == 0 || target.get_shape() != source.get_shape())
            target = Tensor(source.get_element_type(), source.get_shape());
        source.copy_to(target);
    }
}

void SyncInferRequest::bind(size_t part) {
    const CompiledModel::Part& p = m_compiled->parts()[part];
    const OutputVector& inputs = p.compiled.inputs();
    const OutputVector& outputs = p.compiled.outputs();
    m_requests[part].call("set_tensor", [&](sdk::IAsyncInferRequest& request) {
        for (size_t i = 0; i < p.inputs.size(); ++i)
            request.set_tensor(inputs[i], slot_tensor(p.inputs[i]));
        for (size_t o = 0; o < p.outputs.size(); ++o) {
            const Tensor& tensor = slot_tensor(p.outputs[o]);
            if (tensor) request.set_tensor(outputs[o], tensor);  // a dynamic cut: the part's own
        }
    });
}

void SyncInferRequest::collect(size_t part) {
    const CompiledModel::Part& p = m_compiled->parts()[part];
    const OutputVector& outputs = p.compiled.outputs();
    for (size_t o = 0; o < p.outputs.size(); ++o) {
        const Slot& slot = p.outputs[o];
        if (slot.kind == Slot::Kind::kCut && !m_compiled->cuts()[slot.index].shape.is_static())
            m_cut_tensors[slot.index] = part_tensor(m_requests[part], outputs[o]);
        else if (slot.kind == Slot::Kind::kOutput && output_tensor(slot.index).get_size() == 0)
            output_tensor(slot.index) = part_tensor(m_requests[part], outputs[o]);
    }
}

void SyncInferRequest::begin_run(sdk::RunContext& run) {
    m_cancelled = false;
    // Replaces the last run's registration (harmless if that run is over).
    m_cancel_parts = run.on_cancel([this] {
        m_cancelled = true;
        for (const auto& request : m_requests)
            request.call("cancel", [](sdk::IAsyncInferRequest& r) { r.cancel(); });
    });
}

void SyncInferRequest::infer(sdk::RunContext& run) {
    begin_run(run);
    prepare_inputs();
    for (size_t i = 0; i < m_requests.size(); ++i) {
        if (m_cancelled) throw_error<Cancelled>("HETERO: infer request was cancelled");
        bind(i);
        try {
            m_requests[i].call("infer", [](sdk::IAsyncInferRequest& request) { request.infer(); });
        } catch (...) {
            rethrow_with_context(
                std::current_exception(),
                "HETERO: submodel #" + std::to_string(i) + " on " + m_compiled->parts()[i].device);
        }
        collect(i);
    }
}

std::vector<ProfilingInfo> SyncInferRequest::get_profiling_info() const {
    const char* stages[] = {kStageInputPreprocessing, kStageInputTransfer, kStageExecution,
                            kStageOutputTransfer, kStageOutputPostprocessing};
    std::vector<ProfilingInfo> out;
    for (const char* stage : stages) {
        ProfilingInfo row;
        row.node_name = stage;
        row.node_type = "Stage";
        row.exec_type = kDeviceName;
        out.push_back(row);
    }
    std::vector<ProfilingInfo> rows;
    for (size_t i = 0; i < m_requests.size(); ++i) {
        const std::string& device = m_compiled->parts()[i].device;
        const std::vector<ProfilingInfo> part_rows = m_requests[i].call(
            "get_profiling_info",
            [](sdk::IAsyncInferRequest& request) { return request.get_profiling_info(); });
        for (ProfilingInfo row : part_rows) {
            if (row.node_type == "Stage") {
                for (auto& total : out) {
                    if (total.node_name != row.node_name) continue;
                    total.real_time += row.real_time;
                    total.cpu_time += row.cpu_time;
                    if (row.status == ProfilingInfo::Status::EXECUTED) total.status = row.status;
                }
                row.node_name = device + " #" + std::to_string(i) + " " + row.node_name;
            }
            row.exec_type = device + ":" + row.exec_type;
            rows.push_back(std::move(row));
        }
    }
    out.insert(out.end(), rows.begin(), rows.end());
    return out;
}

std::vector<std::shared_ptr<sdk::IVariableState>> SyncInferRequest::query_state() const {
    std::vector<std::shared_ptr<sdk::IVariableState>> out;
    for (const auto& request : m_requests) {
        auto states =
            request.call("query_state", [](sdk::IAsyncInferRequest& r) { return r.query_state(); });
        for (auto& state : states)
            out.push_back(std::make_shared<PartVariableState>(std::move(state), request.module()));
    }
    return out;
}

}  // namespace hetero
