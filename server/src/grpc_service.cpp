// The KServe v2 gRPC service: health, metadata, inference through a reactor, repository RPCs.
#include "grpc_service.hpp"

#include <mutex>
#include <thread>

#include "datatype.hpp"
#include "grpc_conversion.hpp"
#include "model_info.hpp"
#include "vireo/version.hpp"

namespace vireo::server {

namespace {

uint64_t micros_since(Clock::time_point start) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

// One ModelInfer call, alive from the RPC's start until gRPC calls OnDone.
class InferReactor final : public grpc::ServerUnaryReactor {
  public:
    InferReactor(ServingContext& serving, grpc::CallbackServerContext* context,
                 const inference::ModelInferRequest* request,
                 inference::ModelInferResponse* response)
        : m_serving(serving), m_context(context), m_request(request), m_response(response) {}

    void start() {
        for (int attempt = 0;; ++attempt) {
            Status s = prepare();
            if (!s.ok()) {
                complete(s);
                return;
            }
            std::shared_ptr<InferJob> job = m_job;
            std::shared_ptr<ModelVersion> version = m_version;
            s = version->submit(job);
            if (s.ok()) return;
            // A reload retired the version between find() and submit(): an unversioned request
            // goes once more to the version that replaced it.
            if (s.code != StatusCode::kUnavailable || attempt > 0 ||
                !m_request->model_version().empty() || m_serving.draining.load()) {
                complete(s);
                return;
            }
        }
    }

    void OnCancel() override {
        std::shared_ptr<InferJob> job;
        std::shared_ptr<ModelVersion> version;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            job = m_job;
            version = m_version;
        }
        if (job && version) {
            const bool expired = Clock::now() >= job->deadline;
            version->cancel(job, expired ? StatusCode::kDeadlineExceeded : StatusCode::kCancelled,
                            expired ? "gRPC deadline exceeded" : "request cancelled by the client");
        }
    }

    void OnDone() override { delete this; }

  private:
    Status prepare() {
        if (m_serving.draining.load()) {
            return {StatusCode::kUnavailable, "server is shutting down"};
        }
        std::shared_ptr<ModelVersion> version;
        Status s =
            m_serving.models.find(m_request->model_name(), m_request->model_version(), version);
        if (!s.ok()) return s;
        auto job = std::make_shared<InferJob>();
        const auto deadline = m_context->deadline();
        if (deadline != std::chrono::system_clock::time_point::max()) {
            const auto left = deadline - std::chrono::system_clock::now();
            job->deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(left);
        }
        m_form = GrpcReplyForm{};
        s = job_from_grpc(*m_request, *version, m_serving.options.max_request_bytes, *job, m_form,
                          &m_serving.shared_memory);
        if (!s.ok()) return s;
        m_version_number = version->version();
        job->on_done = [this](Status status, std::vector<OutputData> outputs) {
            if (status.ok()) status = write_shared_memory_outputs(m_form.shm_outputs, outputs);
            if (status.ok()) {
                m_response->set_model_name(m_request->model_name());
                m_response->set_model_version(std::to_string(m_version_number));
                m_response->set_id(m_request->id());
                fill_grpc_response(outputs, m_form, *m_response);
            }
            complete(status);
        };
        std::lock_guard<std::mutex> lock(m_mutex);
        m_job = std::move(job);
        m_version = std::move(version);
        return {};
    }

    // The last use of `this` before gRPC may call OnDone.
    void complete(const Status& status) {
        m_serving.metrics.record_request(m_request->model_name(), m_version_number, "gRPC",
                                         "ModelInfer", status.ok(), micros_since(m_start));
        // kCancelled comes only from OnCancel's cancel (or the device run it cancelled).
        if (status.code == StatusCode::kCancelled) {
            m_serving.metrics.record_cancelled(m_request->model_name(), m_version_number, "gRPC");
        }
        Finish(to_grpc(status));
    }

    ServingContext& m_serving;
    grpc::CallbackServerContext* m_context;
    const inference::ModelInferRequest* m_request;
    inference::ModelInferResponse* m_response;
    const Clock::time_point m_start = Clock::now();
    GrpcReplyForm m_form;
    int64_t m_version_number = 0;
    std::mutex m_mutex;
    std::shared_ptr<InferJob> m_job;
    std::shared_ptr<ModelVersion> m_version;
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
