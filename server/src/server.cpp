// vireo_server's process state: start, reload, drain, stop.
#include "server.hpp"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "grpc_service.hpp"
#include "rest_server.hpp"
#include "server_log.hpp"

namespace vireo::server {

Server::Server(ServerOptions options)
    : m_options(std::move(options)), m_core(m_options.plugins_xml) {
    m_upload_root =
        (std::filesystem::temp_directory_path() / ("vireo_server_" + std::to_string(::getpid())))
            .string();
    m_models = std::make_unique<ModelManager>(m_core, m_metrics, m_upload_root);
    m_models->configure(m_options.models);
    m_context = std::make_unique<ServingContext>(*m_models, m_metrics, m_options);
    m_context->reload = [this] { return reload(); };
}

Server::~Server() {
    if (m_rest) m_rest->stop();
    if (m_grpc) m_grpc->Shutdown();
    std::error_code ec;
    std::filesystem::remove_all(m_upload_root, ec);
}

namespace {

bool read_file(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::stringstream text;
    text << in.rdbuf();
    out = text.str();
    return true;
}

}  // namespace

Status Server::grpc_credentials(std::shared_ptr<grpc::ServerCredentials>& out) const {
    if (m_options.tls_cert.empty()) {
        out = grpc::InsecureServerCredentials();
        return {};
    }
    grpc::SslServerCredentialsOptions ssl(
        m_options.tls_client_ca.empty()
            ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
            : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
    for (const auto& [path, text] : {std::pair{&m_options.tls_cert, &pair.cert_chain},
                                     std::pair{&m_options.tls_key, &pair.private_key}}) {
        if (!read_file(*path, *text)) {
            return {StatusCode::kInvalidArgument, "cannot read TLS file '" + *path + "'"};
        }
    }
    if (!m_options.tls_client_ca.empty() &&
        !read_file(m_options.tls_client_ca, ssl.pem_root_certs)) {
        return {StatusCode::kInvalidArgument,
                "cannot read --tls_client_ca '" + m_options.tls_client_ca + "'"};
    }
    ssl.pem_key_cert_pairs.push_back(std::move(pair));
    out = grpc::SslServerCredentials(ssl);
    return {};
}

Status Server::start() {
    if (m_options.grpc_port > 0 || m_options.grpc_port == -1) {
        const int wanted = m_options.grpc_port == -1 ? 0 : m_options.grpc_port;
        m_grpc_service = std::make_unique<GrpcService>(*m_context);
        grpc::ServerBuilder builder;
        std::shared_ptr<grpc::ServerCredentials> credentials;
        Status s = grpc_credentials(credentials);
        if (!s.ok()) return s;
        builder.AddListeningPort(m_options.grpc_address + ":" + std::to_string(wanted), credentials,
                                 &m_grpc_port);
        builder.RegisterService(m_grpc_service.get());
        const int limit =
            static_cast<int>(std::min<size_t>(m_options.max_request_bytes, INT32_MAX));
        builder.SetMaxReceiveMessageSize(limit);
        builder.SetMaxSendMessageSize(limit);
        m_grpc = builder.BuildAndStart();
        if (!m_grpc || m_grpc_port == 0) {
            return {StatusCode::kUnavailable, "cannot listen for gRPC on " +
                                                  m_options.grpc_address + ":" +
                                                  std::to_string(wanted)};
        }
        log_line("info",
                 "gRPC listening on " + m_options.grpc_address + ":" + std::to_string(m_grpc_port));
    }
    if (m_options.rest_port > 0 || m_options.rest_port == -1) {
        m_rest = std::make_unique<RestServer>(*m_context);
        m_rest_port = m_rest->start(m_options.rest_address,
                                    m_options.rest_port == -1 ? 0 : m_options.rest_port);
        if (m_rest_port <= 0) {
            return {StatusCode::kUnavailable, "cannot listen for REST on " +
                                                  m_options.rest_address + ":" +
                                                  std::to_string(m_options.rest_port)};
        }
        log_line("info",
                 "REST listening on " + m_options.rest_address + ":" + std::to_string(m_rest_port));
    }
    return {};
}

Status Server::load_models() {
    Status s = m_models->load_all();
    if (!s.ok()) log_line("error", s.message);
    log_line("info", m_context->ready() ? "ready" : "not ready: some model has no version loaded");
    return s;
}

Status Server::reload() {
    if (!m_options.config_path.empty()) {
        std::ifstream in(m_options.config_path);
        if (!in) {
            return {StatusCode::kInvalidArgument, "cannot read '" + m_options.config_path + "'"};
        }
        std::stringstream text;
        text << in.rdbuf();
        std::vector<ModelConfig> models;
        Status s = parse_model_config_list(text.str(), models);
        if (!s.ok()) return {s.code, m_options.config_path + ": " + s.message};
        std::set<std::string> names;
        for (const auto& m : models) names.insert(m.name);
        for (const auto& entry : m_models->index()) {
            if (!names.count(entry.model)) m_models->unload(entry.model);
        }
        m_models->configure(models);
    }
    return m_models->load_all();
}

bool Server::shutdown() {
    m_context->draining.store(true);
    log_line("info", "shutting down: draining for up to " +
                         std::to_string(m_options.shutdown_grace_seconds) + " s");
    const auto until = Clock::now() + std::chrono::seconds(m_options.shutdown_grace_seconds);
    const bool drained = m_models->drain(until);
    log_line("info", drained ? "drained" : "grace period over with requests still running");
    if (m_grpc) m_grpc->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    if (m_rest) m_rest->stop();
    return drained;
}

}  // namespace vireo::server
