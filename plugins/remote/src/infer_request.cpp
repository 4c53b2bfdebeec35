// Implements the REMOTE requests: the message, the call, retries, outputs, and the pipeline.
#include "infer_request.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

#include "compiled_model.hpp"
#include "protocol.hpp"
#include "vireo/kserve/parameters.hpp"

namespace vireo::remote {
namespace {

using sdk::PipelineStage;
using Status = ProfilingInfo::Status;
using Clock = std::chrono::steady_clock;

// The response's int64 parameter `key` as microseconds, or -1 when absent or not an int64 (a
// server other than vireo_server, or an older one).
int64_t micros_parameter(const inference::ModelInferResponse& response, const char* key) {
    auto it = response.parameters().find(key);
    if (it == response.parameters().end() ||
        it->second.parameter_choice_case() != inference::InferParameter::kInt64Param ||
        it->second.int64_param() < 0)
        return -1;
    return it->second.int64_param();
}

// Splits a successful call's round trip into the server's queue and run times (what vireo_server
// reports in its response) and the rest (network, (de)serialisation and gRPC on both sides), as
// three per-op rows after the stage rows.
void record_server_rows(sdk::RunContext& run, const inference::ModelInferResponse& response,
                        std::chrono::microseconds round_trip) {
    const int64_t queued = micros_parameter(response, kserve::kQueueTimeParameter);
    const int64_t ran = micros_parameter(response, kserve::kRunTimeParameter);
    if (queued < 0 || ran < 0) return;
    auto row = [&run](const char* name, const char* type, const char* exec, int64_t us) {
        ProfilingInfo info;
        info.status = Status::EXECUTED;
        info.node_name = name;
        info.node_type = type;
        info.exec_type = exec;
        info.real_time = std::chrono::microseconds(us);
        run.op(std::move(info));
    };
    row("server queue", "Server", "server", queued);
    row("server run", "Server", "server", ran);
    row("network", "Network", "grpc", std::max<int64_t>(0, round_trip.count() - queued - ran));
}

constexpr std::chrono::milliseconds kFirstBackoff{50};
constexpr std::chrono::milliseconds kMaxBackoff{2000};

}  // namespace

void SyncInferRequest::Call::wait() {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [this] { return done; });
}

SyncInferRequest::SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled_model)
    : ISyncInferRequest(compiled_model), m_model(compiled_model) {
    const ServedModel& served = m_model->served();
    m_message.set_model_name(served.name);
    m_message.set_model_version(served.version);
    for (const auto& port : served.inputs) {
        auto* input = m_message.add_inputs();
        input->set_name(port.name);
        input->set_datatype(port.datatype);
        m_message.add_raw_input_contents();
    }
}

SyncInferRequest::~SyncInferRequest() {
    m_cancel.reset();
    {
        std::lock_guard<std::mutex> lock(m_call_mutex);
        if (m_call) m_call->context.TryCancel();
    }
    drain();
}

void SyncInferRequest::drain() {
    std::shared_ptr<Call> call;
    {
        std::lock_guard<std::mutex> lock(m_call_mutex);
        call = m_call;
    }
    if (call) call->wait();
}

void SyncInferRequest::infer(sdk::RunContext& run) {
    infer_preprocess(run);
    start_pipeline(run);
    wait_pipeline(run);
    infer_postprocess(run);
}

void SyncInferRequest::infer_preprocess(sdk::RunContext& run) {
    // A call of an earlier run cancelled between its stages may still be ending: it reads the
    // message, so wait for it before writing.
    m_cancel.reset();
    drain();
    auto timer = run.time_stage(PipelineStage::kInputPreprocessing, "serialize");
    convert_batched_tensors();
    for (size_t i = 0; i < get_inputs().size(); ++i) {
        const Tensor& tensor = input_tensor(i);
        auto* input = m_message.mutable_inputs(static_cast<int>(i));
        input->clear_shape();
        for (size_t d : tensor.get_shape()) input->add_shape(static_cast<int64_t>(d));
        std::string* raw = m_message.mutable_raw_input_contents(static_cast<int>(i));
        if (tensor.is_continuous()) {
            raw->assign(static_cast<const char*>(tensor.data()), tensor.get_byte_size());
        } else {
            Tensor dense(tensor.get_element_type(), tensor.get_shape());
            tensor.copy_to(dense);
            raw->assign(static_cast<const char*>(dense.data()), dense.get_byte_size());
        }
    }
}

void SyncInferRequest::send() {
    m_reloads_seen = m_model->reloads();
    auto call = std::make_shared<Call>();
    kserve::Client::set_timeout(call->context, m_model->config().timeout);
    {
        std::lock_guard<std::mutex> lock(m_call_mutex);
        m_call = call;
    }
    m_sent = Clock::now();
    m_model->client().infer_async(&call->context, &m_message, &call->response,
                                  [call](grpc::Status status) {
                                      std::lock_guard<std::mutex> lock(call->mutex);
                                      call->status = std::move(status);
                                      call->done = true;
                                      call->cv.notify_all();
                                  });
}

void SyncInferRequest::start_pipeline(sdk::RunContext& run) {
    run.throw_if_cancelled(m_model->where());
    send();
    // Registered after the call started: a cancel that came first runs it at once.
    m_cancel = run.on_cancel([this] {
        std::lock_guard<std::mutex> lock(m_call_mutex);
        if (m_call) m_call->context.TryCancel();
    });
}

void SyncInferRequest::wait_pipeline(sdk::RunContext& run) {
    const Config& config = m_model->config();
    std::chrono::milliseconds backoff = kFirstBackoff;
    bool reloaded = false;
    for (uint32_t attempt = 0;; ++attempt) {
        std::shared_ptr<Call> call;
        {
            std::lock_guard<std::mutex> lock(m_call_mutex);
            call = m_call;
        }
        call->wait();
        const auto elapsed =
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - m_sent);
        run.stage(PipelineStage::kExecution, elapsed, Status::EXECUTED, "network+server");
        if (call->status.ok()) {
            if (m_model->profiling_enabled()) record_server_rows(run, call->response, elapsed);
            break;
        }
        run.throw_if_cancelled(m_model->where());
        // A model this plugin loaded that the server no longer knows (it restarted): nothing ran,
        // so load it again and send the inference once more.
        if (call->status.error_code() == grpc::StatusCode::NOT_FOUND && !reloaded &&
            m_model->reload(m_reloads_seen)) {
            reloaded = true;
            send();
            continue;
        }
        if (call->status.error_code() != grpc::StatusCode::UNAVAILABLE ||
            attempt >= config.retries) {
            const std::string what =
                attempt == 0 ? std::string("ModelInfer")
                             : "ModelInfer (after " + std::to_string(attempt + 1) + " attempts)";
            throw_status(call->status, m_model->where(), what, config.timeout, true);
        }
        // Inference is idempotent: send it again after a pause, unless cancelled meanwhile.
        const auto until = Clock::now() + backoff;
        while (Clock::now() < until) {
            run.throw_if_cancelled(m_model->where());
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        backoff = std::min(backoff * 2, kMaxBackoff);
        send();
    }
    m_cancel.reset();
    run.stage(PipelineStage::kInputTransfer, {}, Status::OPTIMIZED_OUT, "network+server");
    run.stage(PipelineStage::kOutputTransfer, {}, Status::OPTIMIZED_OUT, "network+server");
}

void SyncInferRequest::infer_postprocess(sdk::RunContext& run) {
    auto timer = run.time_stage(PipelineStage::kOutputPostprocessing, "deserialize");
    std::shared_ptr<Call> call;
    {
        std::lock_guard<std::mutex> lock(m_call_mutex);
        call = m_call;
    }
    const auto& response = call->response;
    const ServedModel& served = m_model->served();
    for (size_t j = 0; j < get_outputs().size(); ++j) {
        const auto& port = served.outputs[j];
        int found = -1;
        for (int k = 0; k < response.outputs_size(); ++k)
            if (response.outputs(k).name() == port.name) found = k;
        if (found < 0)
            throw_error<Exception>(m_model->where(), ": the server's answer has no output '",
                                   port.name, "'");
        const auto& out = response.outputs(found);
        if (found >= response.raw_output_contents_size())
            throw_error<Exception>(m_model->where(),
                                   ": the server's answer has no raw contents "
                                   "for output '",
                                   port.name, "'");
        if (out.datatype() != port.datatype)
            throw_error<Exception>(m_model->where(), ": output '", port.name, "' came back as ",
                                   out.datatype(), ", expected ", port.datatype);
        Shape shape;
        for (int64_t d : out.shape()) {
            if (d < 0)
                throw_error<Exception>(m_model->where(), ": output '", port.name,
                                       "' came back with a negative dimension");
            shape.push_back(static_cast<size_t>(d));
        }
        const std::string& bytes = response.raw_output_contents(found);
        Tensor& tensor = output_tensor(j);
        if (tensor.get_shape() != shape) {
            if (!get_outputs()[j].get_partial_shape().relaxes(shape))
                throw_error<Exception>(m_model->where(), ": output '", port.name,
                                       "' came back with shape ", PartialShape(shape),
                                       ", outside the model's ",
                                       get_outputs()[j].get_partial_shape());
            tensor.set_shape(shape);
        }
        if (bytes.size() != tensor.get_byte_size())
            throw_error<Exception>(m_model->where(), ": output '", port.name, "' came back with ",
                                   bytes.size(), " bytes, expected ", tensor.get_byte_size(),
                                   " for shape ", PartialShape(shape));
        if (tensor.is_continuous()) {
            if (!bytes.empty()) std::memcpy(tensor.data(), bytes.data(), bytes.size());
        } else {
            Tensor dense(tensor.get_element_type(), shape);
            if (!bytes.empty()) std::memcpy(dense.data(), bytes.data(), bytes.size());
            dense.copy_to(tensor);
        }
    }
}

AsyncInferRequest::AsyncInferRequest(const std::shared_ptr<SyncInferRequest>& request,
                                     const std::shared_ptr<sdk::ITaskExecutor>& host_executor,
                                     const std::shared_ptr<sdk::ITaskExecutor>& wait_executor,
                                     const std::shared_ptr<sdk::ITaskExecutor>& callback_executor)
    : IAsyncInferRequest(request, host_executor, callback_executor), m_request(request) {
    // `this` outlives every stage: the destructor waits for the pipeline.
    auto submit = [this](sdk::RunContext& run) {
        m_request->infer_preprocess(run);
        m_request->start_pipeline(run);
    };
    auto wait = [this](sdk::RunContext& run) { m_request->wait_pipeline(run); };
    auto finish = [this](sdk::RunContext& run) { m_request->infer_postprocess(run); };
    m_pipeline = {{host_executor, submit}, {wait_executor, wait}, {host_executor, finish}};
    auto inline_executor = std::make_shared<sdk::ImmediateExecutor>();
    m_sync_pipeline = {
        {inline_executor, submit}, {inline_executor, wait}, {inline_executor, finish}};
}

AsyncInferRequest::~AsyncInferRequest() {
    cancel_and_stop();
}

}  // namespace vireo::remote
