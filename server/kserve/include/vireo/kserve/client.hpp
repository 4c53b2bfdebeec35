// Declares vireo::kserve::Client: a small C++ client of the KServe v2 gRPC protocol (server
// metadata and readiness, model metadata, Triton's repository load/unload, and ModelInfer both
// blocking and callback-driven), shared by the REMOTE device plugin and vireo_loadgen.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "grpc_service.grpc.pb.h"

namespace vireo::kserve {

/// Where a server is: "host:port" (plaintext) or "grpcs://host:port" (TLS). "grpc://host:port"
/// is accepted as plaintext too.
struct Endpoint {
    std::string address;  ///< host:port, as gRPC dials it
    bool tls = false;
};

/// Parses a URL as above. Throws std::invalid_argument naming the URL when it is empty, has
/// another scheme, or has no ":port".
Endpoint parse_url(const std::string& url);

/// The TLS settings of a grpcs:// channel, as PEM text (not paths); ignored for plaintext URLs.
/// Every field is optional.
struct TlsOptions {
    /// The CA that signed the server's certificate; empty: the system's roots.
    std::string ca_pem;
    /// The client's certificate (chain) and its private key, for servers that require mutual TLS
    /// (vireo_server --tls_client_ca). Both or neither.
    std::string cert_chain_pem;
    std::string private_key_pem;
};

/// One HTTP/2 channel to one server; every call of every thread shares it (gRPC multiplexes the
/// calls in flight). Thread-safe. `timeout` arguments: zero means no deadline.
///
///     kserve::Client client("grpcs://10.0.0.2:9000", {ca, cert, key});
///     bool ready = false;
///     grpc::Status s = client.server_ready(&ready, std::chrono::seconds(5));
class Client {
  public:
    /// Throws std::invalid_argument for a bad URL, or a client certificate without its key (or
    /// the other way round). Connecting is lazy: an unreachable server, or a TLS handshake the
    /// server refuses, shows as UNAVAILABLE on the first call.
    explicit Client(const std::string& url, const TlsOptions& tls = {});
    /// Every infer_async call must have ended (its `done` called) before the client is destroyed.
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    const std::string& url() const { return m_url; }
    inference::GRPCInferenceService::Stub& stub() { return *m_stub; }

    grpc::Status server_ready(bool* ready, std::chrono::milliseconds timeout);
    grpc::Status server_metadata(inference::ServerMetadataResponse* out,
                                 std::chrono::milliseconds timeout);
    grpc::Status model_ready(const std::string& name, const std::string& version, bool* ready,
                             std::chrono::milliseconds timeout);
    grpc::Status model_metadata(const std::string& name, const std::string& version,
                                inference::ModelMetadataResponse* out,
                                std::chrono::milliseconds timeout);
    grpc::Status load(const inference::RepositoryModelLoadRequest& request,
                      std::chrono::milliseconds timeout);
    grpc::Status unload(const std::string& name, std::chrono::milliseconds timeout);
    grpc::Status infer(const inference::ModelInferRequest& request,
                       inference::ModelInferResponse* response, std::chrono::milliseconds timeout);

    /// Starts a ModelInfer without blocking; `done` runs once, on the client's completion thread,
    /// when the call ends (OK, error, deadline or cancel). It uses gRPC's completion-queue API
    /// with one queue and thread per client (gRPC 1.51's callback API aborts in its shared
    /// callback queue when channels come and go). `context`, `request` and `response` must stay
    /// alive until then; `context->TryCancel()` cancels the call from any thread.
    void infer_async(grpc::ClientContext* context, const inference::ModelInferRequest* request,
                     inference::ModelInferResponse* response,
                     std::function<void(grpc::Status)> done);

    /// A context with the deadline `timeout` from now (none when zero).
    static void set_timeout(grpc::ClientContext& context, std::chrono::milliseconds timeout);

  private:
    struct AsyncCall;

    std::string m_url;
    std::shared_ptr<grpc::Channel> m_channel;
    std::unique_ptr<inference::GRPCInferenceService::Stub> m_stub;
    grpc::CompletionQueue m_queue;
    std::thread m_completions;  // runs each ended call's `done`
};

/// "UNAVAILABLE", "DEADLINE_EXCEEDED", ... for messages.
const char* status_code_name(grpc::StatusCode code);

}  // namespace vireo::kserve
