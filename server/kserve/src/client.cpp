// Implements vireo::kserve::Client: URL parsing, the channel, and the KServe v2 calls.
#include "vireo/kserve/client.hpp"

#include <grpc/grpc.h>

#include <climits>
#include <mutex>
#include <stdexcept>

namespace vireo::kserve {

// One infer_async call, the tag of its completion.
struct Client::AsyncCall {
    std::function<void(grpc::Status)> done;
    grpc::Status status;
    std::unique_ptr<grpc::ClientAsyncResponseReader<inference::ModelInferResponse>> reader;
};

Endpoint parse_url(const std::string& url) {
    Endpoint endpoint;
    std::string rest = url;
    const auto scheme_end = url.find("://");
    if (scheme_end != std::string::npos) {
        const std::string scheme = url.substr(0, scheme_end);
        if (scheme == "grpcs") {
            endpoint.tls = true;
        } else if (scheme != "grpc") {
            throw std::invalid_argument("URL '" + url + "' has the scheme '" + scheme +
                                        "'; expected host:port, grpc://host:port or "
                                        "grpcs://host:port");
        }
        rest = url.substr(scheme_end + 3);
    }
    while (!rest.empty() && rest.back() == '/') rest.pop_back();
    const auto colon = rest.rfind(':');
    if (rest.empty() || colon == std::string::npos || colon == 0 || colon + 1 == rest.size() ||
        rest.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
        throw std::invalid_argument("URL '" + url + "' is not host:port (or grpcs://host:port)");
    }
    endpoint.address = rest;
    return endpoint;
}

Client::Client(const std::string& url, const TlsOptions& tls) : m_url(url) {
    // gRPC stays initialised for the rest of the process, so that the last client's end does not
    // shut it down only for the next client to start it again.
    static std::once_flag initialised;
    std::call_once(initialised, [] { grpc_init(); });
    const Endpoint endpoint = parse_url(url);
    if (tls.cert_chain_pem.empty() != tls.private_key_pem.empty())
        throw std::invalid_argument(
            "a TLS client certificate needs its private key and a key its certificate (" +
            std::string(tls.cert_chain_pem.empty() ? "no certificate" : "no private key") +
            " given)");
    std::shared_ptr<grpc::ChannelCredentials> credentials;
    if (endpoint.tls) {
        grpc::SslCredentialsOptions options;
        options.pem_root_certs = tls.ca_pem;  // empty: gRPC's default roots
        options.pem_cert_chain = tls.cert_chain_pem;
        options.pem_private_key = tls.private_key_pem;
        credentials = grpc::SslCredentials(options);
    } else {
        credentials = grpc::InsecureChannelCredentials();
    }
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(INT_MAX);  // tensors: the server sets its own limit
    arguments.SetMaxSendMessageSize(INT_MAX);
    // A channel of its own (not shared with other Clients of the same address), so that two
    // instances pointing at one server still count as two connections.
    arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    // Reconnect quickly after a server restart (the default backoff grows to 120 s).
    arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
    m_channel = grpc::CreateCustomChannel(endpoint.address, credentials, arguments);
    m_stub = inference::GRPCInferenceService::NewStub(m_channel);
    m_completions = std::thread([this] {
        void* tag = nullptr;
        bool ok = false;
        while (m_queue.Next(&tag, &ok)) {
            std::unique_ptr<AsyncCall> call(static_cast<AsyncCall*>(tag));
            call->done(std::move(call->status));
        }
    });
}

Client::~Client() {
    m_queue.Shutdown();
    if (m_completions.joinable()) m_completions.join();
}

void Client::set_timeout(grpc::ClientContext& context, std::chrono::milliseconds timeout) {
    if (timeout.count() > 0) context.set_deadline(std::chrono::system_clock::now() + timeout);
}

grpc::Status Client::server_ready(bool* ready, std::chrono::milliseconds timeout) {
    grpc::ClientContext context;
    set_timeout(context, timeout);
    inference::ServerReadyResponse response;
    grpc::Status s = m_stub->ServerReady(&context, inference::ServerReadyRequest(), &response);
    if (s.ok()) *ready = response.ready();
    return s;
}

grpc::Status Client::server_metadata(inference::ServerMetadataResponse* out,
                                     std::chrono::milliseconds timeout) {
    grpc::ClientContext context;
    set_timeout(context, timeout);
    return m_stub->ServerMetadata(&context, inference::ServerMetadataRequest(), out);
}

grpc::Status Client::model_ready(const std::string& name, const std::string& version, bool* ready,
                                 std::chrono::milliseconds timeout) {
    grpc::ClientContext context;
    set_timeout(context, timeout);
    inference::ModelReadyRequest request;
    request.set_name(name);
    request.set_version(version);
    inference::ModelReadyResponse response;
    grpc::Status s = m_stub->ModelReady(&context, request, &response);
    if (s.ok()) *ready = response.ready();
    return s;
}

grpc::Status Client::model_metadata(const std::string& name, const std::string& version,
                                    inference::ModelMetadataResponse* out,
                                    std::chrono::milliseconds timeout) {
    grpc::ClientContext context;
    set_timeout(context, timeout);
    inference::ModelMetadataRequest request;
    request.set_name(name);
    request.set_version(version);
    return m_stub->ModelMetadata(&context, request, out);
}

grpc::Status Client::load(const inference::RepositoryModelLoadRequest& request,
                          std::chrono::milliseconds timeout) {
    grpc::ClientContext context;
    set_timeout(context, timeout);
    inference::RepositoryModelLoadResponse response;
    return m_stub->RepositoryModelLoad(&context, request, &response);
}

grpc::Status Client::unload(const std::string& name, std::chrono::milliseconds timeout) {
    grpc::ClientContext context;
    set_timeout(context, timeout);
    inference::RepositoryModelUnloadRequest request;
    request.set_model_name(name);
    inference::RepositoryModelUnloadResponse response;
    return m_stub->RepositoryModelUnload(&context, request, &response);
}

grpc::Status Client::infer(const inference::ModelInferRequest& request,
                           inference::ModelInferResponse* response,
                           std::chrono::milliseconds timeout) {
    grpc::ClientContext context;
    set_timeout(context, timeout);
    return m_stub->ModelInfer(&context, request, response);
}

void Client::infer_async(grpc::ClientContext* context, const inference::ModelInferRequest* request,
                         inference::ModelInferResponse* response,
                         std::function<void(grpc::Status)> done) {
    auto call = std::make_unique<AsyncCall>();
    call->done = std::move(done);
    call->reader = m_stub->PrepareAsyncModelInfer(context, *request, &m_queue);
    call->reader->StartCall();
    AsyncCall* tag = call.release();  // deleted by the completion thread
    tag->reader->Finish(response, &tag->status, tag);
}

const char* status_code_name(grpc::StatusCode code) {
    switch (code) {
        case grpc::StatusCode::OK:
            return "OK";
        case grpc::StatusCode::CANCELLED:
            return "CANCELLED";
        case grpc::StatusCode::UNKNOWN:
            return "UNKNOWN";
        case grpc::StatusCode::INVALID_ARGUMENT:
            return "INVALID_ARGUMENT";
        case grpc::StatusCode::DEADLINE_EXCEEDED:
            return "DEADLINE_EXCEEDED";
        case grpc::StatusCode::NOT_FOUND:
            return "NOT_FOUND";
        case grpc::StatusCode::ALREADY_EXISTS:
            return "ALREADY_EXISTS";
        case grpc::StatusCode::PERMISSION_DENIED:
            return "PERMISSION_DENIED";
        case grpc::StatusCode::RESOURCE_EXHAUSTED:
            return "RESOURCE_EXHAUSTED";
        case grpc::StatusCode::FAILED_PRECONDITION:
            return "FAILED_PRECONDITION";
        case grpc::StatusCode::ABORTED:
            return "ABORTED";
        case grpc::StatusCode::OUT_OF_RANGE:
            return "OUT_OF_RANGE";
        case grpc::StatusCode::UNIMPLEMENTED:
            return "UNIMPLEMENTED";
        case grpc::StatusCode::INTERNAL:
            return "INTERNAL";
        case grpc::StatusCode::UNAVAILABLE:
            return "UNAVAILABLE";
        case grpc::StatusCode::DATA_LOSS:
            return "DATA_LOSS";
        case grpc::StatusCode::UNAUTHENTICATED:
            return "UNAUTHENTICATED";
        default:
            return "UNKNOWN";
    }
}

}  // namespace vireo::kserve
