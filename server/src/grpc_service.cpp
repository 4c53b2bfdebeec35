// The KServe v2 gRPC service: health, metadata, inference through a reactor (one per ModelInfer
// call, one per ModelStreamInfer stream), repository RPCs.
#include "grpc_service.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "datatype.hpp"
#include "grpc_conversion.hpp"
#include "model_info.hpp"
#include "vireo/kserve/parameters.hpp"
#include "vireo/version.hpp"

namespace vireo::server {

namespace {

uint64_t micros_since(Clock::time_point start) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

// One gRPC inference from request to reply: the job on its way, the model version running it
// (what a cancel needs) and the form of the reply.
struct GrpcInfer {
    std::shared_ptr<InferJob> job;
    std::shared_ptr<ModelVersion> version;
    GrpcReplyForm form;
    int64_t version_number = 0;
};

// Finds `request`'s model version, builds its job (bounded by the call's gRPC deadline, if any),
// lets `bind` set the job's on_done (and keep what a cancel needs), and submits it. An
// unversioned request that meets a version retired between find() and submit() goes once more to
// the version that replaced it. A failure is returned, and on_done is then never called; on
// success on_done is called exactly once, possibly before this returns.
Status submit_grpc_infer(ServingContext& serving, const inference::ModelInferRequest& request,
                         std::chrono::system_clock::time_point deadline,
                         const std::function<void(const std::shared_ptr<GrpcInfer>&)>& bind) {
    for (int attempt = 0;; ++attempt) {
        if (serving.draining.load()) return {StatusCode::kUnavailable, "server is shutting down"};
        auto infer = std::make_shared<GrpcInfer>();
        Status s =
            serving.models.find(request.model_name(), request.model_version(), infer->version);
        if (!s.ok()) return s;
        infer->job = std::make_shared<InferJob>();
        if (deadline != std::chrono::system_clock::time_point::max()) {
            const auto left = deadline - std::chrono::system_clock::now();
            infer->job->deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(left);
        }
        s = job_from_grpc(request, *infer->version, serving.options.max_request_bytes, *infer->job,
                          infer->form, &serving.shared_memory);
        if (!s.ok()) return s;
        infer->version_number = infer->version->version();
        bind(infer);
        s = infer->version->submit(infer->job);
        if (s.ok()) return s;
        // Not submitted, so on_done will never run: release it and what it holds (a stream's
        // call holds this inference, which holds the job).
        infer->job->on_done = nullptr;
        if (s.code != StatusCode::kUnavailable || attempt > 0 || !request.model_version().empty() ||
            serving.draining.load())
            return s;
    }
}

// Fills `response` from a finished inference: outputs requested in shared memory are written
// there first. Returns the inference's status, or the shared memory write's failure.
Status reply_grpc_infer(Status status, std::vector<OutputData>& outputs, const GrpcInfer& infer,
                        const inference::ModelInferRequest& request,
                        inference::ModelInferResponse& response) {
    if (status.ok()) status = write_shared_memory_outputs(infer.form.shm_outputs, outputs);
    if (status.ok()) {
        response.set_model_name(request.model_name());
        response.set_model_version(std::to_string(infer.version_number));
        response.set_id(request.id());
        fill_grpc_response(outputs, infer.form, response);
        // The server's share of the round trip, for a client's profile (the REMOTE device's):
        // Vireo's own keys, which other clients ignore.
        auto& parameters = *response.mutable_parameters();
        parameters[kserve::kQueueTimeParameter].set_int64_param(
            static_cast<int64_t>(micros(infer.job->queued_for)));
        parameters[kserve::kRunTimeParameter].set_int64_param(
            static_cast<int64_t>(micros(infer.job->ran_for)));
    }
    return status;
}

void cancel_grpc_infer(const GrpcInfer& infer) {
    const bool expired = Clock::now() >= infer.job->deadline;
    infer.version->cancel(infer.job,
                          expired ? StatusCode::kDeadlineExceeded : StatusCode::kCancelled,
                          expired ? "gRPC deadline exceeded" : "request cancelled by the client");
}

// One ModelInfer call, alive from the RPC's start until gRPC calls OnDone.
class InferReactor final : public grpc::ServerUnaryReactor {
  public:
    InferReactor(ServingContext& serving, grpc::CallbackServerContext* context,
                 const inference::ModelInferRequest* request,
                 inference::ModelInferResponse* response)
        : m_serving(serving), m_context(context), m_request(request), m_response(response) {}

    void start() {
        const Status s = submit_grpc_infer(
            m_serving, *m_request, m_context->deadline(),
            [this](const std::shared_ptr<GrpcInfer>& infer) {
                infer->job->on_done = [this, infer](Status status,
                                                    std::vector<OutputData> outputs) {
                    complete(reply_grpc_infer(std::move(status), outputs, *infer, *m_request,
                                              *m_response));
                };
                std::lock_guard<std::mutex> lock(m_mutex);
                m_infer = infer;
            });
        if (!s.ok()) complete(s);
    }

    void OnCancel() override {
        std::shared_ptr<GrpcInfer> infer;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            infer = m_infer;
        }
        if (infer) cancel_grpc_infer(*infer);
    }

    void OnDone() override { delete this; }

  private:
    // The last use of `this` before gRPC may call OnDone.
    void complete(const Status& status) {
        int64_t version_number = 0;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (m_infer) version_number = m_infer->version_number;
        }
        m_serving.metrics.record_request(m_request->model_name(), version_number, "gRPC",
                                         "ModelInfer", status.ok(), micros_since(m_start));
        // kCancelled comes only from OnCancel's cancel (or the device run it cancelled).
        if (status.code == StatusCode::kCancelled) {
            m_serving.metrics.record_cancelled(m_request->model_name(), version_number, "gRPC",
                                               "ModelInfer");
        }
        Finish(to_grpc(status));
    }

    ServingContext& m_serving;
    grpc::CallbackServerContext* m_context;
    const inference::ModelInferRequest* m_request;
    inference::ModelInferResponse* m_response;
    const Clock::time_point m_start = Clock::now();
    std::mutex m_mutex;
    std::shared_ptr<GrpcInfer> m_infer;  // the submitted inference, for OnCancel
};

// One ModelStreamInfer call (Triton's streaming extension): every request read from the stream is
// an inference of its own, submitted as soon as it is read, so several run at once; each gets one
// ModelStreamInferResponse when it finishes (in the order they finish; `id` tells them apart),
// with error_message set instead of an RPC error when it fails, and the stream goes on. Responses
// are written one at a time from a queue. At most --stream_max_pending requests are read and not
// yet answered (running, queued or with their response unsent): at the limit no read is started
// until a response has been sent, so gRPC's flow control holds a client that sends without
// reading. The call ends (OK) once the client has closed its side and every response is written; a
// cancelled call (the client went away, or the deadline passed) cancels its inferences and ends
// CANCELLED once they have finished. Alive until gRPC calls OnDone, which comes only after Finish:
// Finish is called by whichever event leaves nothing to read, nothing running and nothing to write,
// and nothing touches the reactor after that.
class StreamReactor final : public grpc::ServerBidiReactor<inference::ModelInferRequest,
                                                           inference::ModelStreamInferResponse> {
  public:
    StreamReactor(ServingContext& serving, grpc::CallbackServerContext* context)
        : m_serving(serving),
          m_context(context),
          m_max_pending(std::max(1, serving.options.stream_max_pending)) {
        m_reading = true;
        StartRead(&m_incoming);
    }

    void OnReadDone(bool ok) override {
        if (!ok) {  // the client closed its side, or the call is over
            bool finish = false;
            grpc::Status final;
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_reading = false;
                m_reads_done = true;
                finish = finish_now(final);
            }
            if (finish) Finish(final);
            return;
        }
        // m_reading stays true until the end of this reaction, so no other event starts a read
        // meanwhile, and the call cannot end (m_reads_done is false).
        auto call = std::make_shared<Call>();
        call->request.Swap(&m_incoming);
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            ++m_running;
            ++m_pending;
        }
        const Status s = submit_grpc_infer(
            m_serving, call->request, m_context->deadline(),
            [this, call](const std::shared_ptr<GrpcInfer>& infer) {
                infer->job->on_done = [this, call](Status status, std::vector<OutputData> outputs) {
                    respond(*call, std::move(status), &outputs);
                };
                std::lock_guard<std::mutex> lock(m_mutex);
                call->infer = infer;
                m_calls.push_back(call);
            });
        if (!s.ok()) respond(*call, s, nullptr);
        bool read = false;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_reading = false;
            read = start_read_now();  // else paused until a response is sent
        }
        if (read) StartRead(&m_incoming);
    }

    void OnWriteDone(bool ok) override {
        inference::ModelStreamInferResponse* next = nullptr;
        bool read = false;
        bool finish = false;
        grpc::Status final;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_writes.pop_front();
            --m_pending;
            if (!ok) {  // the stream is broken: nothing more can be sent
                m_broken = true;
                m_pending -= static_cast<int>(m_writes.size());
                m_writes.clear();
            }
            if (!m_writes.empty()) next = m_writes.front().get();
            m_writing = next != nullptr;
            read = start_read_now();
            finish = finish_now(final);
        }
        if (next) StartWrite(next);
        if (read) StartRead(&m_incoming);
        if (finish) Finish(final);
    }

    void OnCancel() override {
        std::vector<std::shared_ptr<Call>> calls;
        bool finish = false;
        grpc::Status final;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_cancelled = true;
            for (const auto& weak : m_calls)
                if (auto call = weak.lock()) calls.push_back(call);
            // Reading paused at the limit: no read is pending to report the end, so reading ends
            // here (a pending read ends by itself, with ok false).
            if (!m_reading && !m_reads_done) {
                m_reads_done = true;
                finish = finish_now(final);
            }
        }
        for (const auto& call : calls) cancel_grpc_infer(*call->infer);
        if (finish) Finish(final);
    }

    void OnDone() override { delete this; }

  private:
    struct Call {
        inference::ModelInferRequest request;
        std::shared_ptr<GrpcInfer> infer;  // set once submitted
        const Clock::time_point start = Clock::now();
    };

    // Queues the response of `call` (outputs null when it failed before running).
    void respond(const Call& call, Status status, std::vector<OutputData>* outputs) {
        auto reply = std::make_unique<inference::ModelStreamInferResponse>();
        auto& response = *reply->mutable_infer_response();
        const int64_t version_number = call.infer ? call.infer->version_number : 0;
        if (outputs && call.infer)
            status =
                reply_grpc_infer(std::move(status), *outputs, *call.infer, call.request, response);
        if (!status.ok()) {
            response.Clear();
            response.set_model_name(call.request.model_name());
            response.set_model_version(call.request.model_version());
            response.set_id(call.request.id());
            reply->set_error_message(status.message);
        }
        m_serving.metrics.record_request(call.request.model_name(), version_number, "gRPC",
                                         "ModelStreamInfer", status.ok(), micros_since(call.start));
        if (status.code == StatusCode::kCancelled)
            m_serving.metrics.record_cancelled(call.request.model_name(), version_number, "gRPC",
                                               "ModelStreamInfer");
        inference::ModelStreamInferResponse* first = nullptr;
        bool read = false;
        bool finish = false;
        grpc::Status final;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            --m_running;
            m_calls.erase(std::remove_if(m_calls.begin(), m_calls.end(),
                                         [&](const std::weak_ptr<Call>& w) {
                                             auto c = w.lock();
                                             return !c || c.get() == &call;
                                         }),
                          m_calls.end());
            if (m_broken) {
                --m_pending;  // nothing will be sent
            } else {
                m_writes.push_back(std::move(reply));
                if (!m_writing) {
                    m_writing = true;
                    first = m_writes.front().get();
                }
            }
            read = start_read_now();
            finish = finish_now(final);
        }
        if (first) StartWrite(first);
        if (read) StartRead(&m_incoming);
        if (finish) Finish(final);
    }

    // Under m_mutex: whether to start the next read now (none in progress, the client has not
    // closed its side, and fewer than m_max_pending requests await their responses); marks it
    // started.
    bool start_read_now() {
        if (m_reading || m_reads_done || m_pending >= m_max_pending) return false;
        m_reading = true;
        return true;
    }

    // Under m_mutex: whether the call can end now (nothing to read, run or write), marking it
    // ended so that only one event calls Finish; `status` receives the call's final status.
    bool finish_now(grpc::Status& status) {
        if (m_finished || !m_reads_done || m_running > 0 || m_writing) return false;
        m_finished = true;
        status = m_cancelled ? grpc::Status(grpc::StatusCode::CANCELLED, "stream cancelled")
                             : grpc::Status::OK;
        return true;
    }

    ServingContext& m_serving;
    grpc::CallbackServerContext* m_context;
    const int m_max_pending;
    inference::ModelInferRequest m_incoming;  // the read in progress
    std::mutex m_mutex;
    std::vector<std::weak_ptr<Call>> m_calls;  // submitted and not yet answered, for OnCancel
    std::deque<std::unique_ptr<inference::ModelStreamInferResponse>> m_writes;  // front: in flight
    int m_running = 0;       // requests read and not yet answered
    int m_pending = 0;       // requests read whose responses are not yet sent
    bool m_reading = false;  // a read is in progress (or its reaction is running)
    bool m_reads_done = false;
    bool m_writing = false;
    bool m_broken = false;
    bool m_cancelled = false;
    bool m_finished = false;
};

}  // namespace

grpc::Status to_grpc(const Status& status) {
    switch (status.code) {
        case StatusCode::kOk:
            return grpc::Status::OK;
        case StatusCode::kInvalidArgument:
            return {grpc::StatusCode::INVALID_ARGUMENT, status.message};
        case StatusCode::kNotFound:
            return {grpc::StatusCode::NOT_FOUND, status.message};
        case StatusCode::kAlreadyExists:
            return {grpc::StatusCode::ALREADY_EXISTS, status.message};
        case StatusCode::kUnavailable:
            return {grpc::StatusCode::UNAVAILABLE, status.message};
        case StatusCode::kResourceExhausted:
            return {grpc::StatusCode::RESOURCE_EXHAUSTED, status.message};
        case StatusCode::kDeadlineExceeded:
            return {grpc::StatusCode::DEADLINE_EXCEEDED, status.message};
        case StatusCode::kCancelled:
            return {grpc::StatusCode::CANCELLED, status.message};
        case StatusCode::kUnimplemented:
            return {grpc::StatusCode::UNIMPLEMENTED, status.message};
        case StatusCode::kInternal:
            return {grpc::StatusCode::INTERNAL, status.message};
    }
    return {grpc::StatusCode::UNKNOWN, status.message};
}

GrpcService::~GrpcService() {
    std::unique_lock<std::mutex> lock(m_loads_mutex);
    m_loads_done.wait(lock, [&] { return m_loads == 0; });
}

grpc::ServerUnaryReactor* GrpcService::finish(grpc::CallbackServerContext* context,
                                              const Status& status, const std::string& model,
                                              const char* method, Clock::time_point start) {
    if (!model.empty()) {
        m_context.metrics.record_request(model, 0, "gRPC", method, status.ok(),
                                         micros_since(start));
    }
    auto* reactor = context->DefaultReactor();
    reactor->Finish(to_grpc(status));
    return reactor;
}

grpc::ServerUnaryReactor* GrpcService::ServerLive(grpc::CallbackServerContext* context,
                                                  const inference::ServerLiveRequest*,
                                                  inference::ServerLiveResponse* response) {
    response->set_live(true);
    return finish(context, {}, "", "ServerLive", Clock::now());
}

grpc::ServerUnaryReactor* GrpcService::ServerReady(grpc::CallbackServerContext* context,
                                                   const inference::ServerReadyRequest*,
                                                   inference::ServerReadyResponse* response) {
    response->set_ready(m_context.ready());
    return finish(context, {}, "", "ServerReady", Clock::now());
}

grpc::ServerUnaryReactor* GrpcService::ModelReady(grpc::CallbackServerContext* context,
                                                  const inference::ModelReadyRequest* request,
                                                  inference::ModelReadyResponse* response) {
    std::shared_ptr<ModelVersion> version;
    Status s = m_context.models.find(request->name(), request->version(), version);
    if (s.code == StatusCode::kNotFound || s.code == StatusCode::kInvalidArgument) {
        return finish(context, s, "", "ModelReady", Clock::now());
    }
    response->set_ready(s.ok() && !m_context.draining.load());
    return finish(context, {}, "", "ModelReady", Clock::now());
}

grpc::ServerUnaryReactor* GrpcService::ServerMetadata(grpc::CallbackServerContext* context,
                                                      const inference::ServerMetadataRequest*,
                                                      inference::ServerMetadataResponse* response) {
    response->set_name(kServerName);
    response->set_version(get_version().build_number);
    for (const char* e : kExtensions)
        if (extension_listed(m_context, e)) response->add_extensions(e);
    return finish(context, {}, "", "ServerMetadata", Clock::now());
}

grpc::ServerUnaryReactor* GrpcService::ModelMetadata(grpc::CallbackServerContext* context,
                                                     const inference::ModelMetadataRequest* request,
                                                     inference::ModelMetadataResponse* response) {
    const auto start = Clock::now();
    std::shared_ptr<ModelVersion> version;
    Status s = m_context.models.find(request->name(), request->version(), version);
    if (!s.ok()) return finish(context, s, request->name(), "ModelMetadata", start);
    response->set_name(request->name());
    for (int64_t v : m_context.models.ready_versions(request->name())) {
        response->add_versions(std::to_string(v));
    }
    response->set_platform("vireo");
    for (int pass = 0; pass < 2; ++pass) {
        for (const auto& info : pass == 0 ? version->inputs() : version->outputs()) {
            auto* t = pass == 0 ? response->add_inputs() : response->add_outputs();
            t->set_name(info.name);
            t->set_datatype(datatype_of(info.type));
            for (int64_t d : info.shape) t->add_shape(d);
        }
    }
    return finish(context, {}, request->name(), "ModelMetadata", start);
}

grpc::ServerUnaryReactor* GrpcService::ModelInfer(grpc::CallbackServerContext* context,
                                                  const inference::ModelInferRequest* request,
                                                  inference::ModelInferResponse* response) {
    auto* reactor = new InferReactor(m_context, context, request, response);
    reactor->start();
    return reactor;
}

grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
GrpcService::ModelStreamInfer(grpc::CallbackServerContext* context) {
    return new StreamReactor(m_context, context);
}

grpc::ServerUnaryReactor* GrpcService::ModelConfig(grpc::CallbackServerContext* context,
                                                   const inference::ModelConfigRequest* request,
                                                   inference::ModelConfigResponse* response) {
    const auto start = Clock::now();
    const Status s = describe_model_config(m_context.models, request->name(), request->version(),
                                           *response->mutable_config());
    return finish(context, s, request->name(), "ModelConfig", start);
}

grpc::ServerUnaryReactor* GrpcService::ModelStatistics(
    grpc::CallbackServerContext* context, const inference::ModelStatisticsRequest* request,
    inference::ModelStatisticsResponse* response) {
    const Status s =
        collect_statistics(m_context.models, request->name(), request->version(), *response);
    return finish(context, s, "", "ModelStatistics", Clock::now());
}

grpc::ServerUnaryReactor* GrpcService::RepositoryIndex(
    grpc::CallbackServerContext* context, const inference::RepositoryIndexRequest* request,
    inference::RepositoryIndexResponse* response) {
    for (const auto& entry : m_context.models.index()) {
        if (request->ready() && entry.state != "READY") continue;
        auto* m = response->add_models();
        m->set_name(entry.model);
        if (entry.version > 0) m->set_version(std::to_string(entry.version));
        m->set_state(entry.state);
        m->set_reason(entry.reason);
    }
    return finish(context, {}, "", "RepositoryIndex", Clock::now());
}

grpc::ServerUnaryReactor* GrpcService::RepositoryModelLoad(
    grpc::CallbackServerContext* context, const inference::RepositoryModelLoadRequest* request,
    inference::RepositoryModelLoadResponse*) {
    auto* reactor = context->DefaultReactor();
    std::map<std::string, std::string> files;
    std::string config_json;
    for (const auto& [key, value] : request->parameters()) {
        if (key.rfind("file:", 0) == 0) {
            if (value.parameter_choice_case() != inference::ModelRepositoryParameter::kBytesParam) {
                reactor->Finish(to_grpc(
                    {StatusCode::kInvalidArgument, "parameter '" + key + "' must be bytes_param"}));
                return reactor;
            }
            files[key.substr(5)] = value.bytes_param();
        } else if (key == "config") {
            config_json = value.string_param();
        } else {
            reactor->Finish(
                to_grpc({StatusCode::kInvalidArgument,
                         "unknown parameter '" + key + "' (expected 'config' or 'file:<path>')"}));
            return reactor;
        }
    }
    // Compiling takes long: off the gRPC thread, one thread per load call; the destructor waits
    // for them, so none outlives the models it loads into.
    {
        std::lock_guard<std::mutex> lock(m_loads_mutex);
        ++m_loads;
    }
    std::thread([this, reactor, name = request->model_name(), files = std::move(files),
                 config_json = std::move(config_json)] {
        Status s = (files.empty() && config_json.empty())
                       ? m_context.models.load(name)
                       : m_context.models.load_inline(name, files, config_json);
        reactor->Finish(to_grpc(s));
        std::lock_guard<std::mutex> lock(m_loads_mutex);
        --m_loads;
        m_loads_done.notify_all();
    }).detach();
    return reactor;
}

grpc::ServerUnaryReactor* GrpcService::SystemSharedMemoryStatus(
    grpc::CallbackServerContext* context, const inference::SystemSharedMemoryStatusRequest* request,
    inference::SystemSharedMemoryStatusResponse* response) {
    std::vector<std::shared_ptr<const SharedMemoryRegion>> regions;
    const Status s = m_context.shared_memory.status(request->name(), regions);
    for (const auto& region : regions) {
        auto& entry = (*response->mutable_regions())[region->name()];
        entry.set_name(region->name());
        entry.set_key(region->key());
        entry.set_offset(region->offset());
        entry.set_byte_size(region->byte_size());
    }
    return finish(context, s, "", "SystemSharedMemoryStatus", Clock::now());
}

grpc::ServerUnaryReactor* GrpcService::SystemSharedMemoryRegister(
    grpc::CallbackServerContext* context,
    const inference::SystemSharedMemoryRegisterRequest* request,
    inference::SystemSharedMemoryRegisterResponse*) {
    const Status s = m_context.shared_memory.register_region(
        request->name(), request->key(), request->offset(), request->byte_size());
    return finish(context, s, "", "SystemSharedMemoryRegister", Clock::now());
}

grpc::ServerUnaryReactor* GrpcService::SystemSharedMemoryUnregister(
    grpc::CallbackServerContext* context,
    const inference::SystemSharedMemoryUnregisterRequest* request,
    inference::SystemSharedMemoryUnregisterResponse*) {
    m_context.shared_memory.unregister(request->name());
    return finish(context, {}, "", "SystemSharedMemoryUnregister", Clock::now());
}

grpc::ServerUnaryReactor* GrpcService::RepositoryModelUnload(
    grpc::CallbackServerContext* context, const inference::RepositoryModelUnloadRequest* request,
    inference::RepositoryModelUnloadResponse*) {
    return finish(context, m_context.models.unload(request->model_name()), "",
                  "RepositoryModelUnload", Clock::now());
}

}  // namespace vireo::server
